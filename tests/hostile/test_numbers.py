"""Numbers at their limits: a clean exit 2 naming the field, or a correct report; never a crash,
and the JSON report never fails on a big number."""

from __future__ import annotations

import orjson
import pytest

from agentdiff.models.trace import MAX_AMOUNT, MAX_COUNT

from .helpers import SPEC, cli, refused, spec, write

REFUSED = [
    ("tokens.total_tokens", 10**30),
    ("tokens.total_tokens", 2**64),
    ("tokens.prompt_tokens", MAX_COUNT + 1),
    ("tokens.estimated_cost_usd", 1e308),
    ("latency_ms", 1e308),
    ("latency_ms", MAX_AMOUNT * 2),
    ("latency_ms", -1),
    ("step_index", 2**64),
    ("step_index", 10**30),
]


def _set(document, dotted, value):
    target = document["steps"][1]
    *parents, last = dotted.split(".")
    for key in parents:
        target = target[key]
    target[last] = value
    return document


@pytest.mark.parametrize(("field", "value"), REFUSED, ids=[f"{f}={v}" for f, v in REFUSED])
def test_out_of_range_numbers_are_refused_naming_the_field(tmp_path, field, value):
    path = write(tmp_path / "n.json", _set(spec(), field, value))
    refused(cli("compare", SPEC, path, "--format", "json"), "n.json", f"steps[1].{field}")


ACCEPTED = [
    ("tokens.total_tokens", MAX_COUNT),
    ("tokens.prompt_tokens", 2**39),
    ("latency_ms", MAX_AMOUNT),
    ("tokens.estimated_cost_usd", 1e-300),
    ("step_index", 2**53),
    ("metadata", {"started_at": "9999-12-31T23:59:59.999999-14:00", "ended_at": "9999-12-31"}),
    ("metadata", {"started_at": "0001-01-01T00:00:00+14:00", "ended_at": "0001-01-01T00:00Z"}),
    ("metadata", {"started_at": 1e308, "ended_at": "1" * 40}),
    ("input_payload", {"big": 10**30, "huge": 1e308, "tiny": -1e-308, "exact": 2**64 - 1}),
]


@pytest.mark.parametrize(("field", "value"), ACCEPTED, ids=[f"{f}" for f, _ in ACCEPTED])
@pytest.mark.parametrize("fmt", ["json", "terminal", "markdown", "html", "junit"])
def test_numbers_at_the_limits_give_a_report(tmp_path, field, value, fmt):
    path = write(tmp_path / "n.json", _set(spec(), field, value))
    outcome = cli("compare", SPEC, path, "--format", fmt)
    assert outcome.code in (0, 1), outcome.stderr
    if fmt == "json":
        orjson.loads(outcome.stdout)


def test_sums_at_the_limit_stay_within_the_json_contract(tmp_path):
    document = spec()
    for step in document["steps"]:
        step["tokens"] = {"prompt_tokens": MAX_COUNT, "total_tokens": MAX_COUNT}
        step["latency_ms"] = MAX_AMOUNT
    document["steps"] += [
        {**document["steps"][1], "step_id": f"x{i}", "step_index": 2 + i} for i in range(50)
    ]
    document.pop("total_tokens")
    document.pop("total_latency_ms")
    path = write(tmp_path / "sum.json", document)
    outcome = cli("compare", SPEC, path, "--format", "json")
    assert outcome.code in (0, 1), outcome.stderr
    report = orjson.loads(outcome.stdout)
    # LLM steps only: the first is a tool call
    assert report["candidate"]["total_tokens"] == 51 * MAX_COUNT
    assert cli("inspect", path).code == 0


HUGE = "99999999999999999999"  # past 64 bits: orjson cannot write it in a JSON report


@pytest.mark.parametrize(
    ("args", "env", "words"),
    [
        (["--max-tool-repeats", HUGE], None, ["--max-tool-repeats", "max_tool_repeats"]),
        (["--max-changed-calls", HUGE], None, ["--max-changed-calls"]),
        ([], {"AGENTDIFF_MAX_NEW_ERRORS": HUGE}, ["AGENTDIFF_MAX_NEW_ERRORS"]),
    ],
)
def test_a_count_threshold_past_its_limit_is_refused(args, env, words):
    refused(cli("compare", SPEC, SPEC, "--format", "json", *args, env=env), *words)


def test_a_count_threshold_past_its_limit_in_config_files_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agentdiff.toml").write_text(f"[gate]\nmax_tool_repeats = {HUGE}\n")
    refused(cli("compare", SPEC, SPEC, "--format", "json"), "agentdiff.toml", "max_tool_repeats")
    (tmp_path / "agentdiff.toml").unlink()
    for side in ("base", "cand"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "a.json").write_bytes(SPEC.read_bytes())
    manifest = tmp_path / "agentdiff-suite.toml"
    manifest.write_text(
        '[suite]\nbaseline = "base"\ncandidate = "cand"\n'
        f'[[scenario]]\nmatch = "*"\ngate = {{max_tool_repeats = {HUGE}}}\n'
    )
    refused(cli("suite", "--manifest", manifest), "[[scenario]] #1 gate", "max_tool_repeats")


@pytest.mark.parametrize(
    ("flag", "value"), [("--seed", HUGE), ("--seed", "-1"), ("--bootstrap", "1000000000000")]
)
def test_statistics_draws_and_seeds_past_their_limits_are_refused(flag, value):
    pool = SPEC.parents[1] / "fixtures" / "runs_pool"
    outcome = cli("compare-runs", pool / "baseline", pool / "loop", "-f", "json", flag, value)
    refused(outcome, flag)


def test_trace_id_names_the_one_trace_of_a_single_trace_document(tmp_path):
    document = spec()
    refused(
        cli("inspect", SPEC, "--trace-id", "nothere"), "no trace 'nothere'", document["trace_id"]
    )
    assert cli("inspect", SPEC, "--trace-id", document["trace_id"]).code == 0
    # the same through the ordinary route (a document the fast path steps aside for)
    document["steps"][0]["input_payload"] = {"n": 2**64}
    path = write(tmp_path / "slow.json", document)
    refused(cli("inspect", path, "--trace-id", "nothere"), "slow.json", "no trace 'nothere'")
