"""`SuiteOptions`: every knob of `run_suite()` in one frozen object."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agentdiff.diff import CompareOptions
from agentdiff.render.options import RenderOptions
from agentdiff.stats_options import StatsOptions
from agentdiff.suite.manifest import ScenarioOverride

__all__ = ["BackendName", "SuiteOptions"]

BackendName = Literal["local", "in-process", "pool", "dask"]


class SuiteOptions(BaseModel):
    """How a suite is run, judged and where its results go."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    name: str | None = None
    """The suite's name (default: the manifest's, else `<baseline> vs <candidate>`)."""
    compare: CompareOptions = Field(default_factory=CompareOptions)
    """How each pair is compared and gated."""
    sources: dict[str, str] = Field(default_factory=dict)
    """Where each setting came from (`flag --x`, `env AGENTDIFF_X`, a file); shown in reports."""
    stats: StatsOptions = Field(default_factory=StatsOptions)
    """How scenarios with several runs on a side are judged (N-vs-M statistics, `[stats]`)."""
    overrides: tuple[ScenarioOverride, ...] = ()
    """Per-scenario gate and `[stats]` settings by glob (later overrides win; a setting
    whose `sources` entry is a flag or an environment variable keeps that value)."""
    only: tuple[str, ...] = ()
    """Run only scenarios matching one of these globs."""
    jobs: int | Literal["auto"] = "auto"
    """Worker processes (`auto`: the CPUs this process may use)."""
    backend: BackendName | Any = "local"
    """`local` (in-process for small suites, else a process pool), `in-process`, `pool`,
    `dask`, or any object with `map(task, batches)` (see `agentdiff.suite.backends`)."""
    scheduler: str | None = None
    """With `backend="dask"`: a scheduler address to attach to (default: a LocalCluster)."""
    fail_fast: bool = False
    """Stop at the first scenario that errors or regresses."""
    allow_missing: bool = False
    """A scenario only in the baseline is `removed` (not an error)."""
    results: str | None = None
    """Folder (or fsspec URL) for `suite.json`, `timings.json` and the results tables."""
    pair_pages: bool = False
    """Keep the pair HTML reports of the most severe regressed scenarios (for the HTML suite
    report; at most `agentdiff.suite.pages.PAGE_LIMIT`). A results folder always keeps them."""
    pages: RenderOptions = Field(default_factory=RenderOptions)
    """How those pair reports are rendered: their redaction (`--no-redact`, the `[report]`
    patterns and keys) is the suite report's own, fixed in the pages when they are made."""
    batch_seconds: float | None = Field(default=None, gt=0)
    """Estimated work per task; default: guided, the work still to hand out over four per
    worker, kept within 0.05-0.25 s, so task overheads stay small on every backend."""

    @field_validator("jobs")
    @classmethod
    def _positive(cls, value: int | str) -> int | str:
        if isinstance(value, int) and value < 1:
            msg = "jobs must be at least 1 (or 'auto')"
            raise ValueError(msg)
        return value
