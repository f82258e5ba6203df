"""Configuration: precedence flag > env > file > default, discovery, and typo errors."""

from __future__ import annotations

import pytest

from agentdiff.config import SETTINGS, find_config, load_options
from agentdiff.diff.options import CompareOptions
from agentdiff.errors import ConfigError
from agentdiff.gate import GateThresholds


@pytest.fixture
def project(tmp_path, monkeypatch):
    for setting in SETTINGS:
        monkeypatch.delenv(setting.env, raising=False)
    inner = tmp_path / "repo" / "pkg" / "sub"
    inner.mkdir(parents=True)
    return tmp_path / "repo", inner


def test_defaults_are_the_models_own(project):
    _, inner = project
    resolved = load_options(start=inner, env={})
    assert resolved.options == CompareOptions()
    assert resolved.options.gate == GateThresholds()
    assert resolved.file is None


def test_precedence_flag_env_file_default(project):
    root, inner = project
    (root / "agentdiff.toml").write_text(
        "[gate]\nmax_divergence = 0.1\nmax_cost_increase = 10\nmax_token_increase = 5\n"
        "[compare]\nignore = ['**.id']\ndetect_loops = false\n"
    )
    env = {"AGENTDIFF_MAX_COST_INCREASE": "20", "AGENTDIFF_MAX_TOKEN_INCREASE": "30"}
    resolved = load_options({"max_token_increase": "40", "allow_loops": True}, env=env, start=inner)
    gate = resolved.options.gate
    assert gate.max_divergence == 0.1  # file
    assert gate.max_cost_increase == 20  # env beats file
    assert gate.max_token_increase == 40  # flag beats env
    assert gate.allow_loops is True  # flag
    assert gate.max_latency_increase == 50  # default
    assert resolved.options.ignore == ("**.id",)
    assert resolved.options.detect_loops is False
    assert resolved.file == root / "agentdiff.toml"
    assert resolved.sources["max_token_increase"] == "flag --max-token-increase"  # noqa: S105
    assert resolved.sources["max_cost_increase"] == "env AGENTDIFF_MAX_COST_INCREASE"


def test_off_switches_a_rule_off(project):
    _, inner = project
    (inner / "agentdiff.toml").write_text('[gate]\nmax_divergence = "off"\n')
    resolved = load_options(
        {"max_cost_increase": "off"}, env={"AGENTDIFF_MAX_NEW_ERRORS": "2"}, start=inner
    )
    assert resolved.options.gate.max_divergence is None
    assert resolved.options.gate.max_cost_increase is None
    assert resolved.options.gate.max_new_errors == 2


def test_agentdiff_toml_beats_pyproject_in_one_directory(project):
    root, inner = project
    (root / "agentdiff.toml").write_text("[gate]\nmax_divergence = 0.2\n")
    (root / "pyproject.toml").write_text("[tool.agentdiff.gate]\nmax_divergence = 0.3\n")
    assert load_options(start=inner, env={}).options.gate.max_divergence == 0.2


def test_nearest_directory_wins(project):
    root, inner = project
    (root / "agentdiff.toml").write_text("[gate]\nmax_divergence = 0.2\n")
    (inner.parent / "pyproject.toml").write_text("[tool.agentdiff.gate]\nmax_divergence = 0.3\n")
    found = find_config(inner)
    assert found is not None
    assert found[0] == inner.parent / "pyproject.toml"
    assert load_options(start=inner, env={}).options.gate.max_divergence == 0.3


