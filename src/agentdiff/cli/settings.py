"""CLI flags generated from `agentdiff.config.SETTINGS`, so each setting is declared once.

`@setting_flags` adds one option per setting to a typer command (`--max-divergence N|off`,
`--allow-loops/--no-allow-loops`, `--ignore GLOB`...) and hands the given ones to the command
as `flags`: a mapping of setting name → value, `None` when the flag was not given (the
environment, the config file or the default then decide; see `agentdiff.config.load_options`).
`@route_flags` gives `routes` only the settings its report depends on (`ROUTE_SETTINGS`), in its
own words where `compare`'s are false there.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Annotated, Any, TypeVar

import typer

from agentdiff.cli.errors import redact_messages
from agentdiff.config import SETTINGS, ResolvedConfig, Setting, load_options
from agentdiff.config_kinds import FLAG

__all__ = [
    "ROUTE_SETTINGS",
    "ROUTE_STATS",
    "compare_flags",
    "resolved_options",
    "route_flags",
    "route_names",
    "setting_flags",
    "stats_flags",
]

R = TypeVar("R")
_PANEL = "Gate and comparison settings (flag > AGENTDIFF_* env > agentdiff.toml > default)"
_STATS_PANEL = (
    "N-vs-M statistics (flag > AGENTDIFF_STATS_* env > suite manifest > agentdiff.toml [stats]"
    " > default)"
)
_ROUTE_PANEL = "Route and report settings (flag > AGENTDIFF_* env > agentdiff.toml > default)"
ROUTE_SETTINGS = ("detect_loops", "strict_tool_signatures", "ignore", "fold_framework_steps")
"""The comparison settings a `routes` report depends on (`scenario.pairs.PairComparer.profile`).

Each run's route (its steps' labels; with `strict_tool_signatures`, their input keys too), its
loops (`detect_loops`; tool calls told apart by their arguments, less the `ignore` paths) and,
with `fold_framework_steps`, the run it is read from (folded). The gate's limits and
`compare_content` change no route: `routes` does not take them. `[report]` settings shape the
output.
"""
_ROUTE_HELP = {
    "detect_loops": "Find repeated tool calls in each run: every route cluster counts its runs"
    " with loops.",
    "strict_tool_signatures": "Tell route steps apart by their input keys too: a tool called"
    " with other keys takes another route.",
    "ignore": "Dotted-path glob left out when telling repeated tool calls apart for loops"
    " (repeatable).",
}
"""`routes`' own help for the `ROUTE_SETTINGS` whose `compare` words are false there."""
ROUTE_STATS = ("route_threshold",)
"""The `[stats]` settings `routes` resolves (its `--threshold`)."""


def _annotation(setting: Setting, panel: str | None) -> Any:
    help_text = f"{setting.help} [env: {setting.env}]"
    panel = panel or (_STATS_PANEL if setting.section == "stats" else _PANEL)
    if setting.kind is FLAG:
        names = f"{setting.flag}/--no-{setting.flag[2:]}"
        return Annotated[bool | None, typer.Option(names, help=help_text, rich_help_panel=panel)]
    if setting.kind.many:
        option = typer.Option(
            setting.flag, metavar=setting.kind.metavar, help=help_text, rich_help_panel=panel
        )
        return Annotated[list[str] | None, option]
    option = typer.Option(
        setting.flag, metavar=setting.kind.metavar, help=help_text, rich_help_panel=panel
    )
    return Annotated[str | None, option]


def setting_flags(command: Callable[..., R]) -> Callable[..., R]:
    """Give `command` (which takes `flags=`) one CLI option per setting but `[stats]`."""
    return _with_flags(command, "flags", _in_sections("gate", "compare", "report"))


def compare_flags(command: Callable[..., R]) -> Callable[..., R]:
    """`setting_flags` plus `[baseline]` (`--stale-after-days`), for `compare`, which reads it."""
    return _with_flags(command, "flags", _in_sections("gate", "compare", "report", "baseline"))


def stats_flags(command: Callable[..., R]) -> Callable[..., R]:
    """Give `command` (which takes `stats=`) one CLI option per `[stats]` setting."""
    return _with_flags(command, "stats", _in_sections("stats"))


def route_flags(command: Callable[..., R]) -> Callable[..., R]:
    """Give `routes` (which takes `flags=`) the `ROUTE_SETTINGS` and `[report]` flags only.

    A gate flag is then a usage error; the config file's other sections are still read (one
    `agentdiff.toml` serves every command: an unknown section or key is an error) and their
    values neither parsed nor used (`resolved_options(flags, only=route_names())`), so no gate
    setting in the environment or the file can fail `routes`.
    """
    names = route_names()
    chosen = [
        dataclasses.replace(s, help=_ROUTE_HELP.get(s.name, s.help))
        for s in SETTINGS
        if s.name in names
    ]
    return _with_flags(command, "flags", chosen, _ROUTE_PANEL)


def route_names() -> tuple[str, ...]:
    """The settings `routes` takes and resolves: `ROUTE_SETTINGS` and `[report]`'s."""
    return tuple(s.name for s in SETTINGS if s.name in ROUTE_SETTINGS or s.section == "report")


def _in_sections(*sections: str) -> list[Setting]:
    """The settings of `sections`, in declaration order."""
    return [s for s in SETTINGS if s.section in sections]


def _with_flags(
    command: Callable[..., R], keyword: str, chosen: Sequence[Setting], panel: str | None = None
) -> Callable[..., R]:
    """`command` with one keyword-only option per `chosen` setting, handed over as `keyword`.

    `panel`: the help panel they are listed under (default: by section).
    """
    signature = inspect.signature(command, eval_str=True)
    kept = [p for p in signature.parameters.values() if p.name != keyword]
    added = [
        inspect.Parameter(
            s.name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=_annotation(s, panel)
        )
        for s in chosen
    ]

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> R:
        given = {s.name: kwargs.pop(s.name, None) for s in chosen}
        return command(*args, **{keyword: given}, **kwargs)

    run.__signature__ = signature.replace(parameters=[*kept, *added])  # type: ignore[attr-defined]
    return run


def resolved_options(
    flags: Mapping[str, object] | None = None, *, only: Collection[str] | None = None
) -> ResolvedConfig:
    """`load_options(flags, only=only)`; stderr from then on redacts its `redact_patterns`."""
    config = load_options(flags, only=only)
    redact_messages(tuple(config.report.get("redact_patterns", ())))
    return config
