"""Run sets from folders (three layouts, globs), records, manifests and a scenario key."""

from __future__ import annotations

import glob
import gzip
import shutil
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentdiff.config import SETTINGS
from agentdiff.errors import ConfigError
from agentdiff.gate import GateThresholds
from agentdiff.suite import RunRef, RunSet, load_manifest, runset
from agentdiff.suite.discover import assign, list_files
from agentdiff.suite.manifest import parse_settings
from agentdiff.suite.refs import is_trace_file
from tests.realdata import RealSource

LOOP = RealSource("openai_agents").path("export", "loop", "baseline")
OTLP_JSONL = RealSource("openinference").path("otlp_jsonl", "loop", "baseline")


def _tree(root: Path, names: list[str]) -> Path:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(LOOP, path)
    return root


def test_auto_layout_leaf_folders_hold_runs_other_files_are_scenarios(tmp_path):
    root = _tree(
        tmp_path,
        ["single.json", "refund/partial/r1.json", "refund/partial/r2.json.gz", "refund/x.jsonl"],
    )
    (root / "notes.md").write_text("not a trace")
    (root / ".hidden").mkdir()
    shutil.copyfile(LOOP, root / ".hidden" / "h.json")
    runs = RunSet.from_dir(root)
    assert runs.scenarios == ["refund/partial", "refund/x", "single"]
    assert [r.run_id for r in runs.runs["refund/partial"]] == ["r1", "r2"]
    assert runs.runs["refund/partial"][1].source == "refund/partial/r2.json.gz"
    assert len(runs) == 4
    assert runs.label == root.name


def test_files_and_runs_layouts(tmp_path):
    root = _tree(tmp_path, ["a/b/one.json", "a/b/two.json", "top.json"])
    files = RunSet.from_dir(root, layout="files")
    assert files.scenarios == ["a/b/one", "a/b/two", "top"]
    runs = RunSet.from_dir(root, layout="runs")
    assert runs.scenarios == ["a/b", "top"]
    with pytest.raises(ConfigError, match="unknown layout"):
        RunSet.from_dir(root, layout="nested")  # type: ignore[arg-type]


def test_glob_roots_are_relative_to_their_fixed_prefix(tmp_path):
    root = _tree(tmp_path, ["runs/main/a.json", "runs/main/deep/b.json", "runs/main/c.ndjson"])
    runs = RunSet.from_dir(f"{root}/runs/main/**/*.json", layout="files")
    assert runs.root == f"{root}/runs/main"
    assert runs.scenarios == ["a", "deep/b"]


@pytest.mark.parametrize(
    "pattern",
    ["**/*.json", "*.json", "a/**", "a/**/b*.json", "?/*.json", "[ab]/**/*.json*", "a/*/*.jsonl"],
)
def test_glob_roots_list_what_glob_lists(tmp_path, monkeypatch, pattern):
    """The walk-and-match listing agrees with `glob.glob` on a tree without links."""
    names = ["top.json", "a/b1.json", "a/c/b2.json", "a/c/d/x.jsonl", "b/y.json.gz", "b/.h/z.json"]
    _tree(tmp_path, names)
    monkeypatch.chdir(tmp_path)
    expected = sorted(
        p
        for p in glob.glob(pattern, recursive=True)  # noqa: PTH207 - the reference
        if Path(p).is_file() and is_trace_file(Path(p).name) and "/." not in f"/{p}"
    )
    base, found = list_files(pattern)
    assert sorted(str(Path(base) / rel) for rel, _ in found) == [str(Path(p)) for p in expected]
    absolute, found_abs = list_files(f"{tmp_path}/{pattern}")
    assert len(found_abs) == len(expected) and Path(absolute).is_absolute()


def test_a_glob_does_not_follow_a_link_to_a_parent_folder(tmp_path):
    """`glob.glob` followed it under `**`: the one run was listed ~40 times (and with two such
    links the listing never ended)."""
    _tree(tmp_path, ["base/a/r.json"])
    (tmp_path / "base" / "a" / "up").symlink_to("..")
    runs = RunSet.from_dir(f"{tmp_path}/base/**/*.json")
    assert runs.scenarios == ["a"]
    assert [r.source for r in runs.runs["a"]] == ["a/r.json"]


def test_missing_root_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        RunSet.from_dir(tmp_path / "nope")


