"""The JSON renderer: the report's versioned contract, nothing added.

The data is kept as is; `RenderOptions(redact=True)` (`--redact`) redacts secrets in it too.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from agentdiff.models.report import DiffReport
from agentdiff.redact import redact_report_data
from agentdiff.render.options import RenderOptions

__all__ = ["data_json", "render_json", "render_json_bytes", "render_json_parts"]


def render_json(report: DiffReport, options: RenderOptions) -> str:
    """`report.to_json()` with a trailing newline (redacted only when asked for)."""
    return render_json_bytes(report, options).decode()


def render_json_bytes(report: DiffReport, options: RenderOptions) -> bytes:
    """`render_json` as UTF-8 bytes, without the copy as text (a 1M-step report is ~0.5 GB)."""
    if not options.redactor(default=False).enabled:
        return report.to_json_bytes(newline=True)
    return data_json(report.model_dump(mode="json"), options)


def data_json(data: Any, options: RenderOptions) -> bytes:
    """A report's JSON data, indented, its secrets redacted only when asked for (`--redact`).

    The one way every JSON report (`compare`, `compare-runs`, `routes`, `sessions`) redacts.
    """
    redactor = options.redactor(default=False)
    if redactor.enabled:
        data = redact_report_data(data, redactor)
    return orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)


def render_json_parts(report: DiffReport, options: RenderOptions) -> Iterable[bytes | memoryview]:
    """`render_json_bytes` in parts made as they are asked for, to write out (see `files`)."""
    if options.redactor(default=False).enabled:
        return [render_json_bytes(report, options)]
    return report.json_parts(newline=True)
