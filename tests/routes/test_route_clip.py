"""A long route shown in part is cut at a step boundary, never inside a concurrent group.

A suite's findings show each route cluster's skeleton (and a side's other route) in at most
`FINDING_ROUTE_CHARS` (180) characters, `compare-runs` and `routes` tables in `ROUTE_CHARS`
(1,900, within a markdown cell's 2,000). Cut inside a group (`plan → {geocode ‖ web_sea…`) a
line claimed a group it could not show and left its brace open; a side route's note was cut
mid-name, as was a markdown route cell past 2,000 characters. Each now ends `… (+N more
steps)`, N the route's steps left out.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import orjson
from typer.testing import CliRunner

from agentdiff.cli.app import app
from tests.routes.steps import step

TRIP = [
    ["search_flights", "search_hotels"],
    ["currency_exchange_rate", "geocode_destination", "get_weather_forecast"],
    ["check_visa"],
    ["book_flight", "reserve_hotel_room"],
    ["send_confirmation_email", "add_calendar_event"],
]
"""A travel agent's model turns, each issuing its tool calls at once (one concurrent group)."""
DETOUR = [*TRIP[:2], ["search_flights", "search_hotels"], *TRIP[2:]]
"""The same trip searching twice: within the route threshold of `TRIP` (one cluster)."""
MARK = re.compile(r"^(?P<kept>.*?)(?: → )?… \(\+(?P<hidden>[\d,]+) more steps?\)$")


def _trip(run_id: str, turns: list[list[str]], tokens: int) -> dict[str, Any]:
    """A model turn (`gpt`) per item of `turns` issuing its tools, then a last turn."""
    steps: list[dict[str, Any]] = []
    for tools in [*turns, []]:
        model = len(steps)
        steps.append(step(model, "llm_call", "gpt", tokens=tokens))
        steps += [step(len(steps) + k, "tool_call", t, model) for k, t in enumerate(tools)]
    return {"trace_id": run_id, "agent_name": "travel_agent", "steps": steps}


def _suite(root: Path, base: list[list[str]], cand: list[list[str]]) -> tuple[Path, Path]:
    """One scenario `trip` of five runs a side, the candidate's using twice the tokens.

    (A passing scenario lists no findings: this one regresses.)
    """
    folders = []
    for side, turns, tokens in (("base", base, 100), ("cand", cand, 200)):
        folder = root / side / "trip"
        folder.mkdir(parents=True)
        for k in range(5):
            run = _trip(f"{side}{k}", turns, tokens + k)
            (folder / f"run{k}.json").write_text(json.dumps(run), encoding="utf-8")
        folders.append(root / side)
    return folders[0], folders[1]


def _invoke(*args: str | Path) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def _steps(turns: list[list[str]]) -> int:
    return len(turns) + 1 + sum(map(len, turns))


def _shown_steps(kept: str) -> int:
    """The steps a shown skeleton names (none repeats here: no `×N`)."""
    return len(re.split(r" → | ‖ ", kept)) if kept else 0


def _check_cut(shown: str, whole: str, steps: int) -> str:
    """`shown` is `whole` cut between two of its parts, marked with the steps it leaves out.

    Returns the part of `whole` shown.
    """
    cut = MARK.match(shown)
    assert cut is not None, shown
    kept = cut["kept"]
    assert kept.count("{") == kept.count("}"), shown  # no group left open
    assert not kept.endswith(("‖", "→", "{")), shown
    assert (whole + " → ").startswith(kept + " → " if kept else ""), shown  # a step boundary
    assert int(cut["hidden"].replace(",", "")) == steps - _shown_steps(kept), shown
    return kept