def test_pyproject_without_our_table_is_skipped(project):
    root, inner = project
    (root / "agentdiff.toml").write_text("[gate]\nmax_divergence = 0.2\n")
    (inner / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert load_options(start=inner, env={}).options.gate.max_divergence == 0.2


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (
            "[gate]\nmax_divergnce = 0.3\n",
            "unknown setting 'max_divergnce'; did you mean 'max_divergence'?",
        ),
        ("[gate]\ndetect_loops = false\n", "unknown setting 'detect_loops'"),
        ("[gates]\nmax_divergence = 0.3\n", "unknown section [gates]"),
        (
            '[gate]\nmax_divergence = "0.3"\n',
            "max_divergence must be a number from 0 to 1, or 'off', got '0.3'",
        ),
        ("[gate]\nallow_loops = 1\n", "allow_loops must be true or false, got 1"),
        ("[gate]\nmax_new_errors = 1.5\n", "max_new_errors must be a whole number"),
        ("[compare]\nignore = [1]\n", "ignore must be a list of path globs"),
        ("[gate]\nmax_divergence = 2\n", "max_divergence must be a number from 0 to 1, or 'off'"),
        ("[gate\n", "not valid TOML"),
    ],
)
def test_bad_file_names_the_key_and_file(project, text, needle):
    _, inner = project
    path = inner / "agentdiff.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_options(start=inner, env={})
    assert needle in str(caught.value)
    assert str(path) in str(caught.value)


GATE_RANGES = [
    ("max_divergence", "1.5", 1.5, "a number from 0 to 1, or 'off'"),
    ("max_cost_increase", "-1", -1, "a number of 0 or more, or 'off'"),
    ("max_new_errors", "-1", -1, "a whole number from 0 to 1,000,000,000,000, or 'off'"),
    ("max_tool_repeats", "0", 0, "a whole number from 1 to 1,000,000,000,000, or 'off'"),
]


@pytest.mark.parametrize(("name", "text", "value", "allowed"), GATE_RANGES)
def test_gate_range_errors_say_the_range_the_value_and_where(project, name, text, value, allowed):
    """Out of range reads as [stats] does, from every source: one line, not pydantic's words
    (it said "max_divergence: Input should be less than or equal to 1 (got 1.5)")."""
    _, inner = project
    flag, env = f"--{name.replace('_', '-')}", f"AGENTDIFF_{name.upper()}"
    said = f"{name} must be {allowed}, got"
    cases = [
        ({name: text}, {}, False, f"flag {flag}: {said} {text!r}"),
        ({name: value}, {}, True, f"argument {name}: {said} {value!r}"),
        ({}, {env: text}, False, f"env {env}: {said} {text!r}"),
    ]
    for overrides, environ, keywords, message in cases:
        with pytest.raises(ConfigError) as caught:
            load_options(overrides, env=environ, start=inner, keywords=keywords)
        assert str(caught.value) == message
    path = inner / "agentdiff.toml"
    path.write_text(f"[gate]\n{name} = {value}\n")
    with pytest.raises(ConfigError) as caught:
        load_options(env={}, start=inner)
    assert str(caught.value) == f"{path} [gate]: {said} {value!r}"


def test_bad_env_value_names_the_variable(project):
    _, inner = project
    with pytest.raises(
        ConfigError, match="env AGENTDIFF_MAX_COST_INCREASE: max_cost_increase must be"
    ):
        load_options(env={"AGENTDIFF_MAX_COST_INCREASE": "lots"}, start=inner)


def test_unknown_override_is_an_error(project):
    _, inner = project
    with pytest.raises(ConfigError, match="unknown setting 'max_cost'"):
        load_options({"max_cost": 1}, env={}, start=inner)


def test_empty_env_value_counts_as_unset(project):
    _, inner = project
    assert (
        load_options(env={"AGENTDIFF_MAX_DIVERGENCE": ""}, start=inner).options.gate.max_divergence
        == 0.5
    )


def test_every_gate_threshold_and_compare_knob_is_a_setting():
    names = {s.name for s in SETTINGS}
    assert set(GateThresholds.model_fields) <= names
    assert set(CompareOptions.model_fields) - {"gate", "prices", "sources"} <= names
    plain = [s for s in SETTINGS if s.section != "stats"]
    assert all(s.env == "AGENTDIFF_" + s.name.upper() for s in plain)
    assert all(s.flag == "--" + s.name.replace("_", "-") for s in SETTINGS)


def test_every_stats_option_is_a_setting_with_a_stats_env_variable():
    from agentdiff.stats_options import StatsOptions

    stats = {s.name: s for s in SETTINGS if s.section == "stats"}
    assert set(stats) == set(StatsOptions.model_fields)
    assert all(s.env == "AGENTDIFF_STATS_" + s.name.upper() for s in stats.values())
