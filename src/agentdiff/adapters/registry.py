"""The adapter registry: built-ins in a fixed detection priority, then plugins.

Built-ins are listed in `BUILTIN_ADAPTERS` (detection priority = list order) and imported lazily.
Third-party adapters register with `@register_adapter(...)` or through the entry-point group
`agentdiff.adapters` (`name = "pkg.module:AdapterClass"`). Plugins are consulted only after every
built-in said no, so a plugin can never change how a built-in format is classified, and no
plugin may take a built-in name or alias. A plugin that fails to import is reported as an
`AdapterPluginWarning` and skipped.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, TypeVar

from agentdiff.adapters.base import BaseAdapter
from agentdiff.errors import AdapterRegistrationError, UnknownAdapterError

__all__ = [
    "BUILTIN_ADAPTERS",
    "ENTRY_POINT_GROUP",
    "MULTI_FILE_ADAPTERS",
    "AdapterInfo",
    "AdapterPluginWarning",
    "available_adapters",
    "detect_adapter",
    "get_adapter",
    "multi_file_adapters",
    "register_adapter",
]

ENTRY_POINT_GROUP = "agentdiff.adapters"

BUILTIN_ADAPTERS: tuple[str, ...] = (
    "agentdiff.adapters.generic:GenericAdapter",
    "agentdiff.adapters.openai_agents:OpenAIAgentsAdapter",
    "agentdiff.adapters.langfuse:LangfuseAdapter",
    "agentdiff.adapters.langsmith:LangSmithAdapter",
    "agentdiff.adapters.crewai:CrewAIAdapter",
    "agentdiff.adapters.langgraph:LangGraphAdapter",
    "agentdiff.adapters.openinference:OpenInferenceAdapter",
    "agentdiff.adapters.claude_code:ClaudeCodeAdapter",
    "agentdiff.adapters.codex:CodexAdapter",
)
"""Built-in adapters as `module:Class`, in detection priority (first claim wins)."""

MULTI_FILE_ADAPTERS = frozenset({"agentdiff.adapters.claude_code:ClaudeCodeAdapter"})
"""The built-ins (of `BUILTIN_ADAPTERS`) that read a run from more than one file: they override
`BaseAdapter.companions` or `part_of` (every other built-in reads one file and says so)."""

A = TypeVar("A", bound=type[BaseAdapter])


class AdapterPluginWarning(UserWarning):
    """A third-party adapter could not be loaded or misbehaved; it was skipped."""


@dataclass(frozen=True)
class AdapterInfo:
    """What `available_adapters()` reports for one adapter."""

    name: str
    aliases: tuple[str, ...]
    builtin: bool
    description: str
    origin: str


@dataclass
class _Registry:
    builtins: list[type[BaseAdapter]] = field(default_factory=list)
    plugins: list[type[BaseAdapter]] = field(default_factory=list)
    origins: dict[str, str] = field(default_factory=dict)
    by_name: dict[str, type[BaseAdapter]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    loaded: bool = False
    multi_file: list[type[BaseAdapter]] | None = None
    """`multi_file_adapters()` before loading, when no plugin is installed (found once)."""

    def add(
        self,
        cls: type[BaseAdapter],
        name: str,
        aliases: tuple[str, ...],
        *,
        builtin: bool,
        origin: str,
    ) -> None:
        self.check_free(cls, name, aliases)
        cls.name, cls.aliases = name, aliases
        for key in (name, *aliases):
            self.by_name[key] = cls
        (self.builtins if builtin else self.plugins).append(cls)
        self.origins[name] = origin

    def check_free(self, cls: type[BaseAdapter], name: str, aliases: tuple[str, ...]) -> None:
        """`AdapterRegistrationError` when `name` or an alias belongs to another adapter."""
        for key in (name, *aliases):
            taken = self.by_name.get(key)
            if taken is not None and taken is not cls:
                owner = (
                    "a built-in adapter" if taken in self.builtins else f"adapter {taken.name!r}"
                )
                msg = f"cannot register adapter {name!r}: the name {key!r} is taken by {owner}"
                raise AdapterRegistrationError(msg, hint="choose another name or alias")

    def check_same(self, cls: type[BaseAdapter], name: str, aliases: tuple[str, ...]) -> None:
        """Registering a registered class again is a no-op only under its own name and aliases."""
        self.check_free(cls, name, aliases)
        if (name, aliases) != (cls.name, tuple(cls.aliases)):
            msg = (
                f"cannot register adapter {name!r}: class {cls.__qualname__} is already "
                f"registered as {cls.name!r} (aliases {list(cls.aliases)})"
            )
            hint = "a class registers under one name; give its aliases there or subclass it"
            raise AdapterRegistrationError(msg, hint=hint)


_REGISTRY = _Registry()


def _ensure_loaded() -> _Registry:
    if not _REGISTRY.loaded:
        _REGISTRY.loaded = True
        for spec in BUILTIN_ADAPTERS:
            cls = _builtin(spec)
            _REGISTRY.add(cls, cls.name, cls.aliases, builtin=True, origin="built-in")
        _load_entry_points()
    return _REGISTRY


def _builtin(spec: str) -> type[BaseAdapter]:
    """The built-in adapter class `module:Class` (its module imported)."""
    module_name, class_name = spec.split(":")
    cls: type[BaseAdapter] = getattr(importlib.import_module(module_name), class_name)
    return cls


def multi_file_adapters() -> list[type[BaseAdapter]]:
    """The adapters that may read a run from more than one file, in detection order.

    Every plugin may. Until the registry is loaded, and with no plugin installed, only the
    built-ins of `MULTI_FILE_ADAPTERS` are imported: each command asks before it reads its
    inputs (which files are read with them), and importing every built-in cost ~20 ms of the
    start of a command that reads canonical JSON (which needs none of them).
    """
    registry = _REGISTRY
    if not registry.loaded and registry.multi_file is None:
        if entry_points(group=ENTRY_POINT_GROUP):
            _ensure_loaded()
        else:
            registry.multi_file = [
                _builtin(spec) for spec in BUILTIN_ADAPTERS if spec in MULTI_FILE_ADAPTERS
            ]
    if registry.loaded:
        return [*registry.builtins, *registry.plugins]
    return list(registry.multi_file or ())


def _load_entry_points() -> None:
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            cls = ep.load()
            if not (isinstance(cls, type) and issubclass(cls, BaseAdapter)):
                msg = f"{ep.value} is not a BaseAdapter subclass"
                raise TypeError(msg)  # noqa: TRY301 - reported below like any other failure
            if cls not in _REGISTRY.plugins:
                _REGISTRY.add(
                    cls,
                    ep.name,
                    tuple(cls.aliases),
                    builtin=False,
                    origin=f"entry point {ep.value}",
                )
        except Exception as exc:  # noqa: BLE001, PERF203 - a broken plugin is never fatal
            problem = f"adapter plugin {ep.name!r} ({ep.value}) skipped: {exc}"
            _REGISTRY.problems.append(problem)
            warnings.warn(problem, AdapterPluginWarning, stacklevel=2)


def register_adapter(name: str, aliases: tuple[str, ...] = ()) -> Callable[[A], A]:
    """Class decorator registering a third-party adapter under `name` (and `aliases`).

    Raises `AdapterRegistrationError` when the name or an alias is taken, built-ins included.
    A class already registered may be registered again only under the same name and aliases
    (a no-op); any other name or aliases raise, as a class has one name.
    """

    def decorate(cls: A) -> A:
        registry = _ensure_loaded()
        if cls in registry.plugins or cls in registry.builtins:
            registry.check_same(cls, name, tuple(aliases))
            return cls
        registry.add(cls, name, tuple(aliases), builtin=False, origin=f"{cls.__module__}")
        return cls

    return decorate


def get_adapter(name: str) -> type[BaseAdapter]:
    """The adapter registered under `name` or an alias; `UnknownAdapterError` lists the choices."""
    registry = _ensure_loaded()
    try:
        return registry.by_name[name]
    except KeyError:
        choices = ", ".join(a.name for a in (*registry.builtins, *registry.plugins))
        msg = f"unknown adapter {name!r}; available: {choices}"
        raise UnknownAdapterError(msg, hint="run `agentdiff adapters` to list them") from None


def detect_adapter(data: Any) -> type[BaseAdapter] | None:
    """The first adapter whose `detect` claims `data`: built-ins first, then plugins."""
    registry = _ensure_loaded()
    for cls in registry.builtins:
        if _safe_detect(cls, data, plugin=False):
            return cls
    for cls in registry.plugins:
        if _safe_detect(cls, data, plugin=True):
            return cls
    return None


def _safe_detect(cls: type[BaseAdapter], data: Any, *, plugin: bool) -> bool:
    try:
        return bool(cls.detect(data))
    except Exception as exc:  # noqa: BLE001 - detection must never crash loading
        if plugin:
            warnings.warn(
                f"adapter plugin {cls.name!r} detect() failed: {exc}",
                AdapterPluginWarning,
                stacklevel=3,
            )
        return False


def detection_order() -> list[str]:
    """Adapter names in the order auto-detection tries them."""
    registry = _ensure_loaded()
    return [a.name for a in (*registry.builtins, *registry.plugins)]


def available_adapters() -> list[AdapterInfo]:
    """Every registered adapter, built-ins first (in detection priority), then plugins."""
    registry = _ensure_loaded()
    return [
        AdapterInfo(
            name=a.name,
            aliases=a.aliases,
            builtin=a in registry.builtins,
            description=a.description or (a.__doc__ or "").strip().split("\n")[0],
            origin=registry.origins.get(a.name, ""),
        )
        for a in (*registry.builtins, *registry.plugins)
    ]


def plugin_problems() -> list[str]:
    """Why plugins were skipped, one line each."""
    return list(_ensure_loaded().problems)