def test_records_need_scenario_and_path_and_reject_duplicates():
    runs = RunSet.from_records(
        [{"scenario": "s", "path": "x/run1.json"}, {"scenario": "s", "path": "y.json", "run": "b"}],
        label="main",
    )
    assert [r.run_id for r in runs.runs["s"]] == ["run1", "b"]
    with pytest.raises(ConfigError, match="record 1"):
        RunSet.from_records([{"scenario": "s"}], label="x")
    with pytest.raises(ConfigError, match="twice"):
        RunSet.from_records([{"scenario": "s", "path": "a.json"}] * 2, label="x")


def test_jsonl_manifest_both_sides_relative_to_the_manifest(tmp_path):
    lines = [
        {"scenario": "weather", "side": "baseline", "path": "b/1.json", "run": "r1"},
        {"scenario": "weather", "side": "candidate", "path": "c/1.json"},
    ]
    manifest = tmp_path / "suite.jsonl"
    manifest.write_bytes(b"\n".join(orjson.dumps(line) for line in lines) + b"\n")
    loaded = load_manifest(manifest)
    assert loaded.baseline.runs["weather"][0] == RunRef("weather", "r1", "b/1.json")
    assert loaded.candidate.root == str(tmp_path)
    assert RunSet.from_manifest(manifest, "candidate").runs["weather"][0].run_id == "1"
    manifest.write_text('{"scenario": "w", "side": "left", "path": "a.json"}\n')
    with pytest.raises(ConfigError, match=r"suite.jsonl:1: `side` must be"):
        load_manifest(manifest)


def test_toml_manifest_roots_gate_and_overrides(tmp_path):
    _tree(tmp_path, ["main/a.json", "pr/a.json", "main/refund/b.json", "pr/refund/b.json"])
    manifest = tmp_path / "agentdiff-suite.toml"
    manifest.write_text(
        '[suite]\nname = "nightly"\nbaseline = "main"\ncandidate = "pr"\nlayout = "files"\n'
        'candidate_label = "pr-1"\n'
        '[gate]\nmax_divergence = 0.3\nmax_cost_increase = "off"\n'
        '[[scenario]]\nmatch = "refund/*"\ngate = { allow_loops = true }\n'
    )
    loaded = load_manifest(manifest)
    assert loaded.name == "nightly"
    assert loaded.baseline.scenarios == ["a", "refund/b"]
    assert loaded.candidate.label == "pr-1"
    assert loaded.settings == {"max_divergence": 0.3, "max_cost_increase": None}
    assert loaded.overrides[0].match == "refund/*"
    assert loaded.overrides[0].settings == {"allow_loops": True}


@pytest.mark.parametrize(
    ("table", "where"),
    [
        ("[gate]\nmax_divergence = 1.5\n", "[gate]"),
        ("[[scenario]]\nmatch = '*'\ngate = { max_divergence = 1.5 }\n", "[[scenario]] #1 gate"),
    ],
)
def test_a_manifest_gate_out_of_range_says_the_range_and_where(tmp_path, table, where):
    """A manifest's gate threshold out of range reads as [stats] does (not pydantic's words)."""
    _tree(tmp_path, ["m/a.json"])
    manifest = tmp_path / "s.toml"
    manifest.write_text(f"[suite]\nbaseline='m'\ncandidate='m'\n{table}")
    with pytest.raises(ConfigError) as caught:
        load_manifest(manifest)
    said = "max_divergence must be a number from 0 to 1, or 'off', got 1.5"
    assert str(caught.value) == f"{manifest} {where}: {said}"


_GATE = [s.name for s in SETTINGS if s.section == "gate"]
_EDGES = [0, -0.0, 1, 1.5, -1, 1e308, 5e-324, float("inf"), float("nan"), 2**63 - 1, 2**63]
_GATE_VALUES = st.one_of(
    st.sampled_from([*_EDGES, None, "off", True, False, "1"]),
    st.integers(),
    st.floats(),
)


