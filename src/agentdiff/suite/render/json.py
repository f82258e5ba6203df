"""The suite JSON renderer: the report's versioned contract, nothing added (redacted on request)."""

from __future__ import annotations

import orjson

from agentdiff.render.json import data_json
from agentdiff.render.options import RenderOptions
from agentdiff.suite.report import SuiteReport

__all__ = ["render_suite_json"]


def render_suite_json(report: SuiteReport, options: RenderOptions | None = None) -> str:
    """`report.to_json()` with a trailing newline (what `suite.json` holds).

    With `--redact` (`options.redact`), the same data redacted, as every JSON report does.
    """
    options = options or RenderOptions()
    if not options.redactor(default=False).enabled:
        return report.to_json() + "\n"
    return data_json(orjson.loads(report.to_json()), options).decode()
