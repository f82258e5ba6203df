"""Every captured shape loads from the CLI, auto-detected and forced, and compares cleanly."""

from __future__ import annotations

import orjson
import pytest
from typer.testing import CliRunner

from agentdiff.cli.app import app
from tests.realdata import real_pairs

runner = CliRunner()
PAIRS = real_pairs("detour")


@pytest.mark.parametrize("pair", PAIRS, ids=[p.id for p in PAIRS])
def test_convert_detects_every_shape(pair):
    auto = runner.invoke(app, ["convert", str(pair.baseline)])
    assert auto.exit_code == 0, auto.stderr
    forced = runner.invoke(app, ["convert", str(pair.baseline), "--adapter", pair.adapter])
    assert forced.exit_code == 0, forced.stderr
    assert orjson.loads(auto.stdout) == orjson.loads(forced.stdout)
    assert orjson.loads(auto.stdout)["metadata"]["source_format"] == pair.adapter


@pytest.mark.parametrize("pair", real_pairs("identical"), ids=lambda p: p.id)
def test_compare_identical_runs_exits_0_with_zero_divergence(pair):
    result = runner.invoke(
        app, ["compare", str(pair.baseline), str(pair.candidate), "--format", "json"]
    )
    assert result.exit_code == 0, result.stderr
    report = orjson.loads(result.stdout)
    assert report["report_version"] == "2"
    assert report["divergence"] == 0.0
    assert report["first_divergence"] is None


@pytest.mark.parametrize("pair", real_pairs("loop"), ids=lambda p: p.id)
def test_compare_loop_exits_1(pair):
    result = runner.invoke(
        app, ["compare", str(pair.baseline), str(pair.candidate), "--format", "json"]
    )
    assert result.exit_code == 1
    assert orjson.loads(result.stdout)["loops"][0]["new"] is True
