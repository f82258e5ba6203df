"""Pair HTML reports of a suite's most severe regressed scenarios, made after the run.

A suite keeps no `DiffReport`, so a page is re-derived: the deciding pair of a regressed
scenario is loaded again, compared with that scenario's options and rendered by the pair
renderer. Only after every scenario is settled (a multi-run scenario's final verdict comes from
the statistics across the suite), and at most `PAGE_LIMIT` of them, most severe first (the
order every suite renderer lists regressed scenarios in): cost and size stay bounded whatever
the suite's size. A results folder keeps them as `pairs/NNN-<scenario>.html` with
`pairs/index.json` (scenario → file) and `pairs/redaction.json` (whether they were redacted),
which `agentdiff results DIR -f html` reads back.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import quote

from agentdiff.diff import compare
from agentdiff.errors import AgentDiffError
from agentdiff.limits import Limits
from agentdiff.models.trace import AgentTrace
from agentdiff.redact import DEFAULT_REDACTOR, Redactor
from agentdiff.render.options import RenderOptions
from agentdiff.suite.load import load_runs
from agentdiff.suite.refs import RunRef
from agentdiff.suite.render.view import most_severe
from agentdiff.suite.report import SuiteReport
from agentdiff.suite.rows import RunLocation
from agentdiff.suite.task import ScenarioJob, TaskContext, job_options

__all__ = [
    "PAGES_DIR",
    "PAGES_INDEX",
    "PAGES_REDACTION",
    "PAGE_LIMIT",
    "deciding_pages",
    "folder_href",
    "page_files",
]

PAGE_LIMIT = 25
"""The most pair reports a suite keeps (each is a whole HTML page of its pair)."""
PAGES_DIR = "pairs"
PAGES_INDEX = f"{PAGES_DIR}/index.json"
PAGES_REDACTION = f"{PAGES_DIR}/redaction.json"
"""`{"redacted": true}` when the pages were made with secrets redacted (absent: not known)."""
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def deciding_pages(
    report: SuiteReport,
    jobs: Mapping[str, ScenarioJob],
    context: TaskContext,
    render_options: RenderOptions | None = None,
    limit: int = PAGE_LIMIT,
) -> dict[str, str]:
    """Scenario → the HTML pair report of its deciding pair, for the most severe regressions.

    Rendered with `render_options` (the suite report's redaction), default the pair default.

    A pair that cannot be loaded again (its file changed or went away since) gets no page.
    """
    from agentdiff.render import render  # noqa: PLC0415 - HTML only when pages are wanted

    pages = {}
    for row in most_severe(report.rows.having("regressed"), limit):
        job = jobs.get(row.scenario)
        if job is None or row.deciding is None:
            continue
        pair = row.pairs[row.deciding]
        try:
            base = _trace(job.baseline, pair.baseline, context.baseline_root, context.limits)
            cand = _trace(job.candidate, pair.candidate, context.candidate_root, context.limits)
        except AgentDiffError:
            continue
        diff = compare(base, cand, options=job_options(job, context.options))
        pages[row.scenario] = render(diff, "html", render_options)
    return pages


def page_files(scenarios: list[str], redactor: Redactor = DEFAULT_REDACTOR) -> dict[str, str]:
    """Scenario → its page's path in a results folder (numbered in the order given).

    Named after the scenario with its credentials redacted by `redactor` (the built-in
    patterns and the user's `redact_patterns`; never off: the name is a link in the report and
    a file name on disk, and a scenario named after a token is still told apart by its number).
    """
    return {
        key: f"{PAGES_DIR}/{number:03d}-{_UNSAFE.sub('_', redactor.text(key))[:60]}.html"
        for number, key in enumerate(scenarios, 1)
    }


def _trace(refs: tuple[RunRef, ...], where: RunLocation, root: str, limits: Limits) -> AgentTrace:
    for ref in refs:
        if ref.source == where.source:
            for run_id, _, trace in load_runs(ref, root, limits):
                if run_id == where.run:
                    return trace
    raise AgentDiffError("the run is no longer there", source=where.source)


def folder_href(folder: Path, page: Path | None) -> str:
    """The results `folder` as a relative URL prefix from the HTML file `page` ("": the same).

    `None` (stdout): from the current folder, where `> page.html` would put it.
    """
    start = Path.cwd() if page is None else page.absolute().parent
    relative = Path(os.path.relpath(folder.absolute(), start)).as_posix()
    return "" if relative == "." else quote(relative) + "/"
