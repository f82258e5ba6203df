"""A skeleton shows a concurrent group as concurrent, not as a sequence ("→" reads "then").

The route lists the calls of one concurrent group by name (its canonical order, so swapping them
is the same route); the real LangSmith and LangGraph `parallel` candidates ran `web_search`
before `geocode`, which `geocode → web_search` would claim the other way round.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner

from agentdiff.cli.app import app
from agentdiff.diff.normalize import Normalizer
from agentdiff.diff.order import prepare
from agentdiff.diff.signatures import Signer
from agentdiff.loader import load_trace
from agentdiff.routes.route import side_route
from agentdiff.routes.skeleton import skeleton
from tests.routes.steps import step

REAL = Path(__file__).parents[1] / "fixtures" / "real"
LANGSMITH = REAL / "langsmith" / "parallel" / "candidate.nested.json"
LANGGRAPH = REAL / "langgraph" / "parallel" / "candidate.messages.json"
LEGEND = "{a ‖ b} = a and b in one concurrent group"
WRAPPED = "should_continue → {tools → geocode ‖ tools → web_search} → agent"
"""LangGraph runs each call of the fan-out in a `tools` node of its own."""
FLAT = "geocode,web_search → {geocode ‖ web_search} → get_weather ×2 → final_answer"


def _invoke(*args: str | Path) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def _copies(folder: Path, source: Path, n: int = 1) -> Path:
    folder.mkdir(parents=True)
    for k in range(n):
        shutil.copy(source, folder / f"run{k}.json")
    return folder


def test_the_captured_runs_ran_web_search_first() -> None:
    """What the skeleton must not contradict: the candidates' model asked for web_search first."""
    for path in (LANGSMITH, LANGGRAPH):
        facts = json.loads(path.with_name("candidate.facts.json").read_text(encoding="utf-8"))
        assert facts["model_messages"][0] == ["web_search", "geocode"]


@pytest.mark.parametrize(
    ("source", "shown"), [(LANGSMITH, WRAPPED), (LANGGRAPH, FLAT)], ids=["langsmith", "langgraph"]
)
def test_routes_shows_the_concurrent_pair_as_concurrent_in_every_format(
    tmp_path: Path, source: Path, shown: str
) -> None:
    runs = _copies(tmp_path / "runs", source)
    terminal = _invoke("routes", runs)
    assert shown in terminal
    assert "geocode → tools → web_search" not in terminal
    assert "geocode → web_search" not in terminal
    assert LEGEND in terminal
    markdown = _invoke("routes", runs, "-f", "markdown")
    assert shown.replace("_", "\\_") in markdown
    assert LEGEND.replace("_", "\\_") in markdown
    html = _invoke("routes", runs, "-f", "html")
    assert shown in html
    assert LEGEND in html
    (section,) = orjson.loads(_invoke("routes", runs, "-f", "json"))["scenarios"].values()
    (cluster,) = section["clusters"]
    assert shown in cluster["skeleton"]


def test_compare_runs_and_suite_show_the_pair_as_concurrent(tmp_path: Path) -> None:
    """Baseline and candidate called geocode and web_search in opposite orders: one route."""
    base = _copies(
        tmp_path / "suite" / "base" / "sc", LANGSMITH.with_name("baseline.nested.json"), 3
    )
    cand = _copies(tmp_path / "suite" / "cand" / "sc", LANGSMITH, 3)
    (scenario,) = orjson.loads(_invoke("compare-runs", base, cand, "-f", "json"))["scenarios"]
    (cluster,) = scenario["routes"]["clusters"]
    assert cluster["counts"] == {"baseline": 3, "candidate": 3}
    assert WRAPPED in cluster["skeleton"]
    terminal = _invoke("compare-runs", base, cand)
    assert WRAPPED in terminal
    assert LEGEND in terminal
    suite = _invoke("suite", tmp_path / "suite" / "base", tmp_path / "suite" / "cand")
    assert "{tools → geocode ‖ tools → web_search}" in suite
    assert LEGEND in suite