@given(st.dictionaries(st.sampled_from(_GATE), _GATE_VALUES, max_size=3))
def test_a_gate_table_parsed_is_always_valid_thresholds(table):
    """A `gate` table's values are checked once, as parsed: what parses is a valid gate, so a
    scenario's `gate = {...}` needs no second check against `GateThresholds`."""
    try:
        parsed = parse_settings(table, "where", ("gate",))
    except ConfigError:
        return
    assert GateThresholds.model_validate(parsed).model_dump(include=set(parsed)) == parsed


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[suite]\nbaseline = 'a'\n", "needs `candidate`"),
        ("[suite]\nbaseline = 'a'\ncandidate = 'b'\nfoo = 1\n", "unknown key 'foo'"),
        ("[gates]\n", r"unknown section \[gates\]"),
        (
            "[suite]\nbaseline='m'\ncandidate='m'\n[gate]\nmax_divergence = 'x'\n",
            "must be a number",
        ),
        ("[suite]\nbaseline='m'\ncandidate='m'\n[[scenario]]\ngate = {}\n", "needs `match`"),
        ("[suite\n", "not valid TOML"),
    ],
)
def test_bad_toml_manifests_name_the_problem(tmp_path, text, message):
    _tree(tmp_path, ["m/a.json"])
    manifest = tmp_path / "s.toml"
    manifest.write_text(text)
    with pytest.raises(ConfigError, match=message) as caught:
        load_manifest(manifest)
    assert "s.toml" in str(caught.value)


def test_scenario_key_groups_a_flat_folder_by_a_trace_field(tmp_path):
    source = RealSource("openai_agents")
    for scenario in ("identical", "loop", "detour"):
        for side in ("baseline", "candidate"):
            target = tmp_path / f"{scenario}-{side}.json"
            shutil.copyfile(source.path("export", scenario, side), target)
    runs = RunSet.from_dir(tmp_path, scenario_key="agent_name")
    # every run is the same agent: one scenario holding all six runs
    assert len(runs.scenarios) == 1
    assert len(runs.runs[runs.scenarios[0]]) == 6
    by_id = RunSet.from_dir(tmp_path, scenario_key="trace_id")
    assert len(by_id.scenarios) == 6
    with pytest.raises(ConfigError, match="has no 'metadata.nope'"):
        RunSet.from_dir(tmp_path, scenario_key="metadata.nope")


def test_multi_trace_file_yields_one_run_per_trace(tmp_path):
    from agentdiff.suite.load import load_runs

    lines = OTLP_JSONL.read_bytes().splitlines()
    other = RealSource("openinference").path("otlp_jsonl", "detour", "candidate")
    both = tmp_path / "both.jsonl"
    both.write_bytes(b"\n".join([*lines, *other.read_bytes().splitlines()]) + b"\n")
    runs = load_runs(RunRef("s", "both", "both.jsonl"), str(tmp_path))
    assert len(runs) == 2
    assert all(run_id.startswith("both#") and run_id.endswith(tid) for run_id, tid, _ in runs)


def _gzip_tree(root: Path, names: list[str]) -> Path:
    """`_tree`, each `.gz` name holding the trace gzipped."""
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        data = LOOP.read_bytes()
        path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return root


@pytest.mark.parametrize("layout", ["auto", "runs"])
def test_runs_of_one_stem_are_named_by_file_name(tmp_path, layout):
    """`r1.json` beside `r1.json.gz` are two runs named by their files (they were one name
    twice, and the suite stopped: "scenario 's1' lists run 'r1' twice")."""
    root = _gzip_tree(tmp_path, ["s1/r1.json", "s1/r1.json.gz", "s1/r2.json", "s2/r1.json"])
    runs = RunSet.from_dir(root, layout=layout)
    assert [r.run_id for r in runs.runs["s1"]] == ["r1.json", "r1.json.gz", "r2"]
    assert [r.source for r in runs.runs["s1"]] == ["s1/r1.json", "s1/r1.json.gz", "s1/r2.json"]
    assert [r.run_id for r in runs.runs["s2"]] == ["r1"]


def test_single_run_files_of_one_stem_are_scenarios_named_by_file_name(tmp_path):
    root = _gzip_tree(tmp_path, ["a/one.json", "a/one.json.gz", "a/two.json", "top.json"])
    files = RunSet.from_dir(root, layout="files")
    assert files.scenarios == ["a/one.json", "a/one.json.gz", "a/two", "top"]
    assert [files.runs[s][0].run_id for s in files.scenarios] == ["one", "one", "two", "top"]
    auto = RunSet.from_dir(_gzip_tree(tmp_path / "b", ["x/r.json", "t.json", "t.json.gz"]))
    assert auto.scenarios == ["t.json", "t.json.gz", "x"]


