"""Suite manifests: `agentdiff-suite.toml` (hand-written suites) and JSON Lines (generated ones).

TOML::

    [suite]
    name = "nightly"
    baseline = "runs/main"            # a folder, a glob or a URL; relative to this file
    candidate = "runs/pr-123"
    layout = "auto"                   # auto | files | runs (see agentdiff.suite.discover)
    # adapter = "langfuse"; scenario_key = "task_input"; allow_missing = true
    # baseline_label = "main"; candidate_label = "pr-123"

    [gate]                            # the keys of `compare`'s [gate] (and [compare])
    max_divergence = 0.4

    [stats]                           # N-vs-M statistics (see agentdiff.stats_options)
    min_cost_effect = 10

    [[scenario]]                      # per-scenario overrides, by glob; later tables win
    match = "refund/*"
    gate = { max_cost_increase = 40 }
    stats = { min_cost_effect = 25 }  # every [stats] key but the suite-wide fdr, inconclusive

JSON Lines: one run per line, `{"scenario": …, "side": "baseline"|"candidate", "path": …}`
with optional `run`, `trace_id`, `adapter`; paths relative to the manifest's folder.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from agentdiff.config import (
    SETTINGS,
    config_error,
    not_a_table,
    parse_setting,
    shown_value,
    toml_table,
)
from agentdiff.errors import ConfigError
from agentdiff.reading import read_input
from agentdiff.stats_options import StatsOptions
from agentdiff.suite.discover import LAYOUTS, Layout
from agentdiff.suite.runset import RunSet

__all__ = [
    "SUITE_WIDE_STATS",
    "ScenarioOverride",
    "SuiteManifest",
    "load_manifest",
    "parse_settings",
]

_SUITE_KEYS = (
    "name",
    "baseline",
    "candidate",
    "layout",
    "adapter",
    "scenario_key",
    "allow_missing",
    "baseline_label",
    "candidate_label",
)
_SECTIONS = ("suite", "gate", "compare", "stats", "scenario")
_SIDES = ("baseline", "candidate")
_BY_NAME = {s.name: s for s in SETTINGS}


SUITE_WIDE_STATS = ("fdr", "inconclusive")
"""`[stats]` keys that act on the whole suite, so a `[[scenario]]` table cannot set them."""


@dataclass(frozen=True)
class ScenarioOverride:
    """Settings for the scenarios whose key matches `match` (a glob)."""

    match: str
    settings: Mapping[str, Any]
    """`gate = {...}`: gate settings, parsed (setting name → value)."""
    stats: Mapping[str, Any] = field(default_factory=dict)
    """`stats = {...}`: `[stats]` settings, parsed; they apply to this scenario's statistics."""
    path: Path | None = None
    """The manifest it was written in (`None`: made in code)."""

    @property
    def source(self) -> str:
        """Where its settings came from, as reports name a setting's source.

        `<manifest> [[scenario]] match = "<glob>"` (without the manifest when made in code).
        """
        where = f"[[scenario]] match = {orjson.dumps(self.match).decode()}"
        return where if self.path is None else f"{self.path} {where}"


@dataclass(frozen=True)
class SuiteManifest:
    """A parsed manifest: both run sets, settings and per-scenario overrides."""

    path: Path
    name: str
    baseline: RunSet
    candidate: RunSet
    settings: Mapping[str, Any] = field(default_factory=dict)
    """`[gate]` and `[compare]` values, parsed (setting name → value)."""
    raw_settings: Mapping[str, Any] = field(default_factory=dict)
    """The same values as written (validated), for the flag > env > manifest precedence."""
    overrides: tuple[ScenarioOverride, ...] = ()
    allow_missing: bool | None = None
    stats: Mapping[str, Any] = field(default_factory=dict)
    """`[stats]` values as written (validated), between env and `agentdiff.toml`."""


