"""The JSON renderer: the report's versioned contract, nothing added.

The data is kept as is; `RenderOptions(redact=True)` (`--redact`) redacts secrets in it too.
"""

from __future__ import annotations

import orjson

from agentdiff.models.report import DiffReport
from agentdiff.redact import redact_report_data
from agentdiff.render.options import RenderOptions

__all__ = ["render_json"]


def render_json(report: DiffReport, options: RenderOptions) -> str:
    """`report.to_json()` with a trailing newline (redacted only when asked for)."""
    redactor = options.redactor(default=False)
    if not redactor.enabled:
        return report.to_json() + "\n"
    data = redact_report_data(report.model_dump(mode="json"), redactor)
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"