def _fan_out(*turns: list[str]) -> dict[str, Any]:
    """A model turn per item of `turns`, issuing its tools (children of the model call)."""
    steps: list[dict[str, Any]] = []
    for tools in [*turns, []]:
        model = len(steps)
        steps.append(step(model, "llm_call", "gpt"))
        steps += [step(len(steps) + k, "tool_call", t, model) for k, t in enumerate(tools)]
    return {"trace_id": "t", "agent_name": "agent", "steps": steps}


def _flat(names: list[str]) -> dict[str, Any]:
    steps = [step(i, "llm_call" if n == "gpt" else "tool_call", n) for i, n in enumerate(names)]
    return {"trace_id": "t", "agent_name": "agent", "steps": steps}


def _folder(path: Path, runs: dict[str, dict[str, Any]]) -> Path:
    path.mkdir(parents=True)
    for run_id, run in runs.items():
        (path / f"{run_id}.json").write_text(json.dumps(run))
    return path


def _skeletons(folder: Path) -> list[str]:
    (section,) = orjson.loads(_invoke("routes", folder, "-f", "json"))["scenarios"].values()
    return [c["skeleton"] for c in section["clusters"]]


def test_sequential_steps_of_the_same_name_are_not_joined(tmp_path: Path) -> None:
    """A loop over turns, and tool calls one after another, stay "→" / "×N"."""
    loop = {
        "turns": _fan_out(["lookup"], ["lookup"], ["lookup"]),
        "flat": _flat(["gpt", "lookup", "lookup", "lookup", "gpt"]),
    }
    shown = [_skeletons(_folder(tmp_path / k, {k: run}))[0] for k, run in loop.items()]
    assert shown == [
        "gpt → lookup → gpt → lookup → gpt → lookup → gpt",
        "gpt → lookup ×3 → gpt",
    ]
    out = _invoke("routes", tmp_path / "flat")
    assert "‖" not in out
    assert LEGEND not in out


def test_a_real_loop_over_turns_is_not_joined(tmp_path: Path) -> None:
    runs = _copies(tmp_path / "loop", REAL / "langgraph" / "loop" / "candidate.messages.json")
    (shown,) = _skeletons(runs)
    assert shown == "geocode ×2 → get_weather ×8 → final_answer"


def test_one_message_issuing_the_same_tool_three_times_is_one_group(tmp_path: Path) -> None:
    runs = _folder(tmp_path / "fan", {"r": _fan_out(["lookup", "lookup", "lookup"], ["lookup"])})
    assert _skeletons(runs) == ["gpt → {lookup ‖×3} → gpt → lookup → gpt"]


def test_a_departure_inside_a_concurrent_group_says_how_it_counts(tmp_path: Path) -> None:
    main = _fan_out(["geocode", "web_search"])
    other = _fan_out(["web_search", "news"])
    runs = _folder(tmp_path / "dep", {"a": main, "b": main, "c": other})
    (section,) = orjson.loads(_invoke("routes", runs, "-f", "json"))["scenarios"].values()
    assert [c["skeleton"] for c in section["clusters"]] == [
        "gpt → {geocode ‖ web_search} → gpt",
        "gpt → {news ‖ web_search} → gpt",
    ]
    departure = section["clusters"][1]["departure"]
    assert (departure["step"], departure["here"], departure["main"]) == (2, "news", "geocode")
    assert departure["concurrent"] is True
    note = (
        "R2 departs from the main route at step 2 (in a concurrent group here and on the main "
        "route, counted as listed): news instead of geocode"
    )
    assert note in _invoke("routes", runs)
    main = _fan_out(["geocode"], ["web_search"])
    other = _fan_out(["news"], ["news"])
    sequential = _folder(tmp_path / "seq", {"a": main, "b": main, "c": other})
    (section,) = orjson.loads(_invoke("routes", sequential, "-f", "json"))["scenarios"].values()
    departure = section["clusters"][1]["departure"]
    assert (departure["step"], departure["concurrent"]) == (2, False)
    assert "R2 departs from the main route at step 2: news" in _invoke("routes", sequential)


