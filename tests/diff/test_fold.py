"""`fold_framework_steps`: LangChain plumbing folded into its parent, on real captures."""

from __future__ import annotations

import json
import re

import orjson
from typer.testing import CliRunner

from agentdiff import compare
from agentdiff.cli.app import app
from agentdiff.diff.fold import fold_framework_steps, is_framework_step
from agentdiff.diff.options import CompareOptions
from agentdiff.models.trace import StepType
from tests.realdata import RealSource, tool_steps

LANGSMITH, OI, LANGFUSE = (
    RealSource("langsmith"),
    RealSource("openinference"),
    RealSource("langfuse"),
)
runner = CliRunner()


def test_plumbing_is_folded_and_everything_else_kept() -> None:
    for source, shape in ((LANGSMITH, "nested"), (OI, "spans")):
        trace = source.load(shape, "detour", "candidate")
        folded = fold_framework_steps(trace)
        names = {s.name for s in folded.steps}
        assert not names & {"RunnableSequence", "Prompt", "should_continue"}
        assert {"agent", "tools", "call_model"} <= names  # graph nodes stay
        assert [(s.name, s.input_payload) for s in tool_steps(folded)] == [
            (s.name, s.input_payload) for s in tool_steps(trace)
        ]
        index = {s.step_id: s.step_index for s in trace.steps}
        assert [s.step_index for s in folded.steps] == [index[s.step_id] for s in folded.steps]
        ids = {s.step_id for s in folded.steps}
        assert all(s.parent_id is None or s.parent_id in ids for s in folded.steps)
        dropped = len(trace.steps) - len(folded.steps)
        assert dropped == sum(map(is_framework_step, trace.steps)) == 12
        assert (folded.metadata or {})["folded_framework_steps"] == dropped


def test_other_sources_are_left_alone() -> None:
    trace = LANGFUSE.load("json", "detour", "candidate")
    assert fold_framework_steps(trace) is trace


def test_off_by_default_and_on_by_option_or_flag() -> None:
    base, cand = (LANGSMITH.load("nested", "detour", side) for side in ("baseline", "candidate"))
    plain = compare(base, cand)
    folded = compare(base, cand, options=CompareOptions(fold_framework_steps=True))
    assert plain.candidate.steps == len(cand.steps)
    assert folded.candidate.steps < plain.candidate.steps
    assert folded.candidate.tool_calls == plain.candidate.tool_calls
    assert folded.candidate.model_turns == plain.candidate.model_turns
    paths = [str(LANGSMITH.path("nested", "detour", side)) for side in ("baseline", "candidate")]
    result = runner.invoke(app, ["compare", *paths, "--fold-framework-steps", "-f", "json"])
    assert '"steps": 19' in result.stdout
    tree = runner.invoke(app, ["inspect", paths[1], "--fold-framework-steps"])
    assert "RunnableSequence" not in tree.stdout
    assert StepType.TOOL_CALL.value in tree.stdout


# The positions a folded report prints are places in the run as the user holds it (the file,
# and `agentdiff inspect` of it): a user reading the file must find "tools (ran #10)" at its
# tenth step, never at the tenth step of a trace without the plumbing only AgentDiff made.
_FOLDED_PARALLEL = ((LANGSMITH, "nested"), (LANGSMITH, "flat"), (OI, "spans"))


def _ran_order(path: str) -> list[str]:
    """The steps of the file's `inspect` tree (no folding), one `type name` per line in order."""
    tree = runner.invoke(app, ["inspect", path])
    assert tree.exit_code == 0, tree.output
    lines = tree.stdout.splitlines()[1:]
    return [" ".join(line.split("─ ", 1)[1].split()[:2]) for line in lines if "─ " in line]


