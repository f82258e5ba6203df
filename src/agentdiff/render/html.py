"""The HTML renderer: one self-contained, offline page (inline CSS and SVG, no script, no CDN).

Summary and verdict, both trajectories aligned side by side and colour-coded, an expandable
argument/output diff per step (payloads from the traces attached to the report), a picture of
both DAGs with divergent steps highlighted, loops, errors and deltas. jinja2 renders it with
autoescape on, so every string from a trace is text, never markup; jinja2 is imported lazily
(the `html` extra) so the core stays light.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentdiff.errors import AgentDiffError
from agentdiff.models.report import DiffReport, StepRef
from agentdiff.models.trace import AgentTrace, TraceStep
from agentdiff.render.dag import dag_pictures
from agentdiff.render.options import RenderOptions
from agentdiff.render.text import clip, multiline, one_line, payload_json, short_json
from agentdiff.render.view import (
    DELTA_ROWS,
    MARKERS,
    Row,
    findings,
    first_divergence_line,
    format_delta,
    headline,
    loop_lines,
    recovery_lines,
    rows,
    step_label,
)

__all__ = ["render_html"]

TEMPLATES = Path(__file__).parent / "templates"
PAYLOAD_CHARS = 4000


@dataclass(frozen=True)
class _Side:
    label: str
    payloads: list[tuple[str, str]]
    """(what, indented JSON) for the input, output and error of the step."""


@dataclass(frozen=True)
class _HtmlRow:
    number: int
    op: str
    marker: str
    first: bool
    skipped: int
    baseline: _Side | None
    candidate: _Side | None
    changes: list[tuple[str, str, str, str]]
    """(kind, path, baseline value, candidate value)."""


def _side(ref: StepRef | None, steps: dict[str, TraceStep]) -> _Side | None:
    if ref is None:
        return None
    step = steps.get(ref.step_id)
    payloads: list[tuple[str, str]] = []
    if step is not None:
        payloads.append(("input", payload_json(step.input_payload, PAYLOAD_CHARS)))
        if step.output_payload is not None:
            payloads.append(("output", payload_json(step.output_payload, PAYLOAD_CHARS)))
        if step.error_message:
            payloads.append(("error", clip(multiline(step.error_message), PAYLOAD_CHARS)))
    return _Side(step_label(ref, 80), payloads)


def _steps(trace: AgentTrace | None) -> dict[str, TraceStep]:
    return trace.step_map() if trace is not None else {}


def _rows(report: DiffReport, options: RenderOptions) -> list[_HtmlRow]:
    base_steps, cand_steps = _steps(report.baseline_trace), _steps(report.candidate_trace)
    return [_html_row(row, base_steps, cand_steps) for row in rows(report, options.max_rows)]


def _html_row(
    row: Row, base_steps: dict[str, TraceStep], cand_steps: dict[str, TraceStep]
) -> _HtmlRow:
    entry = row.entry
    if entry is None:
        return _HtmlRow(row.number, "skip", row.elision, False, row.skipped, None, None, [])
    changes: list[tuple[str, str, str, str]] = [
        (c.kind, one_line(c.path), short_json(c.baseline, 400), short_json(c.candidate, 400))
        for c in entry.changes
    ]
    return _HtmlRow(
        number=row.number,
        op=entry.op.value,
        marker=MARKERS[entry.op],
        first=row.first,
        skipped=0,
        baseline=_side(entry.baseline, base_steps),
        candidate=_side(entry.candidate, cand_steps),
        changes=changes,
    )


def _context(report: DiffReport, options: RenderOptions) -> dict[str, Any]:
    state, words = headline(report)
    deltas = [
        (label, *format_delta(getattr(report.deltas, field), fmt))
        for field, label, fmt in DELTA_ROWS
    ]
    return {
        "report": report,
        "state": state,
        "verdict": words,
        "findings": findings(report),
        "first_divergence": first_divergence_line(report),
        "loops": loop_lines(report),
        "recovery": recovery_lines(report),
        "rows": _rows(report, options),
        "deltas": deltas,
        "dags": dag_pictures(report),
        "one_line": one_line,
    }


def _environment() -> Any:
    try:
        import jinja2  # noqa: PLC0415 - optional dependency, only the html format needs it
    except ImportError:
        msg = "the html format needs jinja2"
        raise AgentDiffError(msg, hint="pip install 'agentdiff[html]'") from None
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render_html(report: DiffReport, options: RenderOptions) -> str:
    """The report as one self-contained HTML page."""
    template = _environment().get_template("report.html.j2")
    return str(template.render(_context(report, options)))
