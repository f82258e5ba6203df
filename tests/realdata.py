"""The real captured fixtures, found from their manifests, for every test that reads them.

`tests/fixtures/real/<source>/manifest.json` names a source's shapes: each has a `file` pattern
with a `<side>` placeholder and the `adapter` that reads it. Every `<scenario>/` folder beside
the manifest holds `<side>.<shape>` files and `<side>.facts.json`, the facts recorded inside the
live run (never read back from the serialized output).

`SHARED` is the project's shared reference set (`<folder>/extra_tool_detour/`), copied into
`tests/fixtures/reference/` so that every checkout runs the tests that read it.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentdiff.loader import load_trace
from agentdiff.models.trace import AgentTrace, StepStatus, StepType, TraceStep

REAL = Path(__file__).parent / "fixtures" / "real"
SHARED = Path(__file__).parent / "fixtures" / "reference"
SCENARIOS = ("identical", "detour", "loop", "error_retry", "reworded")
SIDES = ("baseline", "candidate")

SHARED_ADAPTERS = {
    "crewai": "crewai",
    "langfuse": "langfuse",
    "langgraph_checkpoint": "langgraph",
    "langgraph_lc_dumps": "langgraph",
    "langgraph_messages": "langgraph",
    "langgraph_state": "langgraph",
    "langsmith": "langsmith",
    "openai_agents": "openai_agents",
    "openinference_spans": "openinference",
    "otlp_json": "openinference",
}
"""Which adapter reads each folder of the shared reference set (they carry no manifest)."""


class RealSource:
    """One folder of `REAL`: its manifest, its files, their facts and their (cached) traces."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.folder = REAL / name
        self.manifest: dict[str, Any] = json.loads(
            (self.folder / "manifest.json").read_text(encoding="utf-8")
        )
        self.shapes: tuple[str, ...] = tuple(self.manifest["shapes"])

    def __repr__(self) -> str:
        return f"RealSource({self.name!r})"

    def path(self, shape: str, scenario: str, side: str) -> Path:
        """The file of one shape of one side of one scenario."""
        pattern = self.manifest["shapes"][shape]["file"]
        return self.folder / scenario / pattern.replace("<side>", side)

    def facts(self, scenario: str, side: str) -> dict[str, Any]:
        """What the live run recorded about this side of the scenario."""
        data: dict[str, Any] = json.loads(
            (self.folder / scenario / f"{side}.facts.json").read_text(encoding="utf-8")
        )
        return data

    def load(self, shape: str, scenario: str, side: str) -> AgentTrace:
        """The auto-detected trace of one file, loaded once per test session."""
        return load(self.path(shape, scenario, side))

    def cases(self) -> list[tuple[str, str, str]]:
        """Every (shape, scenario, side) of this source."""
        return [
            (shape, scenario, side)
            for shape in self.shapes
            for scenario in SCENARIOS
            for side in SIDES
        ]


def real_sources() -> list[RealSource]:
    """Every source that has a manifest, by name."""
    return [RealSource(p.parent.name) for p in sorted(REAL.glob("*/manifest.json"))]


_CACHE: dict[Path, AgentTrace] = {}


def load(path: Path) -> AgentTrace:
    """`load_trace(path)`, auto-detected, once per session (treat the result as read-only)."""
    if path not in _CACHE:
        _CACHE[path] = load_trace(path)
    return _CACHE[path]


def copy_session(session: Path, target: Path, *, gz: bool = False, gz_parts: bool = False) -> Path:
    """Copy the Claude Code `session` (`<x>.jsonl`, with `<x>/subagents`) to `target` (a stem).

    Written as `<target>.jsonl` and `<target>/subagents/agent-*.jsonl`; `gz` compresses the
    session (`<target>.jsonl.gz`), `gz_parts` the transcripts (`agent-*.jsonl.gz`). Returns the
    session file written.
    """
    (target / "subagents").mkdir(parents=True)
    for part in sorted((session.with_suffix("") / "subagents").glob("agent-*.jsonl")):
        _write(target / "subagents" / part.name, part.read_bytes(), gz=gz_parts)
    return _write(target.with_name(f"{target.name}.jsonl"), session.read_bytes(), gz=gz)


def _write(path: Path, data: bytes, *, gz: bool) -> Path:
    """`data` written to `path`, or gzip-compressed to `path` + `.gz` with `gz`; the file."""
    out = path.with_name(f"{path.name}.gz") if gz else path
    out.write_bytes(gzip.compress(data) if gz else data)
    return out


def of_type(trace: AgentTrace, step_type: StepType) -> list[TraceStep]:
    """The steps of one type, in order."""
    return [s for s in trace.steps if s.step_type is step_type]


def tool_steps(trace: AgentTrace) -> list[TraceStep]:
    """The tool-call steps, in order."""
    return of_type(trace, StepType.TOOL_CALL)


def llm_steps(trace: AgentTrace) -> list[TraceStep]:
    """The LLM-call steps, in order."""
    return of_type(trace, StepType.LLM_CALL)


def check_tool_outcomes(tools: list[TraceStep], calls: list[dict[str, Any]]) -> None:
    """Each tool step against the live run's call: success with no error, or an error whose
    one-line message contains the error the tool raised."""
    assert len(tools) == len(calls)
    for step, call in zip(tools, calls, strict=True):
        if call["error"] is None:
            assert step.status is StepStatus.SUCCESS, step.name
            assert step.error_message is None, step.name
        else:
            assert step.status is StepStatus.ERROR, step.name
            assert step.error_message is not None, step.name
            assert call["error"] in step.error_message
            assert "\n" not in step.error_message


def other_documents(adapter: str) -> list[Path]:
    """Every real and shared document that an adapter other than `adapter` reads.

    All shapes, scenarios and sides of every manifest, then the shared reference files: the
    inputs a detection test must not claim.
    """
    found = [
        source.path(shape, scenario, side)
        for source in real_sources()
        for shape in source.shapes
        if source.manifest["shapes"][shape]["adapter"] != adapter
        for scenario in SCENARIOS
        for side in SIDES
    ]
    for folder in sorted(p for p in SHARED.iterdir() if p.is_dir()):
        if SHARED_ADAPTERS[folder.name] != adapter:
            found += sorted(folder.glob("*/*.json"))
    return [p for p in found if p.exists()]


def document_id(path: Path) -> str:
    """`<source>/<scenario>/<file>`: a readable, unique test id for a fixture file."""
    return "/".join(path.parts[-3:])


@dataclass(frozen=True)
class RealPair:
    """The baseline and candidate files of one scenario in one shape of one source."""

    source: str
    shape: str
    adapter: str
    scenario: str
    baseline: Path
    candidate: Path

    @property
    def id(self) -> str:
        return f"{self.source}-{self.shape}-{self.scenario}"

    def facts(self, side: str) -> dict[str, Any]:
        folder = self.baseline.parent
        data: dict[str, Any] = json.loads((folder / f"{side}.facts.json").read_text())
        return data


def real_pairs(scenario: str | None = None) -> list[RealPair]:
    """Every captured pair (of one scenario, or of all), by source, shape and scenario."""
    pairs = []
    for source in real_sources():
        for shape in sorted(source.shapes):
            for name in SCENARIOS if scenario is None else (scenario,):
                b, c = (source.path(shape, name, side) for side in SIDES)
                if b.exists() and c.exists():
                    adapter = source.manifest["shapes"][shape]["adapter"]
                    pairs.append(RealPair(source.name, shape, adapter, name, b, c))
    return pairs
