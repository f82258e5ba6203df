"""`agentdiff schema [trace|report]`: JSON Schema generated from the models."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any

import orjson
import typer

from agentdiff.cli.errors import handle_errors
from agentdiff.models.report import DiffReport
from agentdiff.models.trace import AgentTrace
from agentdiff.scenario.report import RunsReport
from agentdiff.suite.report import SuiteReport

__all__ = ["SCHEMAS", "schema", "schema_json"]


class SchemaName(str, Enum):
    """Which model's schema to print."""

    trace = "trace"
    report = "report"
    suite = "suite"
    runs = "runs"


SCHEMAS: dict[SchemaName, type[Any]] = {
    SchemaName.trace: AgentTrace,
    SchemaName.report: DiffReport,
    SchemaName.suite: SuiteReport,
    SchemaName.runs: RunsReport,
}


def schema_json(name: SchemaName) -> str:
    """The JSON Schema text (what `schema/` holds)."""
    document = SCHEMAS[name].model_json_schema(mode="serialization")
    return orjson.dumps(document, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode() + "\n"


@handle_errors
def schema(which: Annotated[SchemaName, typer.Argument()] = SchemaName.trace) -> None:
    """Print the JSON Schema of the canonical trace, the diff report or the suite report."""
    typer.echo(schema_json(which), nl=False)
