"""`BaseAdapter`: the two things every trace format teaches AgentDiff.

An adapter is a class with a cheap `detect(data)` sniff (look at top-level keys and a few items,
never parse the whole document) and a `from_dict(data)` that builds an `AgentTrace`. Sources
that can hold several runs in one document also implement `trace_ids` and `select_trace`;
sources that spread one run over several files implement `with_companions`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from agentdiff.models.trace import AgentTrace

__all__ = ["BaseAdapter"]


class BaseAdapter:
    """Subclass, implement `from_dict`, optionally `detect`, then `@register_adapter(name)`."""

    name: ClassVar[str] = ""
    """Set by the registry: the name users pass as `adapter_name` / `--adapter`."""
    aliases: ClassVar[tuple[str, ...]] = ()
    """Other names that select this adapter."""
    description: ClassVar[str] = ""
    """One line shown by `agentdiff adapters`."""

    @classmethod
    def from_dict(cls, data: Any) -> AgentTrace:
        """Turn one parsed JSON document (dict or list) into an `AgentTrace`."""
        raise NotImplementedError

    @classmethod
    def detect(cls, data: Any) -> bool:  # noqa: ARG003 - the default claims nothing
        """Return True when `data` looks like this format. Must be cheap and never raise."""
        return False

    @classmethod
    def companions(cls, path: Path, data: Any) -> list[Path]:  # noqa: ARG003 - most formats are one file
        """Files beside `path` holding the rest of the run (e.g. sub-agent transcripts).

        The loader reads them (JSON Lines, under the same limits as `path`) and hands their
        records to `with_companions`.
        """
        return []

    @classmethod
    def part_of(cls, path: Path) -> Path | None:  # noqa: ARG003 - most formats are one file
        """The file on disk whose run `path` is read as part of (one of its `companions`).

        A file that is part of another's run is never a run of its own, whether or not that
        file is among the files searched. None: `path` is no such part.
        """
        return None

    @classmethod
    def with_companions(cls, data: Any, records: list[Any]) -> Any:  # noqa: ARG003 - see companions
        """`data` plus the `records` of its `companions`, in order."""
        return data

    @classmethod
    def trace_ids(cls, data: Any) -> list[str]:  # noqa: ARG003 - single-trace formats
        """The ids of the traces in `data` when it can hold several; empty when it holds one."""
        return []

    @classmethod
    def select_trace(cls, data: Any, trace_id: str) -> Any:  # noqa: ARG003
        """Return the part of `data` that belongs to `trace_id` (only for multi-trace formats)."""
        return data

    @classmethod
    def split_traces(cls, data: Any) -> list[tuple[str, Any]]:
        """Each of `trace_ids(data)` with its part of `data` (`select_trace`), in that order.

        How a file of many runs is read (`load_traces`). A format whose `select_trace` reads
        the whole document overrides this to split it in one pass: a part per id read off the
        whole document made reading a file of 800 traces take 26 s.
        """
        return [(trace_id, cls.select_trace(data, trace_id)) for trace_id in cls.trace_ids(data)]