def test_a_single_run_file_beside_a_run_folder_of_its_name_is_its_own_scenario(tmp_path):
    """`a/r1.json` beside the run folder `a/r1/` (and `t.json` beside `t/`) are two scenarios:
    the file is named by its path, the folder keeps its name (they were merged into one)."""
    root = _gzip_tree(tmp_path, ["a/r1.json", "a/r1/x.json", "a/r1/y.json", "t.json", "t/u.json"])
    runs = RunSet.from_dir(root)
    assert runs.scenarios == ["a/r1", "a/r1.json", "t", "t.json"]
    assert [r.source for r in runs.runs["a/r1"]] == ["a/r1/x.json", "a/r1/y.json"]
    assert [(r.run_id, r.source) for r in runs.runs["a/r1.json"]] == [("r1", "a/r1.json")]
    assert [r.source for r in runs.runs["t"]] == ["t/u.json"]
    assert [r.source for r in runs.runs["t.json"]] == ["t.json"]


def test_a_file_path_names_one_scenario_on_both_sides_when_one_side_has_its_run_folder(
    tmp_path,
):
    """`a/r1.json` is scenario `a/r1.json` on both sides when only the baseline has a run folder
    `a/r1/`: decided from both layouts together, never paired against the folder's runs (the
    candidate's file was scenario `a/r1`, judged against the baseline folder's runs)."""
    _gzip_tree(tmp_path, ["main/a/r1.json", "main/a/r1/x.json", "main/a/r1/y.json"])
    _gzip_tree(tmp_path, ["pr/a/r1.json", "pr/a/other/z.json"])
    for base, cand in (
        RunSet.from_dirs(tmp_path / "main", tmp_path / "pr"),
        RunSet.from_dirs(tmp_path / "main", tmp_path / "pr", layout="auto"),
    ):
        assert base.scenarios == ["a/r1", "a/r1.json"]
        assert cand.scenarios == ["a/other", "a/r1.json"]
        assert [(r.run_id, r.source) for r in cand.runs["a/r1.json"]] == [("r1", "a/r1.json")]
    swapped = RunSet.from_dirs(tmp_path / "pr", tmp_path / "main", labels=("pr", "main"))
    assert [s.scenarios for s in swapped] == [["a/other", "a/r1.json"], ["a/r1", "a/r1.json"]]
    assert [s.label for s in swapped] == ["pr", "main"]
    manifest = tmp_path / "agentdiff-suite.toml"  # a TOML manifest's two folders alike
    manifest.write_text('[suite]\nbaseline = "main"\ncandidate = "pr"\n')
    loaded = load_manifest(manifest)
    assert loaded.candidate.scenarios == ["a/other", "a/r1.json"]


def test_a_single_run_file_no_name_tells_from_a_run_folder_is_refused(monkeypatch):
    """A store such as S3 may hold a key `a/r1.json` and a prefix `a/r1.json/`: never merged."""
    files: list[tuple[str, int | None]] = [
        ("a/r1.json", 1),  # beside the run folder a/r1/: named by its path, a/r1.json
        ("a/r1.json/y.json", 1),  # the run folder a/r1.json/
        ("a/r1/x.json", 1),
    ]
    message = (
        "the single-run file a/r1.json and the run folder a/r1.json/ both name scenario"
        " 'a/r1.json'; rename one (or use --layout files or runs)"
    )
    with pytest.raises(ConfigError) as raised:
        assign(files, "auto")
    assert str(raised.value) == message
    monkeypatch.setattr(runset, "list_files", lambda root, _skipped=None: (root, files))
    with pytest.raises(ConfigError) as from_dir:  # the paths are below a root: it is named
        RunSet.from_dir("s3://bucket/main")
    assert str(from_dir.value) == f"s3://bucket/main: {message}"


def test_scenario_key_names_runs_of_one_stem_by_file_name(tmp_path):
    _gzip_tree(tmp_path, ["a.json", "a.json.gz", "b.json"])
    runs = RunSet.from_dir(tmp_path, scenario_key="agent_name")
    (scenario,) = runs.scenarios
    assert [r.run_id for r in runs.runs[scenario]] == ["a.json", "a.json.gz", "b"]
    # in different scenarios the two files clash with nothing: they keep the short name
    other = tmp_path / "other"
    other.mkdir()
    shutil.copyfile(LOOP, other / "a.json")
    detour = RealSource("openai_agents").path("export", "detour", "candidate")
    (other / "a.json.gz").write_bytes(gzip.compress(detour.read_bytes()))
    by_id = RunSet.from_dir(other, scenario_key="trace_id")
    assert len(by_id.scenarios) == 2
    assert [r.run_id for refs in by_id.runs.values() for r in refs] == ["a", "a"]


