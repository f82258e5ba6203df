"""`-o [FORMAT=]FILE` of the report commands: one parser (`cli.output.parse_targets`) for all.

A typo'd format (`-o markdwn=x.md`) is a one-line usage error naming the known formats, in
`compare` and in `suite` alike, and writes nothing; a file whose name holds `=` is still
written when given as a path (`./a=b.json`, `out/a=b.json`) or after a format (`json=a=b.json`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from agentdiff.cli.output import parse_targets
from agentdiff.errors import OutputPathError
from agentdiff.render import RENDERERS
from agentdiff.suite.render import SUITE_RENDERERS
from tests.hostile.helpers import cli, refused

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "loop"


@pytest.fixture
def runs(tmp_path, monkeypatch) -> dict[str, list[str]]:
    """The same real pair as a `compare` pair and as a one-scenario suite; cwd is empty."""
    for side in ("baseline", "candidate"):
        (tmp_path / side).mkdir()
        shutil.copyfile(EXAMPLES / f"{side}.json", tmp_path / side / "loop.json")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    pair = [str(tmp_path / side / "loop.json") for side in ("baseline", "candidate")]
    return {
        "compare": ["compare", *pair],
        "suite": ["suite", str(tmp_path / "baseline"), str(tmp_path / "candidate")],
    }


@pytest.mark.parametrize("command", ["compare", "suite"])
def test_a_typo_in_a_format_is_an_error_naming_the_known_ones(runs, command):
    outcome = cli(*runs[command], "-o", "markdwn=x.md")
    refused(outcome, "unknown format 'markdwn'", "json, junit, markdown", "did you mean markdown")
    assert len(outcome.stderr.splitlines()) <= 2  # the error, and a hint for a real '=' name
    assert "-o ./markdwn=x.md" in outcome.stderr
    assert list(Path().iterdir()) == []  # nothing written, not even the report in --format


@pytest.mark.parametrize("command", ["compare", "suite"])
@pytest.mark.parametrize("given", ["./a=b.json", "out/a=b.json", "v1.2=b.json", "json=a=b.json"])
def test_a_file_whose_name_holds_an_equals_sign_is_a_path(runs, command, given):
    Path("out").mkdir()
    outcome = cli(*runs[command], "-f", "json", "-o", given)
    assert outcome.code == 1, outcome.stderr  # the loop regressed; the report was written
    written = Path(given.removeprefix("json="))
    assert orjson.loads(written.read_bytes())["report_version"]
    assert len(list(Path().rglob("*.json"))) == 1


@pytest.mark.parametrize("formats", [RENDERERS, SUITE_RENDERERS])
def test_every_known_format_still_names_its_own(formats):
    for name in formats:
        (target,) = parse_targets([f"{name}=r.out"], "terminal", formats)
        assert (target.fmt, str(target.path)) == (name, "r.out")
    with pytest.raises(OutputPathError, match="unknown format 'htm'"):
        parse_targets(["htm=r.html"], "terminal", formats)


@pytest.mark.parametrize(
    ("given", "meant"), [("JSON=r.json", "json"), ("Markdwn=r.md", "markdown")]
)
def test_a_format_in_capitals_is_refused_with_the_name_it_means(given, meant):
    with pytest.raises(OutputPathError, match=f"did you mean {meant}=r"):
        parse_targets([given], "terminal", SUITE_RENDERERS)
