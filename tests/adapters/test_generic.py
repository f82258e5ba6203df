import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentdiff import AgentTrace, StepStatus, StepType, TokenUsage, TraceStep
from agentdiff.loader import parse_trace_data

_text = st.text(min_size=1, max_size=12)
_json_leaf = (
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | _text
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
)
_payload = st.dictionaries(
    _text,
    st.recursive(
        _json_leaf,
        lambda c: st.lists(c, max_size=3) | st.dictionaries(_text, c, max_size=3),
        max_leaves=6,
    ),
    max_size=4,
)
_count = st.none() | st.integers(0, 10**7)
_usage = st.none() | st.builds(
    TokenUsage,
    prompt_tokens=_count,
    completion_tokens=_count,
    total_tokens=_count,
    estimated_cost_usd=st.none() | st.floats(0, 100, allow_nan=False),
)


@st.composite
def traces(draw):
    n = draw(st.integers(0, 8))
    steps = []
    for i in range(n):
        parent = draw(st.none() | st.integers(0, i - 1)) if i else None
        steps.append(
            TraceStep(
                step_id=f"s{i}",
                parent_id=None if parent is None else f"s{parent}",
                step_index=i,
                step_type=draw(st.sampled_from(StepType)),
                name=draw(_text),
                input_payload=draw(_payload),
                output_payload=draw(st.none() | _payload),
                status=draw(st.sampled_from(StepStatus)),
                error_message=draw(st.none() | _text),
                latency_ms=draw(st.none() | st.floats(0, 1e6, allow_nan=False)),
                tokens=draw(_usage),
                metadata=draw(st.none() | _payload),
            )
        )
    return AgentTrace(
        trace_id=draw(_text),
        agent_name=draw(_text),
        agent_version=draw(st.none() | _text),
        task_input=draw(_payload),
        final_output=draw(st.none() | _payload),
        steps=steps,
        total_latency_ms=draw(st.none() | st.floats(0, 1e7, allow_nan=False)),
        total_tokens=draw(_usage),
        metadata=draw(st.none() | _payload),
    )


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(traces())
def test_generic_round_trip_is_exact(trace):
    wire = orjson.loads(orjson.dumps(trace.model_dump(mode="json")))
    loaded = parse_trace_data(wire)
    meta = dict(loaded.metadata or {})
    assert meta.pop("source_format") == "generic"
    assert loaded.model_copy(update={"metadata": meta or trace.metadata}) == trace


def test_convert_output_loads_back_identically(tmp_path, spec_example):
    from typer.testing import CliRunner

    from agentdiff.cli.app import app

    out = tmp_path / "canonical.json"
    result = CliRunner().invoke(app, ["convert", str(spec_example), "-o", str(out)])
    assert result.exit_code == 0, result.output
    first = parse_trace_data(orjson.loads(out.read_bytes()))
    again = tmp_path / "again.json"
    CliRunner().invoke(app, ["convert", str(out), "-o", str(again)])
    assert orjson.loads(again.read_bytes()) == orjson.loads(out.read_bytes())
    assert first.metadata == {"source_format": "generic"}