def test_moved_positions_of_folded_runs_are_places_in_the_file() -> None:
    for source, shape in _FOLDED_PARALLEL:
        paths = [str(source.path(shape, "parallel", side)) for side in ("baseline", "candidate")]
        base, cand = (source.load(shape, "parallel", side) for side in ("baseline", "candidate"))
        plain = compare(base, cand)
        folded = compare(base, cand, options=CompareOptions(fold_framework_steps=True))
        assert folded.moved and len(folded.candidate_trace.steps) < len(cand.steps)  # type: ignore[union-attr]

        def places(report):  # type: ignore[no-untyped-def]
            out = {}
            for m in report.moved:
                entry = report.alignment[m.row - 1]
                out[entry.baseline.step_id, entry.candidate.step_id] = (
                    m.baseline_position,
                    m.candidate_position,
                )
            return out

        # the same steps moved, at the places the unfolded report (and the file) gives them
        assert places(folded) == places(plain) == {next(iter(places(plain))): (10, 8)}
        # what a user counts in `inspect` of each file: the node running web_search, the call
        # each run made in the other order
        ((b_at, c_at),) = places(folded).values()
        for path, at in ((paths[0], b_at), (paths[1], c_at)):
            ran = _ran_order(path)
            assert ran[at - 1] == "routing tools" and ran[at] == "tool_call web_search", (
                source,
                ran,
            )


def test_folded_reports_show_the_places_in_the_file() -> None:
    paths = [str(LANGSMITH.path("nested", "parallel", side)) for side in ("baseline", "candidate")]
    for fmt in ("terminal", "markdown", "json"):
        shown = runner.invoke(app, ["compare", *paths, "--fold-framework-steps", "-f", fmt])
        assert shown.exit_code == 0, shown.output
        out = shown.stdout.replace("#\u200b", "#")
        if fmt == "json":
            assert '"baseline_position": 10' in out and '"candidate_position": 8' in out
        else:
            assert "tools (ran #10)" in out and "tools (ran #8)" in out, out
            assert "ran #7" not in out and "ran #5" not in out


def test_folded_steps_keep_their_step_index() -> None:
    """The `step_index` a folded report or `inspect --fold-framework-steps` shows is the file's."""
    for source, shape in _FOLDED_PARALLEL:
        path = str(source.path(shape, "parallel", "baseline"))
        plain = runner.invoke(app, ["inspect", path, "-f", "json"])
        folded = runner.invoke(app, ["inspect", path, "--fold-framework-steps", "-f", "json"])
        index = {s["step_id"]: s["step_index"] for s in json.loads(plain.stdout)["steps"]}
        kept = json.loads(folded.stdout)["steps"]
        assert len(kept) < len(index)
        assert all(s["step_index"] == index[s["step_id"]] for s in kept), source
        base, cand = (source.load(shape, "parallel", side) for side in ("baseline", "candidate"))
        report = compare(base, cand, options=CompareOptions(fold_framework_steps=True))
        for entry in report.alignment:
            if entry.baseline is not None:
                assert entry.baseline.step_index == index[entry.baseline.step_id], source


# A folded report counts the steps it kept: every count of a side's steps it prints says how
# many framework steps were folded, so the file's count is the printed one plus that number.
_FOLDED_SCENARIOS = tuple(
    (source, shape, scenario)
    for source, shape in _FOLDED_PARALLEL
    for scenario in ("detour", "parallel")
)
_WIDE = {"COLUMNS": "240"}  # side lines unwrapped


def _in_file(path: str) -> int:
    """The steps of the file as `agentdiff inspect` (no folding) lists them."""
    shown = runner.invoke(app, ["inspect", path, "-f", "json"])
    assert shown.exit_code == 0, shown.output
    return len(json.loads(shown.stdout)["steps"])


def _compared(paths: list[str], fmt: str, *flags: str) -> str:
    shown = runner.invoke(app, ["compare", *paths, *flags, "-f", fmt], env=_WIDE)
    assert shown.exit_code in (0, 1), shown.output  # 1: the gate failed (tokens)
    return shown.stdout


