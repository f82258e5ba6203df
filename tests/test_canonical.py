"""The canonical fast path builds exactly the trace validation builds, or steps aside."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import orjson
import pytest

from agentdiff.canonical import _Step, _Trace, _Usage, decode_canonical
from agentdiff.errors import TraceFormatError, TraceValidationError
from agentdiff.loader import load_trace, parse_trace_data, read_document
from agentdiff.models.trace import AgentTrace, TokenUsage, TraceStep
from tests.realdata import real_sources


def _real_canonical() -> list[tuple[str, bytes]]:
    """Every real fixture as canonical JSON (what `agentdiff convert` writes)."""
    found = []
    for source in real_sources():
        for shape, scenario, side in source.cases():
            path = source.path(shape, scenario, side)
            if path.exists():
                trace = source.load(shape, scenario, side)
                found.append((f"{source.name}/{scenario}/{side}.{shape}", _dump(trace)))
    return found


def _dump(trace: AgentTrace) -> bytes:
    return orjson.dumps(trace.model_dump(mode="json"))


def _assert_same(fast: AgentTrace, slow: AgentTrace) -> None:
    assert fast == slow
    assert fast.model_fields_set == slow.model_fields_set
    for mine, theirs in zip(fast.steps, slow.steps, strict=True):
        assert mine.model_fields_set == theirs.model_fields_set
        assert _types(mine) == _types(theirs)
        if theirs.tokens is not None:
            assert mine.tokens is not None
            assert mine.tokens.model_fields_set == theirs.tokens.model_fields_set
            assert _types(mine.tokens) == _types(theirs.tokens)
    assert fast.model_dump_json() == slow.model_dump_json()


def _types(model: TraceStep | TokenUsage) -> dict[str, type]:
    return {name: type(value) for name, value in model.__dict__.items()}


REAL = _real_canonical()


def test_the_real_fixtures_are_many() -> None:
    assert len(REAL) > 100


@pytest.mark.parametrize(("name", "raw"), REAL, ids=[name for name, _ in REAL])
def test_real_traces_decode_as_validation_builds_them(name: str, raw: bytes) -> None:
    fast = decode_canonical(raw)
    assert fast is not None, name
    _assert_same(fast, AgentTrace.model_validate_json(raw))


def _document(**changes: Any) -> dict[str, Any]:
    steps: list[dict[str, Any]] = [
        {"step_id": "a", "step_index": 0, "step_type": "llm_call", "name": "gpt"},
        {
            "step_id": "b",
            "parent_id": "a",
            "step_index": 1,
            "step_type": "tool_call",
            "name": "search",
            "input_payload": {"q": "x"},
            "status": "error",
            "error_message": "boom",
            "latency_ms": 3,
            "tokens": {"prompt_tokens": 1, "estimated_cost_usd": 2},
        },
    ]
    return {"trace_id": "t", "agent_name": "agent", "steps": steps, **changes}


def test_absent_keys_are_absent_from_the_fields_set_and_ints_become_floats() -> None:
    raw = orjson.dumps(_document())
    fast = decode_canonical(raw)
    assert fast is not None
    _assert_same(fast, AgentTrace.model_validate_json(raw))
    assert fast.steps[0].model_fields_set == {"step_id", "step_index", "step_type", "name"}
    assert fast.steps[1].latency_ms == 3.0
    assert isinstance(fast.steps[1].latency_ms, float)
    assert fast.steps[0].input_payload == {}


def _with_twin() -> AgentTrace:
    document = _document()
    document["steps"].append(
        {"step_id": "c", "step_index": 2, "step_type": "llm_call", "name": "gpt"}
    )
    fast = decode_canonical(orjson.dumps(document))
    assert fast is not None
    return fast


def test_an_assignment_changes_only_its_own_step() -> None:
    fast = _with_twin()
    first, twin = fast.steps[0], fast.steps[2]
    assert first.model_fields_set == twin.model_fields_set
    first.metadata = {"k": 1}
    assert "metadata" in first.model_fields_set
    assert "metadata" not in twin.model_fields_set
    assert twin.model_dump(exclude_unset=True) == {
        "step_id": "c",
        "step_index": 2,
        "step_type": "llm_call",
        "name": "gpt",
    }


def test_empty_payloads_are_not_shared() -> None:
    fast = _with_twin()
    fast.steps[0].input_payload["x"] = 1
    assert fast.steps[2].input_payload == {}


def _raw(document: dict[str, Any], **numbers: str) -> bytes:
    """`document` as JSON, with `"<name>"` placeholders replaced by literal numbers."""
    raw = orjson.dumps(document)
    for name, literal in numbers.items():
        raw = raw.replace(f'"<{name}>"'.encode(), literal.encode())
    return raw


def _one_step(**fields: Any) -> dict[str, Any]:
    step = {"step_id": "a", "step_index": 0, "step_type": "llm_call", "name": "x", **fields}
    return _document(steps=[step])


@pytest.mark.parametrize(
    "raw",
    [
        _raw(_document(extra=1)),
        _raw(_document(agent_name=3)),
        _raw({"trace_id": "t", "agent_name": "a"}),
        _raw(_document(task_input={"n": "<n>"}), n=str(10**30)),
        _raw(_document(task_input={"n": "<n>"}), n=str(2**64)),
        _raw(_document(task_input={"n": "<n>"}), n=str(-(2**63) - 1)),
        _raw(_one_step(step_index="0")),
        _raw(_one_step(step_index=1.0)),
        _raw(_one_step(status="SUCCESS")),
        _raw(_one_step(latency_ms="<n>"), n="1e400"),
        b'{"trace_id": "t", "agent_name": "a", "steps": [], }',
    ],
    ids=[
        "unknown key",
        "wrong type",
        "no steps",
        "huge int",
        "int past 64 bits",
        "int below 64 bits",
        "index as text",
        "index as float",
        "unknown status",
        "infinite latency",
        "syntax",
    ],
)
def test_anything_unusual_steps_aside(raw: bytes) -> None:
    assert decode_canonical(raw) is None


def test_a_huge_int_loads_as_validation_loads_it(tmp_path: Path) -> None:
    path = tmp_path / "trace.json"
    path.write_bytes(_raw(_document(task_input={"n": "<n>"}), n=str(10**30)))
    assert load_trace(path).task_input == {"n": 1e30}


def test_a_deep_payload_steps_aside() -> None:
    deep: Any = 0
    for _ in range(201):
        deep = {"a": deep}
    assert decode_canonical(orjson.dumps(_document(task_input=deep))) is None
    shallow: Any = 0
    for _ in range(200):
        shallow = {"a": shallow}
    assert decode_canonical(orjson.dumps(_document(task_input=shallow))) is not None


def _nested(levels: int, *, lists: bool) -> dict[str, Any]:
    """A payload `levels` deep (`{"a": 1}` is one level), of lists inside when `lists`."""
    inner: Any = 0
    for _ in range(levels - 1):
        inner = [inner] if lists else {"a": inner}
    return {"a": inner}


_PLACES = ("task_input", "final_output", "metadata", "input_payload", "output_payload", "meta")


def _with_payload(place: str, payload: dict[str, Any]) -> dict[str, Any]:
    """A two-step document (the first leaving out every optional field) with `payload` at `place`."""
    if place in ("task_input", "final_output", "metadata"):
        return {**_one_step(), place: payload}
    field = "metadata" if place == "meta" else place
    document = _one_step()
    step = {"step_id": "b", "step_index": 1, "step_type": "tool_call", "name": "y", field: payload}
    document["steps"].append(step)
    return document


@pytest.mark.parametrize("place", _PLACES)
@pytest.mark.parametrize("lists", [False, True])
def test_every_payload_is_held_to_the_depth_limit(place: str, *, lists: bool) -> None:
    shallow = orjson.dumps(_with_payload(place, _nested(200, lists=lists)))
    trace = decode_canonical(shallow)
    assert trace is not None
    assert trace == AgentTrace.model_validate(orjson.loads(shallow))
    assert decode_canonical(orjson.dumps(_with_payload(place, _nested(201, lists=lists)))) is None
    empty: Any = []
    for _ in range(199):
        empty = [empty]
    assert decode_canonical(orjson.dumps(_with_payload(place, {"a": empty}))) is None


_INTS = (2**63 - 1, -(2**63), 2**63, 2**64 - 1, 2**64, -(2**63) - 1, 10**30)


@pytest.mark.parametrize("place", _PLACES)
@pytest.mark.parametrize("nests", [False, True])
def test_an_int_past_64_bits_anywhere_steps_aside(place: str, *, nests: bool) -> None:
    payload = {"k": [{"n": "<n>"}]} if nests else {"k": "v", "n": "<n>", "x": 1.5}
    for n in _INTS:
        raw = _raw(_with_payload(place, payload), n=str(n))
        fast = decode_canonical(raw)
        assert (fast is not None) is (-(2**63) <= n < (2**64 if nests else 2**63)), n
        if fast is not None:
            _assert_same(fast, AgentTrace.model_validate(orjson.loads(raw)))


@pytest.mark.parametrize("place", _PLACES)
@pytest.mark.parametrize("nests", [False, True])
def test_every_int_loads_as_the_ordinary_route_reads_it(
    tmp_path: Path, place: str, *, nests: bool
) -> None:
    payload = {"k": [{"n": "<n>"}]} if nests else {"k": "v", "n": "<n>", "x": 1.5}
    path = tmp_path / "trace.json"
    for n in _INTS:
        raw = _raw(_with_payload(place, payload), n=str(n))
        path.write_bytes(raw)
        _assert_same(load_trace(path), parse_trace_data(orjson.loads(raw)))


_METADATA: list[Any] = [
    None,
    {},
    {"k": 1},
    {"source_format": "langfuse", "k": [1, {"a": None}]},
    {"warnings": ["dangling parent_id kept as root: old"], "z": 1},
]


@pytest.mark.parametrize("metadata", [*_METADATA, "absent"], ids=repr)
@pytest.mark.parametrize("parents", ["ordered", "dangling", "later"])
def test_the_source_is_marked_as_the_ordinary_route_marks_it(
    tmp_path: Path, metadata: Any, parents: str
) -> None:
    parent = {"ordered": "a", "dangling": "gone", "later": "c"}[parents]
    steps = _steps(("a", None), ("b", parent), ("c", None))
    document = {"trace_id": "t", "agent_name": "x", "steps": steps}
    if metadata != "absent":
        document["metadata"] = metadata
    raw = orjson.dumps(document)
    path = tmp_path / "trace.json"
    path.write_bytes(raw)
    fast = load_trace(path)
    _assert_same(fast, parse_trace_data(orjson.loads(raw)))
    assert fast.metadata is not None
    assert list(fast.metadata)[-1] == "source_format" or "source_format" in (metadata or {})
    assert decode_canonical(raw) == AgentTrace.model_validate_json(raw)  # no source: as given


def test_only_payloads_that_nest_are_tracked_by_the_collector() -> None:
    """What `_Decoder.too_deep` relies on: CPython leaves a dict of scalars untracked."""
    flat = decode_canonical(orjson.dumps(_with_payload("input_payload", {"a": 1, "b": "x"})))
    assert flat is not None
    assert not gc.is_tracked(flat.steps[1].input_payload)
    for inner in ({}, [], {"c": 1}, [1]):
        trace = decode_canonical(orjson.dumps(_with_payload("input_payload", {"a": inner})))
        assert trace is not None
        assert gc.is_tracked(trace.steps[1].input_payload)


def _steps(*pairs: tuple[str, str | None]) -> list[dict[str, Any]]:
    return [
        {
            "step_id": sid,
            "parent_id": parent,
            "step_index": i,
            "step_type": "tool_call",
            "name": "t",
        }
        for i, (sid, parent) in enumerate(pairs)
    ]


def test_graphs_are_checked_as_validation_checks_them(tmp_path: Path) -> None:
    later_parent = _document(steps=_steps(("b", "a"), ("a", None)))
    dangling = _document(steps=_steps(("a", None), ("b", "zz")))
    for document in (later_parent, dangling):
        raw = orjson.dumps(document)
        fast = decode_canonical(raw)
        assert fast is not None
        _assert_same(fast, AgentTrace.model_validate_json(raw))
    assert decode_canonical(orjson.dumps(dangling)).metadata == {  # type: ignore[union-attr]
        "warnings": ["dangling parent_id kept as root: zz"]
    }
    for pairs, message in (
        ((("a", None), ("a", None)), r"duplicate step_id 'a' at steps\[0\] and steps\[1\]"),
        ((("a", "b"), ("b", "a")), "parent cycle between steps"),
        ((("a", None), ("b", "b")), "parent cycle between steps: b -> b"),
        ((("b", "a"), ("a", None), ("b", None)), r"duplicate step_id 'b'"),
    ):
        path = tmp_path / "bad.json"
        path.write_bytes(orjson.dumps(_document(steps=_steps(*pairs))))
        assert decode_canonical(path.read_bytes()) is None
        with pytest.raises(TraceValidationError, match=message):
            load_trace(path)


def test_load_trace_takes_the_fast_path_and_marks_the_source(tmp_path: Path) -> None:
    path = tmp_path / "trace.json"
    path.write_bytes(b"\xef\xbb\xbf" + orjson.dumps(_document()))
    trace = load_trace(path)
    assert trace.metadata == {"source_format": "generic"}
    assert trace.steps[1].tokens == TokenUsage(prompt_tokens=1, estimated_cost_usd=2.0)
    assert load_trace(path, "canonical") == trace


def test_a_one_line_json_lines_trace_takes_the_fast_path(tmp_path: Path) -> None:
    path = tmp_path / "baseline.jsonl"
    path.write_bytes(b"\n\xef\xbb\xbf" + orjson.dumps(_document()) + b"\n\n")
    with pytest.raises(TraceFormatError, match="line 2"):
        load_trace(path)
    path.write_bytes(b"\xef\xbb\xbf" + orjson.dumps(_document()) + b"\n\n")
    trace = load_trace(path)
    slow = parse_trace_data(read_document(path), source=path)
    _assert_same(trace, slow)
    assert isinstance(read_document(path), list)
    assert load_trace(path, "generic") == trace


def test_the_structs_mirror_the_models_field_by_field() -> None:
    pairs = ((_Step, TraceStep), (_Usage, TokenUsage), (_Trace, AgentTrace))
    for struct, model in pairs:
        assert struct.__struct_fields__ == tuple(model.model_fields)


_OPTIONAL_STEP_VALUES: dict[str, Any] = {
    "parent_id": "a",
    "input_payload": {"q": 1},
    "output_payload": None,
    "status": "retry",
    "error_message": None,
    "latency_ms": 2,
    "tokens": {"total_tokens": 3},
    "metadata": {"k": [1]},
}
_OPTIONAL_USAGE_VALUES: dict[str, Any] = {
    "prompt_tokens": 1,
    "completion_tokens": None,
    "total_tokens": 4,
    "estimated_cost_usd": 0.5,
}


def _subsets(values: dict[str, Any]) -> list[dict[str, Any]]:
    names = list(values)
    return [
        {name: values[name] for i, name in enumerate(names) if mask >> i & 1}
        for mask in range(1 << len(names))
    ]


def test_every_combination_of_left_out_fields_decodes_as_validation() -> None:
    steps: list[dict[str, Any]] = [
        {"step_id": "a", "step_index": 0, "step_type": "llm_call", "name": "gpt"}
    ]
    for i, given in enumerate(_subsets(_OPTIONAL_STEP_VALUES), start=1):
        steps.append(
            {"step_id": f"s{i}", "step_index": i, "step_type": "tool_call", "name": "t", **given}
        )
    for usage in _subsets(_OPTIONAL_USAGE_VALUES):
        steps.append(
            {
                "step_id": f"u{len(steps)}",
                "step_index": len(steps),
                "step_type": "llm_call",
                "name": "gpt",
                "tokens": usage,
            }
        )
    for total in _subsets(_OPTIONAL_USAGE_VALUES):
        raw = orjson.dumps(_document(steps=steps, total_tokens=total))
        fast = decode_canonical(raw)
        assert fast is not None
        _assert_same(fast, AgentTrace.model_validate_json(raw))
        assert fast.total_tokens is not None
        assert fast.total_tokens.model_fields_set == set(total)
    assert fast is not None
    assert len({id(step.model_fields_set) for step in fast.steps}) == 1 << 8