def test_a_long_route_is_cut_before_the_group_it_cannot_show_whole(tmp_path: Path) -> None:
    base, cand = _suite(tmp_path, TRIP, TRIP)
    (scenario,) = orjson.loads(_invoke("compare-runs", base / "trip", cand / "trip", "-f", "json"))[
        "scenarios"
    ]
    (cluster,) = scenario["routes"]["clusters"]
    whole = cluster["skeleton"]
    assert len(whole) > 180  # longer than a finding shows
    assert "{currency_exchange_rate ‖ geocode_destination ‖ get_weather_forecast}" in whole
    out = _invoke("suite", base, cand)
    (line,) = [line for line in out.splitlines() if "route R1 " in line]
    shown = line.split(": ", 1)[1]
    kept = _check_cut(shown, whole, _steps(TRIP))
    # the cut fell inside `{book_flight ‖ reserve_hotel_room}`: the line stops before it
    assert whole.removeprefix(kept + " → ").startswith("{book_flight ‖ reserve_hotel_room} → ")
    assert shown.startswith("gpt → {search_flights ‖ search_hotels} → gpt → {currency_")
    html = _invoke("suite", base, cand, "-f", "html")
    assert shown in html  # one view model: every format shows the same cut


def test_a_side_route_note_is_cut_at_a_step_like_the_main_line(tmp_path: Path) -> None:
    base, cand = _suite(tmp_path, TRIP, DETOUR)
    (scenario,) = orjson.loads(_invoke("compare-runs", base / "trip", cand / "trip", "-f", "json"))[
        "scenarios"
    ]
    (cluster,) = scenario["routes"]["clusters"]
    ((side, whole),) = cluster["side_routes"].items()
    lead = f"R1 holds more than one route: its {side} runs take "
    out = _invoke("suite", base, cand)
    (note,) = [line.strip() for line in out.splitlines() if "holds more than one route" in line]
    assert note.startswith(lead)
    taken = TRIP if side == "baseline" else DETOUR
    _check_cut(note.removeprefix(lead), whole, _steps(taken))


def test_a_cut_counts_every_step_it_leaves_out_and_never_grows_the_route() -> None:
    from agentdiff.render.runs.view import clip_route  # absent before the fix
    from agentdiff.scenario.report import SkeletonPart

    parts = [("plan", 1), ("lookup_order ×3", 3), ("{geocode ‖ web_search}", 2), ("answer", 1)]
    records = [SkeletonPart(shown=shown, steps=n) for shown, n in parts]
    whole = "plan → lookup_order ×3 → {geocode ‖ web_search} → answer"
    assert clip_route(whole, records, len(whole)) == whole
    assert clip_route(whole, records, 45) == "plan → lookup_order ×3 → … (+3 more steps)"
    assert clip_route(whole, records, 30) == "plan → … (+6 more steps)"
    assert clip_route(whole, records, 20) == "… (+7 more steps)"  # not even its first step fits
    one = [SkeletonPart(shown="plan", steps=1), SkeletonPart(shown="x" * 40, steps=1)]
    assert clip_route("plan → " + "x" * 40, one, 30) == "plan → … (+1 more step)"
    assert clip_route(whole, [], 20) == whole  # a report written without parts: never guessed


def test_a_route_longer_than_a_markdown_cell_is_cut_at_a_step_in_every_format(
    tmp_path: Path,
) -> None:
    """A 2,000-character cell was cut mid-name by the markdown escaper (`md`), not by the view."""
    turns = [[f"check_price_{k}", f"search_inventory_{k}"] for k in range(45)]
    folder = tmp_path / "shop"
    folder.mkdir()
    for k in range(2):
        run = _trip(f"r{k}", turns, 100)
        (folder / f"r{k}.json").write_text(json.dumps(run), encoding="utf-8")
    (section,) = orjson.loads(_invoke("routes", folder, "-f", "json"))["scenarios"].values()
    (cluster,) = section["clusters"]
    whole = cluster["skeleton"]
    assert len(whole) > 2000  # longer than a markdown cell keeps
    (row,) = [line for line in _invoke("routes", folder).splitlines() if line.startswith("  R1")]
    shown = next(cell for cell in re.split(r"\s{2,}", row) if "→" in cell)
    kept = _check_cut(shown, whole, _steps(turns))
    assert kept.startswith("gpt → {check_price_0 ‖ search_inventory_0} → gpt → ")
    markdown = _invoke("routes", folder, "-f", "markdown")
    assert shown.replace("_", "\\_") in markdown
    assert shown in _invoke("routes", folder, "-f", "html")
