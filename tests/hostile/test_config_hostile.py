"""Config files: every wrong shape, deep or huge document is exit 2 naming the file; nothing is
silently ignored."""

from __future__ import annotations

import os
import sys

import pytest

from agentdiff.config import MAX_CONFIG_SIZE

from .helpers import SPEC, cli, refused

PYPROJECT = [
    ('tool = "x"\n', "[tool] must be a table"),
    ("tool = [1, 2]\n", "[tool] must be a table"),
    ("[[tool.agentdiff]]\nx = 1\n", "array of tables ([[tool.agentdiff]])"),
    ('[tool]\nagentdiff = "x"\n', "[tool.agentdiff] must be a table, got 'x'"),
    ("[tool.agentdiff]\ngate = 5\n", "[tool.agentdiff.gate] must be a table"),
    ("[tool.agentdiff.gate]\nmax_divergence = nan\n", "max_divergence must be a number"),
    ("[tool.agentdiff.gate]\nmax_cost_increase = inf\n", "max_cost_increase must be"),
    ("[tool.agentdiff.gate]\nmax_divergence = " + "9" * 400 + "\n", "max_divergence must be"),
    ("[tool.agentdiff.gate]\nmax_divergence = 0.3\n[tool.agentdiff.reports]\n", "unknown section"),
    ("x = " + "[" * 5000 + "]" * 5000 + "\n", "nested deeper than 200 levels"),
    ("x = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n", "nested deeper than 200 levels"),
    ("[tool.agentdiff\n", "not valid TOML"),
]


pytestmark = pytest.mark.usefixtures("no_settings_env")
"""No `AGENTDIFF_*` setting from the environment, and `tmp_path` the working folder."""


@pytest.mark.parametrize(("text", "words"), PYPROJECT, ids=range(len(PYPROJECT)))
def test_bad_pyproject_is_refused_naming_the_file(tmp_path, text, words):
    (tmp_path / "pyproject.toml").write_text(text)
    refused(cli("compare", SPEC, SPEC), "pyproject.toml", words)


@pytest.mark.parametrize("levels", [200, 5000])
def test_deep_toml_is_refused_whatever_the_recursion_limit(tmp_path, levels):
    """A host that raised the recursion limit (mypy's API sets 2**14) parses a 5,000-deep
    document; it is refused all the same, as past 200 levels it always is."""
    (tmp_path / "pyproject.toml").write_text("x = " + "[" * levels + "]" * levels + "\n")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(2**14)
    try:
        outcome = cli("compare", SPEC, SPEC)
    finally:
        sys.setrecursionlimit(limit)
    refused(outcome, "pyproject.toml", "nested deeper than 200 levels")


def test_toml_of_200_levels_is_read(tmp_path):
    """200 levels of nesting (the document's own table counted) is within the limit."""
    (tmp_path / "pyproject.toml").write_text("x = " + "[" * 199 + "]" * 199 + "\n")
    assert cli("compare", SPEC, SPEC).code == 0


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("gate = 1\n", "[gate] must be a table"),
        ("[gate]\nmax_divergence = '0.3'\n", "max_divergence must be a number"),
        ("[gate]\nmax_divergence = -inf\n", "max_divergence must be"),
        ("[gates]\n", "unknown section [gates]"),
        ("[gate]\n" + "a" * 100_000 + " = 1\n", "unknown setting"),
        ("\x1b[31m = 1", "not valid TOML"),
        ("# " + "x" * MAX_CONFIG_SIZE, "larger than"),
    ],
)
def test_bad_agentdiff_toml_is_refused_naming_the_file(tmp_path, text, words):
    (tmp_path / "agentdiff.toml").write_text(text)
    outcome = cli("compare", SPEC, SPEC)
    refused(outcome, "agentdiff.toml", words)
    assert len(outcome.stderr) < 2000
    assert "\x1b" not in outcome.stderr


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e999"])
def test_non_finite_numbers_from_flags_and_env_are_refused(value):
    refused(cli("compare", SPEC, SPEC, "--max-divergence", value), "--max-divergence")
    env = {"AGENTDIFF_MAX_COST_INCREASE": value}
    refused(cli("compare", SPEC, SPEC, env=env), "AGENTDIFF_MAX_COST_INCREASE")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('suite = "x"\n', "[suite] must be a table, got 'x'"),
        ("suite = 3\n", "[suite] must be a table, got 3"),
        ("[[suite]]\nbaseline = 'a'\n", "[suite] must be a table, got an array of tables"),
        ("gate = 3\n[suite]\nbaseline = 'a'\ncandidate = 'b'\n", "[gate] must be a table"),
        ("stats = 'x'\n[suite]\nbaseline = 'a'\ncandidate = 'b'\n", "[stats] must be a table"),
        ("compare = [1]\n[suite]\nbaseline = 'a'\ncandidate = 'b'\n", "[compare] must be"),
        ("scenario = 'x'\n[suite]\nbaseline = '.'\ncandidate = '.'\n", "array of tables"),
    ],
)
def test_a_suite_manifest_section_of_the_wrong_type_is_named(tmp_path, text, words):
    manifest = tmp_path / "suite.toml"
    manifest.write_text(text)
    outcome = cli("suite", "--manifest", manifest)
    refused(outcome, "suite.toml", words)
    assert "unknown key" not in outcome.stderr


@pytest.mark.parametrize("name", ["agentdiff.toml", "pyproject.toml"])
@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda p: p.symlink_to(p.parent / "gone.toml"), "is a broken symlink"),
        (lambda p: p.mkdir(), "is a directory"),
        (os.mkfifo, "is not a regular file"),
    ],
    ids=["broken-symlink", "directory", "fifo"],
)
def test_a_config_name_held_by_no_file_is_refused_not_skipped(
    tmp_path, monkeypatch, name, make, words
):
    """Skipping it would silently apply the parent folder's settings instead."""
    (tmp_path / "agentdiff.toml").write_text("[gate]\nmax_divergence = 0\n")
    project = tmp_path / "project"
    project.mkdir()
    make(project / name)
    monkeypatch.chdir(project)
    refused(cli("compare", SPEC, SPEC), name, words)
