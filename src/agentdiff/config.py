"""Configuration: every setting declared once, resolved as flag > environment > file > default.

`SETTINGS` is the one table. Each row names a setting of `[gate]` (one per rule of
`agentdiff.gate.RULES`: the `GateThresholds` fields),
`[compare]` (the `CompareOptions` knobs), `[report]` or `[stats]` (the `StatsOptions` of N-vs-M
runs); from it come the CLI flag (`--max-divergence`), the environment variable
(`AGENTDIFF_MAX_DIVERGENCE`; `AGENTDIFF_STATS_<KEY>` for `[stats]`) and the file key
(`max_divergence` under `[gate]`). Defaults are the models' own, so they are declared nowhere
else. `[stats]` settings also take a suite manifest's values, between the environment and the
file (`load_stats`). `[baseline]` holds `stale_after_days` (off by default), read by `compare`.

The file is the nearest `agentdiff.toml` from the working directory upward, or the
`[tool.agentdiff]` table of a `pyproject.toml`; in one directory `agentdiff.toml` wins. A
misspelt key or a wrong type is a `ConfigError` naming the key and where it came from. A number
setting set to `"off"` (or `None` from Python) switches its rule off.
"""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from agentdiff.config_kinds import (
    FLAG,
    GLOBS,
    NAMES,
    NUMBER,
    PATTERNS,
    Kind,
    choice,
    model_bounded,
)
from agentdiff.diff.options import CompareOptions
from agentdiff.errors import ConfigError
from agentdiff.gate import RULES, GateThresholds, Rule
from agentdiff.limits import MAX_DEPTH, deepest_path
from agentdiff.redact import redacted
from agentdiff.stats_options import StatsOptions

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

__all__ = [
    "COMPARE_SETTINGS",
    "CONFIG_FILE",
    "SETTINGS",
    "ResolvedConfig",
    "ResolvedStats",
    "Setting",
    "config_error",
    "find_config",
    "load_options",
    "load_stats",
    "not_a_table",
    "parse_setting",
    "shown_value",
    "toml_table",
]

CONFIG_FILE = "agentdiff.toml"
MAX_CONFIG_SIZE = 1024 * 1024
"""A config file larger than this (1 MiB) is refused, not parsed."""
ENV_PREFIX = "AGENTDIFF_"

Section = Literal["gate", "compare", "report", "stats", "baseline"]


@dataclass(frozen=True)
class Setting:
    """One configurable value; its flag, env variable and file key all derive from `name`."""

    name: str
    section: Section
    kind: Kind
    help: str

    @property
    def flag(self) -> str:
        """The CLI flag, e.g. `--max-divergence`."""
        return "--" + self.name.replace("_", "-")

    @property
    def env(self) -> str:
        """The environment variable, e.g. `AGENTDIFF_MAX_DIVERGENCE`, `AGENTDIFF_STATS_ALPHA`."""
        infix = "STATS_" if self.section == "stats" else ""
        return ENV_PREFIX + infix + self.name.upper()


def _gate_setting(rule: Rule) -> Setting:
    """A `[gate]` setting: a flag, or a number of `GateThresholds`' type and range, or 'off'."""
    if rule.kind == "flag":
        return Setting(rule.setting, "gate", FLAG, rule.help)
    kind = model_bounded(GateThresholds, rule.setting, off=True)
    return Setting(rule.setting, "gate", kind, rule.help)


def _stats_number(name: str, help_text: str) -> Setting:
    """A `[stats]` number: its type and range are `StatsOptions`' own, and it is never off."""
    return Setting(name, "stats", model_bounded(StatsOptions, name), help_text)


