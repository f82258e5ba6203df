"""Reports for renderer tests: real fixture pairs and a hostile pair full of injection attempts."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from agentdiff.diff import CompareOptions, compare
from agentdiff.loader import load_trace
from agentdiff.models.report import DiffReport
from agentdiff.models.trace import AgentTrace, StepStatus, StepType, TokenUsage, TraceStep

REAL = Path(__file__).parents[1] / "fixtures" / "real"
GOLDEN = Path(__file__).parent / "golden"
PAIR_SOURCE = "langfuse"
"""Real pairs used for golden output: the Langfuse trace JSON (`<side>.json`)."""

MARKUP = "[bold red]boom[/]"
ESCAPE = "\x1b[31mred\x1b[0m\x07"
SCRIPT = "<script>window.__pwned = 1</script>"
ONERROR = '<img src=x onerror="window.__pwned = 2">'
PIPES = "a|b`c`@octocat *x* _y_ $z$"


def pair_paths(scenario: str) -> tuple[Path, Path]:
    folder = REAL / PAIR_SOURCE / scenario
    return folder / "baseline.json", folder / "candidate.json"


def real_report(scenario: str, **options: object) -> DiffReport:
    baseline, candidate = pair_paths(scenario)
    return compare(load_trace(baseline), load_trace(candidate), options=CompareOptions(**options))


def _step(i: int, name: str, parent: str | None = None, **fields: object) -> TraceStep:
    return TraceStep(
        step_id=f"s{i}",
        parent_id=parent,
        step_index=i,
        step_type=fields.pop("step_type", StepType.TOOL_CALL),
        name=name,
        **fields,
    )


def hostile_traces() -> tuple[AgentTrace, AgentTrace]:
    """Two runs whose names, payloads and errors try to style, break or script the output."""
    usage = TokenUsage(prompt_tokens=10, completion_tokens=5, total_tokens=15)
    base_steps = [
        _step(0, "agent", step_type=StepType.ROUTING),
        _step(1, MARKUP, "s0", input_payload={"q": SCRIPT}, output_payload={"v": 1}),
        _step(2, "llm", "s0", step_type=StepType.LLM_CALL, tokens=usage),
        _step(3, PIPES, "s0", input_payload={"x": 1}),
    ]
    cand_steps = [
        _step(0, "agent", step_type=StepType.ROUTING),
        _step(1, MARKUP, "s0", input_payload={"q": ONERROR}, output_payload={"v": SCRIPT}),
        _step(2, "llm", "s0", step_type=StepType.LLM_CALL, tokens=usage),
        _step(3, ESCAPE, "s0", status=StepStatus.ERROR, error_message=SCRIPT + "\n" + ESCAPE),
        _step(4, PIPES, "s0", input_payload={"x": 2}),
    ]
    base = AgentTrace(trace_id="b" + SCRIPT, agent_name=MARKUP, steps=base_steps)
    cand = AgentTrace(trace_id="c" + ESCAPE, agent_name=ONERROR, steps=cand_steps)
    return base, cand


def hostile_report() -> DiffReport:
    base, cand = hostile_traces()
    return compare(base, cand, options=CompareOptions(strict_tool_signatures=True))


def parse_xml(text: str) -> ET.Element:
    """Parse JUnit XML the renderer wrote (trusted: our own output)."""
    return ET.fromstring(text)  # noqa: S314