def test_folded_reports_say_how_many_framework_steps_were_folded() -> None:
    for source, shape, scenario in _FOLDED_SCENARIOS:
        case = (source, shape, scenario)
        paths = [str(source.path(shape, scenario, side)) for side in ("baseline", "candidate")]
        runs = [source.load(shape, scenario, side) for side in ("baseline", "candidate")]
        removed = [len(run.steps) - len(fold_framework_steps(run).steps) for run in runs]
        assert removed == [sum(map(is_framework_step, run.steps)) for run in runs]
        assert all(removed), case
        in_file = list(map(_in_file, paths))
        kept = [n - r for n, r in zip(in_file, removed, strict=True)]

        data = json.loads(_compared(paths, "json", "--fold-framework-steps"))
        for side, n, r in zip(("baseline", "candidate"), kept, removed, strict=True):
            assert data[side]["steps"] == n, case
            assert data[side]["folded_framework_steps"] == r, case

        terminal = _compared(paths, "terminal", "--fold-framework-steps")
        markdown = _compared(paths, "markdown", "--fold-framework-steps")
        html = _compared(paths, "html", "--fold-framework-steps")
        (b, c), (rb, rc) = kept, removed
        for n, r in zip(kept, removed, strict=True):
            assert f"  {n} steps ({r} framework steps folded) · " in terminal, (case, terminal)
            assert f" · {n} steps ({r} framework steps folded) · " in html, case
        assert re.search(rf"\nsteps +{b} +{c} ", terminal), case
        assert re.search(rf"\nframework steps folded +{rb} +{rc}\n", terminal), case
        assert f"\n| steps | {b} | {c} | " in markdown, case
        assert f"\n| framework steps folded | {rb} | {rc} |  |  |\n" in markdown, case
        assert f"<td>framework steps folded</td><td>{rb}</td><td>{rc}</td>" in html, case
        # JUnit prints no side's step count (the verdict, findings and thresholds only)
        junit = _compared(paths, "junit", "--fold-framework-steps")
        assert " steps · " not in junit and "framework steps" not in junit, case


def test_inspect_says_how_many_framework_steps_it_folded() -> None:
    for source, shape, scenario in _FOLDED_SCENARIOS:
        path = str(source.path(shape, scenario, "candidate"))
        run = source.load(shape, scenario, "candidate")
        removed = sum(map(is_framework_step, run.steps))
        kept = _in_file(path) - removed
        tree = runner.invoke(app, ["inspect", path, "--fold-framework-steps"], env=_WIDE)
        assert re.search(rf"\n  steps +{kept} \({removed} framework steps folded\)", tree.stdout)
        folded = runner.invoke(app, ["inspect", path, "--fold-framework-steps", "-f", "json"])
        data = json.loads(folded.stdout)
        assert len(data["steps"]) == data["totals"]["steps"] == kept
        assert data["totals"]["folded_framework_steps"] == removed
        plain = runner.invoke(app, ["inspect", path, "-f", "json"], env=_WIDE)
        assert "folded_framework_steps" not in json.loads(plain.stdout)["totals"]
        shown = runner.invoke(app, ["inspect", path], env=_WIDE).stdout
        assert "framework steps folded" not in shown


def test_nothing_folded_reads_as_unfolded() -> None:
    """Folding on and nothing to fold (Langfuse): the human reports are the unfolded ones.

    The JSON says 0 folded on each side; compared without folding it has no such field (the
    report of an unfolded comparison is the JSON it was before the field existed).
    """
    paths = [str(LANGFUSE.path("json", "detour", side)) for side in ("baseline", "candidate")]
    for fmt in ("terminal", "markdown", "html", "junit"):
        assert _compared(paths, fmt, "--fold-framework-steps") == _compared(paths, fmt), fmt
    folded = json.loads(_compared(paths, "json", "--fold-framework-steps"))
    plain = json.loads(_compared(paths, "json"))
    assert [folded[s].pop("folded_framework_steps") for s in ("baseline", "candidate")] == [0, 0]
    assert folded == plain
    assert "folded_framework_steps" not in _compared(paths, "json")


def test_folded_count_is_written_alike_by_both_json_paths() -> None:
    """orjson's direct walk and pydantic's dump write the same JSON, folded or not."""
    base, cand = (LANGSMITH.load("nested", "detour", side) for side in ("baseline", "candidate"))
    for fold in (False, True):
        report = compare(base, cand, options=CompareOptions(fold_framework_steps=fold))
        dumped = report.model_dump(mode="json")
        assert report.to_json(indent=False) == orjson.dumps(dumped).decode()
        assert ("folded_framework_steps" in dumped["baseline"]) is fold
        assert b"".join(report.json_parts()) == report.to_json_bytes()