SETTINGS: tuple[Setting, ...] = (
    # the gate's settings come from its rule table, one per rule
    *(_gate_setting(rule) for rule in RULES),
    Setting("detect_loops", "compare", FLAG, "Scan the candidate for repeated tool calls."),
    Setting(
        "strict_tool_signatures", "compare", FLAG, "Match steps only with the same input keys."
    ),
    Setting("compare_content", "compare", FLAG, "Count LLM text/tool output changes."),
    Setting(
        "fold_framework_steps",
        "compare",
        FLAG,
        "Fold LangChain plumbing steps (RunnableSequence, prompts, routing lambdas) into parents.",
    ),
    Setting("ignore", "compare", GLOBS, "Dotted-path glob never compared (repeatable)."),
    Setting(
        "redact",
        "report",
        FLAG,
        "Redact secrets (default: on in terminal/markdown/html/junit, off in json).",
    ),
    Setting("redact_patterns", "report", PATTERNS, "Also redact matches of REGEX (repeatable)."),
    Setting("redact_keys", "report", NAMES, "Also redact values under key NAME (repeatable)."),
    _stats_number("alpha", "Level of a scenario's tests after Holm (N-vs-M runs)."),
    _stats_number("fdr", "Benjamini-Hochberg false discovery rate across scenarios."),
    _stats_number("min_cost_effect", "Cost regresses only above this median % rise."),
    _stats_number("min_token_effect", "Tokens regress only above this median % rise."),
    _stats_number("min_latency_effect", "Latency: the same, in %."),
    _stats_number("min_step_effect", "Steps, tool calls, model turns: the same, in %."),
    Setting("loops", "stats", choice("invariant", "rate"), "A new loop fails, or Fisher's test."),
    Setting("route_shift", "stats", FLAG, "Count a significant route shift as a regression."),
    _stats_number("route_threshold", "Route distance that joins a route cluster."),
    Setting("inconclusive", "stats", choice("pass", "fail"), "Whether inconclusive fails."),
    _stats_number("seed", "Seed of every permutation and bootstrap draw."),
    _stats_number("permutations", "Random splits of the route-shift test."),
    _stats_number("bootstrap", "Bootstrap resamples of the effect intervals."),
    Setting("stale_after_days", "baseline", NUMBER, "Warn when the baseline is older (days)."),
)
COMPARE_SETTINGS = tuple(s for s in SETTINGS if s.section in ("gate", "compare"))
"""The settings that shape a comparison (`[report]` ones only shape how it is shown)."""
_BY_NAME = {s.name: s for s in SETTINGS}
_SECTIONS: tuple[Section, ...] = ("gate", "compare", "report", "stats", "baseline")


@dataclass(frozen=True)
class ResolvedConfig:
    """The options to compare with, the file they came from and where each value was set."""

    options: CompareOptions
    file: Path | None = None
    sources: Mapping[str, str] = field(default_factory=dict)
    """Setting name → `flag --x`, `env AGENTDIFF_X`, `<file> [section]` (defaults absent)."""
    report: Mapping[str, Any] = field(default_factory=dict)
    """The `[report]` settings that were set (`redact`, `redact_patterns`, `redact_keys`)."""
    stale_after_days: float | None = None
    """`compare` warns when the baseline is older than this many days (`None`: never)."""

    def redaction(self) -> dict[str, Any]:
        """The `[report]` redaction settings as `RenderOptions` fields (unset: the default)."""
        redact = self.report.get("redact")
        return {
            "redact": None if redact is None else bool(redact),
            "redact_patterns": tuple(self.report.get("redact_patterns", ())),
            "redact_keys": tuple(self.report.get("redact_keys", ())),
        }


@dataclass(frozen=True)
class ResolvedStats:
    """The `[stats]` settings, the config file they came from and where each value was set."""

    options: StatsOptions
    file: Path | None = None
    sources: Mapping[str, str] = field(default_factory=dict)


