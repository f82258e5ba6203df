import networkx as nx
import pytest
from pydantic import ValidationError

from agentdiff import AgentTrace, StepStatus, StepType, TokenUsage, TraceStep, load_trace
from agentdiff.loader import parse_trace_data


def _step(step_id: str, parent: str | None = None, index: int = 0, **extra) -> dict:
    return {
        "step_id": step_id,
        "parent_id": parent,
        "step_index": index,
        "step_type": "tool_call",
        "name": "t",
        **extra,
    }


def _trace(*steps: dict, **extra) -> dict:
    return {"trace_id": "t1", "agent_name": "a", "steps": list(steps), **extra}


def test_spec_example_loads_both_ways(spec_example):
    import orjson

    by_file = load_trace(spec_example)
    by_data = parse_trace_data(orjson.loads(spec_example.read_bytes()), adapter_name="generic")
    for trace in (by_file, by_data):
        assert list(nx.topological_sort(trace.to_networkx())) == ["step-1", "step-2"]
        assert trace.steps[1].tokens == TokenUsage(
            prompt_tokens=150, completion_tokens=80, total_tokens=230, estimated_cost_usd=0.0035
        )
        assert trace.metadata == {"source_format": "generic"}


def test_graph_carries_step_fields_as_node_attributes(spec_example):
    graph = load_trace(spec_example).to_networkx()
    assert graph.nodes["step-2"]["name"] == "generate_report"
    assert graph.nodes["step-2"]["step_type"] is StepType.LLM_CALL
    assert list(graph.edges) == [("step-1", "step-2")]


def test_optional_fields_accept_explicit_null():
    trace = AgentTrace.model_validate(
        _trace(
            _step(
                "a",
                output_payload=None,
                error_message=None,
                latency_ms=None,
                tokens=None,
                metadata=None,
            ),
            agent_version=None,
            final_output=None,
            total_latency_ms=None,
            total_tokens=None,
            metadata=None,
        )
    )
    assert trace.total_tokens is None
    assert trace.steps[0].status is StepStatus.SUCCESS


def test_unknown_is_not_zero():
    usage = TokenUsage(prompt_tokens=10, completion_tokens=5, total_tokens=15)
    assert usage.estimated_cost_usd is None
    assert TokenUsage().is_empty
    assert AgentTrace(trace_id="x", agent_name="y").total_tokens is None


@pytest.mark.parametrize(
    "bad",
    [
        {"latency_ms": float("nan")},
        {"latency_ms": -1.0},
        {"tokens": {"prompt_tokens": -3}},
        {"tokens": {"estimated_cost_usd": float("inf")}},
    ],
)
def test_nan_and_negative_numbers_are_rejected(bad):
    with pytest.raises(ValidationError):
        AgentTrace.model_validate(_trace(_step("a", **bad)))


def test_duplicate_step_ids_name_the_steps():
    with pytest.raises(
        ValidationError, match=r"duplicate step_id 'a' at steps\[0\] and steps\[1\]"
    ):
        AgentTrace.model_validate(_trace(_step("a"), _step("a", index=1)))


def test_parent_cycle_names_the_steps():
    with pytest.raises(ValidationError, match="parent cycle between steps: a -> b -> a"):
        AgentTrace.model_validate(_trace(_step("a", "b"), _step("b", "a", 1)))


def test_self_parent_is_a_cycle():
    with pytest.raises(ValidationError, match="parent cycle"):
        AgentTrace.model_validate(_trace(_step("a", "a")))


def test_dangling_parent_is_kept_as_root_with_a_warning():
    trace = AgentTrace.model_validate(_trace(_step("a", "ghost"), _step("b", "a", 1)))
    assert trace.steps[0].parent_id == "ghost"
    assert trace.metadata == {"warnings": ["dangling parent_id kept as root: ghost"]}
    graph = trace.to_networkx()
    assert list(graph.edges) == [("a", "b")]
    assert "ghost" not in graph


def test_unknown_fields_are_rejected():
    with pytest.raises(ValidationError, match="stepp_type|Extra inputs"):
        AgentTrace.model_validate(_trace({**_step("a"), "stepp_type": "x"}))


def test_response_step_type_exists():
    step = TraceStep(step_id="r", step_index=0, step_type=StepType.RESPONSE, name="final")
    assert step.step_type.value == "response"
    assert step.input_payload == {}


def test_report_record_builders_give_what_the_constructors_give():
    """`StepRef.of`, `Aligned.of` and `Change.of` build through a mutable twin turned into
    the record's class: the result must be the frozen record itself, equal, hashable alike,
    picklable and validated and dumped by pydantic as one built by its constructor."""
    import dataclasses
    import pickle

    from pydantic import TypeAdapter

    from agentdiff.models.report import (
        Aligned,
        Change,
        Op,
        StepRef,
        _RefOfFields,
        cut_error,
        new_step_ref,
    )

    step = TraceStep.model_validate(
        _step("s1", "p0", 3, status="error", error_message="boom " * 500, input_payload={"q": 1})
    )
    ref = StepRef.of(step)
    plain = StepRef("s1", "p0", 3, StepType.TOOL_CALL, "t", StepStatus.ERROR, ref.error_message)
    assert ref.error_message is not None and ref.error_message.endswith("…")
    change = Change.of("input_payload.q", "argument", 1, 2)
    entry = Aligned.of(Op.CHANGE, ref, ref, [change], 4)
    cut = cut_error("boom " * 500)
    assert cut == ref.error_message and cut_error("boom") == "boom"
    built = [
        (ref, plain),
        (change, Change("input_payload.q", "argument", 1, 2)),
        (entry, Aligned(Op.CHANGE, plain, plain, [Change("input_payload.q", "argument", 1, 2)], 4)),
        (new_step_ref("s1", "p0", 3, StepType.TOOL_CALL, "t", StepStatus.ERROR, cut), plain),
    ]
    for fast, slow in built:
        assert type(fast) is type(slow)
        assert fast == slow and repr(fast) == repr(slow)
        assert pickle.loads(pickle.dumps(fast)) == slow  # noqa: S301 - our own bytes
        adapter = TypeAdapter(type(slow))
        assert adapter.dump_json(fast) == adapter.dump_json(slow)
        assert adapter.validate_python(adapter.dump_python(fast)) == slow
        with pytest.raises(dataclasses.FrozenInstanceError):
            fast.__setattr__(dataclasses.fields(fast)[0].name, None)
    assert hash(ref) == hash(plain) and hash(change) == hash(built[1][1])
    # `StepRef.of_fields` is a hand-written twin: it must set every field of the record
    assert sorted(_RefOfFields.__slots__) == sorted(f.name for f in dataclasses.fields(StepRef))