def test_scenario_key_names_runs_by_stem_then_file_name_then_path(tmp_path):
    """One rule with routes and compare-runs: `s1/r1.json` alone is `r1` (not `s1/r1`); stems
    that clash go by file name; file names that clash go by the path below the root."""
    _gzip_tree(tmp_path, ["s1/r1.json", "s1/r1.json.gz", "s2/r1.json", "s2/r2.json", "s3/r3.json"])
    runs = RunSet.from_dir(tmp_path, scenario_key="agent_name")
    (scenario,) = runs.scenarios
    assert [r.run_id for r in runs.runs[scenario]] == [
        "s1/r1.json",
        "r1.json.gz",
        "s2/r1.json",
        "r2",
        "r3",
    ]


def test_trace_file_endings_are_matched_in_any_case(tmp_path):
    """`R1.JSON` is a trace file to every command, and its run is `R1` everywhere."""
    from agentdiff.scenario.folders import is_trace_file as folder_has_trace
    from agentdiff.scenario.folders import runs_in
    from agentdiff.suite.refs import is_trace_file, strip_suffix

    assert strip_suffix("R1.JSON") == "R1"
    assert strip_suffix("r1.NdJson.GZ") == "r1"
    assert strip_suffix("notes.txt") is None
    assert is_trace_file("R1.JSON")
    _gzip_tree(tmp_path, ["s1/R1.JSON", "s1/r2.json"])
    assert folder_has_trace(tmp_path / "s1" / "R1.JSON")
    assert [run_id for run_id, _ in runs_in(tmp_path / "s1")] == ["R1", "r2"]
    runs = RunSet.from_dir(tmp_path)
    assert [r.run_id for r in runs.runs["s1"]] == ["R1", "r2"]


@pytest.mark.parametrize(
    ("table", "where"),
    [
        ("[gate]\nmax_divergence = '{long}'\n", "[gate]"),
        ("[stats]\nalpha = '{long}'\n", "[stats]"),
        (
            "[[scenario]]\nmatch = '*'\ngate = {{ max_divergence = '{long}' }}\n",
            "[[scenario]] #1 gate",
        ),
    ],
)
def test_a_long_bad_manifest_value_is_shortened_in_a_one_line_error(tmp_path, table, where):
    """A 5,000-character bad value is cut as agentdiff.toml's are, not echoed whole."""
    _tree(tmp_path, ["m/a.json"])
    manifest = tmp_path / "s.toml"
    manifest.write_text(f"[suite]\nbaseline='m'\ncandidate='m'\n{table.format(long='x' * 5000)}")
    with pytest.raises(ConfigError) as caught:
        load_manifest(manifest)
    said = str(caught.value)
    assert said.startswith(f"{manifest} {where}: ")
    assert " must be a number" in said and "xxx…" in said
    assert "\n" not in said and len(said) < len(str(manifest)) + 200


def test_a_manifest_number_too_large_for_a_float_is_a_config_error(tmp_path):
    """An integer past a float's range is refused in one line (it overflowed, uncaught)."""
    _tree(tmp_path, ["m/a.json"])
    manifest = tmp_path / "s.toml"
    manifest.write_text(
        f"[suite]\nbaseline='m'\ncandidate='m'\n[gate]\nmax_divergence = 1{'0' * 400}\n"
    )
    with pytest.raises(ConfigError, match=r"\[gate\]: max_divergence must be a number") as caught:
        load_manifest(manifest)
    assert len(str(caught.value)) < len(str(manifest)) + 200


@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        ("s.toml", "[suite]\nbaseline='m'\ncandidate='m'\n[gate]\n{long} = 1\n", "unknown setting"),
        ("s.toml", "[suite]\nbaseline=['{long}']\ncandidate='m'\n", "must be a string"),
        ("s.jsonl", '{{"scenario": "w", "side": "{long}", "path": "a.json"}}\n', "`side` must be"),
    ],
    ids=["unknown-setting", "suite-not-a-string", "jsonl-side"],
)
def test_a_long_manifest_key_or_value_is_shortened_in_its_error(tmp_path, name, text, words):
    """A 5,000-character key, root or side is cut in the one-line error, not echoed whole."""
    _tree(tmp_path, ["m/a.json"])
    manifest = tmp_path / name
    manifest.write_text(text.format(long="x" * 5000))
    with pytest.raises(ConfigError) as caught:
        load_manifest(manifest)
    said = str(caught.value)
    assert words in said and "xxx…" in said
    assert "\n" not in said and len(said) < len(str(manifest)) + 600