def find_config(start: Path | None = None) -> tuple[Path, dict[str, Any]] | None:
    """The nearest config file from `start` upward and its AgentDiff table, if any."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        own = folder / CONFIG_FILE
        if _config_at(own):
            return own, _read_toml(own)
        pyproject = folder / "pyproject.toml"
        if _config_at(pyproject):
            table = _tool_table(pyproject, _read_toml(pyproject))
            if table is not None:
                return pyproject, table
    return None


def _config_at(path: Path) -> bool:
    """True when `path` is a file to read; False when nothing is there.

    Anything else holding the name (a directory, a FIFO, a broken symlink) is an error: skipping
    it would silently apply another folder's settings, or none.
    """
    if path.is_file():
        return True
    if not path.is_symlink() and not path.exists():
        return False
    what = "a broken symlink" if not path.exists() else "a directory" if path.is_dir() else None
    msg = f"is {what or 'not a regular file'}, not a config file"
    raise ConfigError(msg, hint="make it a TOML file or remove it", source=path)


def _tool_table(path: Path, document: dict[str, Any]) -> dict[str, Any] | None:
    """`[tool.agentdiff]` of a pyproject document; a table of any other shape is an error."""
    tool = document.get("tool")
    if tool is None:
        return None
    if not isinstance(tool, dict):
        raise ConfigError(f"[tool] must be a table, got {type(tool).__name__}", source=path)
    table = tool.get("agentdiff")
    if table is None or isinstance(table, dict):
        return table
    raise not_a_table("tool.agentdiff", table, path)


def not_a_table(name: str, value: Any, source: Path | str) -> ConfigError:
    """The error for a TOML `name` that should be a table (`[name]`) but holds `value`."""
    shape = f"an array of tables ([[{name}]])" if isinstance(value, list) else repr(value)
    return ConfigError(f"[{name}] must be a table, got {_clipped(shape)}", source=source)


def _clipped(text: str, limit: int = 60) -> str:
    text = redacted(text)  # before the cut, which would hide a key from the patterns
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shown_value(value: object) -> str:
    """A value as a one-line error shows it: its `repr`, secrets redacted, cut to 60 characters."""
    return _clipped(repr(value))


def load_options(
    overrides: Mapping[str, object] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    start: Path | None = None,
    keywords: bool = False,
    only: Collection[str] | None = None,
) -> ResolvedConfig:
    """Resolve every setting: `overrides` (flags, keyword arguments) > `env` > file > default.

    `None` in `overrides` means "not given" (use `"off"` to switch a rule off). Text values are
    parsed as the environment's are; other values must already have the setting's type.
    `keywords=True`: the overrides are a function's keyword arguments, and their source reads
    `argument max_divergence` (else `flag --max-divergence`). `only`: the names of the settings
    to resolve (`routes`); every other is left at its default, its value in the environment or
    the file neither parsed nor checked (the file's sections and keys still are).
    """
    values: dict[str, object] = {}
    sources: dict[str, str] = {}
    found = find_config(start)
    if found is not None:
        _merge_file(*found, values, sources, only)
    _merge_env(os.environ if env is None else env, values, sources, only)
    _merge_overrides(overrides or {}, values, sources, keywords=keywords, only=only)
    options = _build(values, sources)
    report = {k: v for k, v in values.items() if _BY_NAME[k].section == "report"}
    return ResolvedConfig(
        options=options,
        file=found[0] if found else None,
        sources=sources,
        report=report,
        stale_after_days=_stale_after_days(values, sources),
    )


def _stale_after_days(values: dict[str, object], sources: dict[str, str]) -> float | None:
    stale = values.get("stale_after_days")
    if not isinstance(stale, int | float):
        return None
    if stale < 0:
        where = sources.get("stale_after_days", "defaults")
        raise ConfigError(f"stale_after_days must be 0 or more, got {stale:g}", source=where)
    return float(stale)


def load_stats(
    overrides: Mapping[str, object] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    start: Path | None = None,
    manifest: Mapping[str, object] | None = None,
    manifest_source: str = "suite manifest [stats]",
    flag_names: Mapping[str, str] | None = None,
    only: Collection[str] | None = None,
) -> ResolvedStats:
    """Resolve the `[stats]` settings: flag > env > suite manifest > file > default.

    `manifest` holds a suite manifest's `[stats]` values (TOML-typed), `manifest_source` says
    where they came from in messages and `sources`. `flag_names` maps a setting to the flag a
    command took it by when that is not the setting's own (`routes --threshold`). `only`: the
    settings to resolve, as `load_options` takes it.
    """
    values: dict[str, object] = {}
    sources: dict[str, str] = {}
    found = find_config(start)
    if found is not None:
        _merge_file(*found, values, sources, only)
    for key, raw in (manifest or {}).items():
        setting = _lookup(key, "stats", manifest_source)
        if _chosen(setting, only):
            values[key] = parse_setting(setting, raw, manifest_source, text=False)
            sources[key] = manifest_source
    _merge_env(os.environ if env is None else env, values, sources, only)
    _merge_overrides(
        overrides or {}, values, sources, keywords=False, flag_names=flag_names, only=only
    )
    picked = {k: v for k, v in values.items() if _BY_NAME[k].section == "stats"}
    try:
        options = StatsOptions.model_validate(picked)
    except ValidationError as exc:
        raise config_error(exc, sources) from None
    kept = {k: v for k, v in sources.items() if k in picked}
    return ResolvedStats(options=options, file=found[0] if found else None, sources=kept)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_CONFIG_SIZE + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read the config file: {exc}", source=path) from None
    if len(raw) > MAX_CONFIG_SIZE:
        msg = f"the config file is larger than {MAX_CONFIG_SIZE:,} bytes"
        raise ConfigError(msg, source=path)
    return toml_table(raw, path)


_TOO_DEEP = f"nested deeper than {MAX_DEPTH} levels"


def toml_table(raw: bytes, path: Path) -> dict[str, Any]:
    """The TOML document in `raw` (read from `path`), or a `ConfigError` naming the file.

    A document nested deeper than `MAX_DEPTH` is refused whatever the process's recursion
    limit: the parser (recursive) runs out of stack at the default limit, but a host that raised
    it (mypy's API sets 2**14) would parse it; both say the same.
    """
    try:
        table = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"cannot read {path.name}: {exc}", source=path) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML: {exc}", source=path) from None
    except RecursionError:
        raise ConfigError(_TOO_DEEP, source=path) from None
    if deepest_path(table, MAX_DEPTH) is not None:  # the document's own table is a level
        raise ConfigError(_TOO_DEEP, source=path)
    return table


def _chosen(setting: Setting, only: Collection[str] | None) -> bool:
    """Whether `setting` is resolved (`only`: the names to resolve; `None`: every one)."""
    return only is None or setting.name in only


def _merge_file(
    path: Path,
    table: dict[str, Any],
    values: dict[str, object],
    sources: dict[str, str],
    only: Collection[str] | None = None,
) -> None:
    prefix = "[tool.agentdiff." if path.name == "pyproject.toml" else "["
    for section, body in table.items():
        if section not in _SECTIONS:
            expected = ", ".join(f"{prefix}{s}]" for s in _SECTIONS)
            msg = f"unknown section {prefix}{_clipped(section)}]; expected {expected}"
            raise ConfigError(msg, source=path)
        if not isinstance(body, dict):
            raise not_a_table(f"{prefix[1:]}{section}", body, path)
        for key, raw in body.items():
            where = f"{path} {prefix}{section}]"
            setting = _lookup(key, section, where)
            if _chosen(setting, only):
                values[key] = parse_setting(setting, raw, where, text=False)
                sources[key] = where


def _merge_env(
    env: Mapping[str, str],
    values: dict[str, object],
    sources: dict[str, str],
    only: Collection[str] | None = None,
) -> None:
    for setting in SETTINGS:
        text = env.get(setting.env, "").strip()
        if text and _chosen(setting, only):
            where = f"env {setting.env}"
            values[setting.name] = parse_setting(setting, text, where, text=True)
            sources[setting.name] = where


def _merge_overrides(
    overrides: Mapping[str, object],
    values: dict[str, object],
    sources: dict[str, str],
    *,
    keywords: bool,
    flag_names: Mapping[str, str] | None = None,
    only: Collection[str] | None = None,
) -> None:
    for key, raw in overrides.items():
        if raw is None:
            continue
        setting = _lookup(key, None, "arguments")
        if not _chosen(setting, only):
            continue
        flag = (flag_names or {}).get(key, setting.flag)
        where = f"argument {setting.name}" if keywords else f"flag {flag}"
        values[key] = parse_setting(setting, raw, where, text=isinstance(raw, str))
        sources[key] = where


def _lookup(key: str, section: str | None, where: str) -> Setting:
    setting = _BY_NAME.get(key)
    if setting is not None and section in (None, setting.section):
        return setting
    names = [s.name for s in SETTINGS if section in (None, s.section)]
    close = difflib.get_close_matches(key, names, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    msg = f"unknown setting {shown_value(key)}; {hint}valid: {', '.join(names)}"
    raise ConfigError(msg, source=where)


def parse_setting(setting: Setting, raw: object, where: str, *, text: bool = False) -> object:
    """`raw` parsed by the setting's kind (`text`: as the environment spells it).

    A bad value is a one-line `ConfigError` naming `where` and showing the value shortened.
    """
    try:
        if text and isinstance(raw, str):
            return setting.kind.from_text(raw)
        return setting.kind.from_value(raw)
    except (TypeError, ValueError, OverflowError):
        msg = f"{setting.name} must be {setting.kind.expected}, got {shown_value(raw)}"
        raise ConfigError(msg, source=where) from None


def _build(values: dict[str, object], sources: dict[str, str]) -> CompareOptions:
    def pick(section: Section) -> dict[str, object]:
        return {k: v for k, v in values.items() if _BY_NAME[k].section == section}

    try:
        gate = GateThresholds.model_validate(pick("gate"))
        return CompareOptions.model_validate(
            {**pick("compare"), "gate": gate, "sources": dict(sources)}
        )
    except ValidationError as exc:
        raise config_error(exc, sources) from None


def config_error(exc: ValidationError, sources: Mapping[str, str]) -> ConfigError:
    """A settings model's first validation error, naming where the bad value was set."""
    error = exc.errors()[0]
    key = str(error["loc"][0]) if error["loc"] else "?"
    msg = f"{key}: {error['msg']} (got {shown_value(error.get('input'))})"
    return ConfigError(msg, source=sources.get(key, "defaults"))