def load_manifest(path: str | Path) -> SuiteManifest:
    """Parse a `.toml` or `.jsonl` manifest; a `ConfigError` names the file and the key."""
    path = Path(path)
    raw = read_input(path, "the manifest")
    if path.suffix in (".jsonl", ".ndjson"):
        try:
            return _jsonl(path, raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise ConfigError(f"cannot read the manifest: {exc}", source=path) from None
    table = toml_table(raw, path)
    return _toml(path, table)


def parse_settings(table: Any, where: str, sections: tuple[str, ...]) -> dict[str, Any]:
    """Gate/compare settings from a TOML table, each parsed by its declared kind."""
    if not isinstance(table, dict):
        raise ConfigError("expected a table of settings", source=where)
    parsed = {}
    for key, raw in table.items():
        setting = _BY_NAME.get(key)
        if setting is None or setting.section not in sections:
            valid = ", ".join(s.name for s in SETTINGS if s.section in sections)
            raise ConfigError(f"unknown setting {shown_value(key)}; valid: {valid}", source=where)
        parsed[key] = parse_setting(setting, raw, where)
    return parsed


def _toml(path: Path, table: dict[str, Any]) -> SuiteManifest:
    for section, body in table.items():
        if section not in _SECTIONS:
            valid = ", ".join(f"[{s}]" for s in _SECTIONS)
            raise ConfigError(f"unknown section [{section}]; expected {valid}", source=path)
        if section != "scenario" and not isinstance(body, dict):
            raise not_a_table(section, body, path)
    suite = table.get("suite", {})
    unknown = sorted(set(suite) - set(_SUITE_KEYS))
    if unknown:
        msg = f"unknown key {unknown[0]!r} in [suite]; valid: {', '.join(_SUITE_KEYS)}"
        raise ConfigError(msg, source=path)
    layout = _text(suite, "layout", path) or "auto"
    if layout not in LAYOUTS:
        raise ConfigError(f"[suite] layout must be one of {', '.join(LAYOUTS)}", source=path)
    for side in _SIDES:
        if not _text(suite, side, path):
            msg = f"[suite] needs `{side}` (a folder, glob or URL of runs)"
            raise ConfigError(msg, source=path)
    sides = _sides(path, suite, layout)
    settings = {
        **parse_settings(table.get("gate", {}), f"{path} [gate]", ("gate",)),
        **parse_settings(table.get("compare", {}), f"{path} [compare]", ("compare",)),
    }
    raw = {**table.get("gate", {}), **table.get("compare", {})}
    parse_settings(table.get("stats", {}), f"{path} [stats]", ("stats",))
    allow = suite.get("allow_missing")
    if allow is not None and not isinstance(allow, bool):
        raise ConfigError("[suite] allow_missing must be true or false", source=path)
    return SuiteManifest(
        path=path,
        name=_text(suite, "name", path) or path.stem,
        baseline=sides[0],
        candidate=sides[1],
        settings=settings,
        raw_settings=raw,
        overrides=_overrides(path, table.get("scenario", [])),
        allow_missing=allow,
        stats=dict(table.get("stats", {})),
    )


def _text(table: Mapping[str, Any], key: str, path: Path) -> str | None:
    value = table.get(key)
    if value is not None and not isinstance(value, str):
        msg = f"[suite] {key} must be a string, got {shown_value(value)}"
        raise ConfigError(msg, source=path)
    return value


def _sides(path: Path, suite: Mapping[str, Any], layout: Layout) -> tuple[RunSet, RunSet]:
    roots = []
    for side in _SIDES:
        root = str(suite[side])
        if "://" not in root and not Path(root).is_absolute():
            root = str(path.parent / root)
        roots.append(root)
    return RunSet.from_dirs(
        roots[0],
        roots[1],
        labels=(_text(suite, "baseline_label", path), _text(suite, "candidate_label", path)),
        layout=layout,
        adapter=_text(suite, "adapter", path),
        scenario_key=_text(suite, "scenario_key", path),
    )


def _overrides(path: Path, tables: Any) -> tuple[ScenarioOverride, ...]:
    if not isinstance(tables, list):
        raise ConfigError("[[scenario]] must be an array of tables", source=path)
    out = []
    for number, table in enumerate(tables, start=1):
        where = f"{path} [[scenario]] #{number}"
        if not isinstance(table, dict) or not isinstance(table.get("match"), str):
            raise ConfigError("needs `match` (a glob over scenario keys)", source=where)
        extra = sorted(set(table) - {"match", "gate", "stats"})
        if extra:
            msg = f"unknown key {extra[0]!r}; valid: match, gate, stats"
            raise ConfigError(msg, source=where)
        settings = parse_settings(table.get("gate", {}), f"{where} gate", ("gate",))
        stats = parse_settings(table.get("stats", {}), f"{where} stats", ("stats",))
        _check_scenario_stats(stats, f"{where} stats")
        out.append(ScenarioOverride(table["match"], settings, stats=stats, path=path))
    return tuple(out)


def _check_scenario_stats(stats: Mapping[str, Any], where: str) -> None:
    """A scenario's `stats = {...}`: no suite-wide key, every value in its range."""
    wide = sorted(set(stats) & set(SUITE_WIDE_STATS))
    if wide:
        msg = f"{wide[0]} applies to the whole suite: set it in [stats], not per scenario"
        raise ConfigError(msg, source=where)
    try:
        StatsOptions.model_validate(stats)
    except ValidationError as exc:
        raise config_error(exc, dict.fromkeys(stats, where)) from None


def _jsonl(path: Path, text: str) -> SuiteManifest:
    records: dict[str, list[dict[str, Any]]] = {side: [] for side in _SIDES}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise ConfigError(f"invalid JSON: {exc}", source=where) from None
        side = record.get("side") if isinstance(record, dict) else None
        if side not in _SIDES:
            msg = f"`side` must be 'baseline' or 'candidate', got {shown_value(side)}"
            raise ConfigError(msg, source=where)
        records[side].append({k: v for k, v in record.items() if k != "side"})
    sets = [
        RunSet.from_records(
            records[side],
            label=side,
            root=str(path.parent),
            provenance=f"manifest {path.name} [{side}]",
        )
        for side in _SIDES
    ]
    return SuiteManifest(path=path, name=path.stem, baseline=sets[0], candidate=sets[1])
