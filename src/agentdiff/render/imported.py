"""`Imported`: a mapping of names to functions whose modules are imported on first use.

Renderer tables use it so that a command imports only the renderer it writes with (a JSON
report never loads rich, jinja2 or the JUnit writer).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

__all__ = ["Imported"]

F = TypeVar("F", bound=Callable[..., Any])


class Imported(Mapping[str, F]):
    """Names → functions given as `module:function`, each module imported on first use."""

    def __init__(self, paths: dict[str, str]) -> None:
        self._paths = paths

    def __getitem__(self, name: str) -> F:
        module, function = self._paths[name].split(":")
        found: F = getattr(importlib.import_module(module), function)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)