def test_route_identity_is_unchanged_and_groups_nest() -> None:
    """The route (labels, order) is what it was; the groups are display information only."""
    from agentdiff.routes.route import RouteShape  # absent before the fix

    trace = load_trace(LANGSMITH)
    side = prepare(trace, Signer(Normalizer(()), strict=False))
    route = side_route(side)
    names = [label.split("\x1f")[1] for label in route]
    assert names[6:11] == ["should_continue", "tools", "geocode", "tools", "web_search"]
    assert RouteShape.of(side).groups() == ((7, 9, 11),)
    labels = ["a", "w", "x", "y", "w", "z", "b"]
    nested = [(1, 4, 6), (2, 3, 4)]
    assert skeleton(labels, nested) == "a → {w → {x ‖ y} ‖ w → z} → b"
    assert skeleton(labels) == "a → w → x → y → w → z → b"


def test_the_version_2_notes_say_what_changed_in_route_reports() -> None:
    """Route reports share the runs report's version: its notes list the routes' changes too."""
    root = Path(__file__).parents[2]
    readme = (root / "README.md").read_text(encoding="utf-8")
    note = readme.split("### Runs report version 2", 1)[1].split("\n## ", 1)[0]
    source = (root / "src" / "agentdiff" / "scenario" / "report.py").read_text(encoding="utf-8")
    version = source.split('RUNS_REPORT_VERSION = "2"', 1)[1].split('"""', 2)[1]
    for text in (note, version):
        assert "unchanged" not in text.split("share")[1].split(".")[0]
        assert "{a ‖ b}" in text
        assert "concurrent`" in text  # `Departure.concurrent` / `departure` gains `concurrent`


def test_the_legend_follows_the_groups_shown_not_the_names(tmp_path: Path) -> None:
    """A step named like the notation is no group: the legend reads `RouteRow.concurrent`."""
    named = _folder(tmp_path / "named", {"r": _flat(["gpt", "{a ‖ b}", "x ‖×2", "gpt"])})
    (section,) = orjson.loads(_invoke("routes", named, "-f", "json"))["scenarios"].values()
    assert [c["concurrent"] for c in section["clusters"]] == [False]
    assert LEGEND not in _invoke("routes", named)
    fan = _folder(tmp_path / "fan", {"r": _fan_out(["geocode", "web_search"])})
    (section,) = orjson.loads(_invoke("routes", fan, "-f", "json"))["scenarios"].values()
    assert [c["concurrent"] for c in section["clusters"]] == [True]
    assert LEGEND in _invoke("routes", fan)


def test_a_departure_names_which_route_has_the_group(tmp_path: Path) -> None:
    """Only the main route's step in a group: step N of this route is not in one."""
    grouped = _fan_out(["geocode", "web_search"])
    sequential = _fan_out(["news"], ["web_search"])
    only_main = _folder(tmp_path / "main", {"a": grouped, "b": grouped, "c": sequential})
    (section,) = orjson.loads(_invoke("routes", only_main, "-f", "json"))["scenarios"].values()
    assert [c["skeleton"] for c in section["clusters"]] == [
        "gpt → {geocode ‖ web_search} → gpt",
        "gpt → news → gpt → web_search → gpt",
    ]
    departure = section["clusters"][1]["departure"]
    assert (departure["step"], departure["here"], departure["main"]) == (2, "news", "geocode")
    assert (departure["here_concurrent"], departure["main_concurrent"]) == (False, True)
    out = " ".join(_invoke("routes", only_main).split())
    assert (
        "R2 departs from the main route at step 2 (the main route's step there is in a "
        "concurrent group, counted as listed): news instead of geocode"
    ) in out
    only_here = _folder(tmp_path / "here", {"a": sequential, "b": sequential, "c": grouped})
    out = " ".join(_invoke("routes", only_here).split())
    assert (
        "R2 departs from the main route at step 2 (in a concurrent group, counted as listed): "
        "geocode instead of news"
    ) in out
