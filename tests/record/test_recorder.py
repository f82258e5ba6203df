"""`agentdiff.record`: steps, nesting, errors, sync/async/threads, concurrent runs, files."""

from __future__ import annotations

import asyncio
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from agentdiff import StepStatus, StepType, load_trace
from agentdiff.record import current_run, current_step, record_run, traced


@traced
def add(a: int, b: int = 0) -> int:
    return a + b


@traced(step_type="llm_call", name="think")
async def think(prompt: str) -> str:
    await asyncio.sleep(0.01)
    return prompt.upper()


@traced
def explode(reason: str) -> None:
    raise ValueError(reason)


def by_name(trace, name):
    return [s for s in trace.steps if s.name == name]


def test_step_block_records_input_output_timing_and_nesting(tmp_path):
    path = tmp_path / "runs" / "1.json"
    with record_run("agent", task_input={"city": "Paris"}, path=path) as run:
        with run.step("routing", "plan", {"goal": "weather"}) as outer:
            assert current_step() is outer
            add(2, b=3)
            with run.step(StepType.LLM_CALL, "chat", {"messages": []}) as inner:
                inner.set_usage(prompt_tokens=10, completion_tokens=4)
                inner.model = "gpt-x"
                inner.output = {"text": "hi"}
        assert current_step() is None
        run.final_output = "done"
    assert current_run() is None
    trace = load_trace(path)
    assert [(s.step_id, s.parent_id, s.step_index, s.name) for s in trace.steps] == [
        ("step-1", None, 0, "plan"),
        ("step-2", "step-1", 1, "add"),
        ("step-3", "step-1", 2, "chat"),
    ]
    plan, added, chat = trace.steps
    assert added.input_payload == {"a": 2, "b": 3}
    assert added.output_payload == {"value": 5}
    assert chat.tokens is not None and chat.tokens.total_tokens == 14
    assert chat.metadata["model"] == "gpt-x"
    assert trace.total_tokens is not None and trace.total_tokens.prompt_tokens == 10
    assert trace.task_input == {"city": "Paris"} and trace.final_output == {"value": "done"}
    assert plan.metadata["started_at"] <= added.metadata["started_at"] <= plan.metadata["ended_at"]
    assert plan.latency_ms is not None and plan.latency_ms >= added.latency_ms
    assert trace.metadata["source_format"] == "generic"
    assert trace.metadata["recorded_by"] == "agentdiff.record"


def test_a_step_without_token_data_has_unknown_tokens_not_zero():
    with record_run("agent") as run:
        add(1)
    assert run.trace.total_tokens is None
    assert run.trace.steps[0].tokens is None


def test_exception_in_a_step_is_recorded_and_propagates():
    with pytest.raises(ValueError, match="no route"), record_run("agent") as run:  # noqa: PT012
        add(1)
        explode("no route to host")
    trace = run.trace
    failed = by_name(trace, "explode")[0]
    assert failed.status is StepStatus.ERROR
    assert failed.error_message == "ValueError: no route to host"
    # the step recorded it: no extra step for the same exception
    assert len(trace.steps) == 2
    assert trace.metadata["error"] == "ValueError: no route to host"


def test_exception_outside_any_step_becomes_a_final_error_step():
    with pytest.raises(KeyError), record_run("weather-agent") as run:  # noqa: PT012
        add(1)
        raise KeyError("city")
    last = run.trace.steps[-1]
    assert (last.step_type, last.name, last.status) == (
        StepType.RESPONSE,
        "weather-agent",
        StepStatus.ERROR,
    )
    assert last.error_message == "KeyError: 'city'"
    assert run.error_step is not None


def test_caught_error_inside_a_step_keeps_the_run_clean():
    with record_run("agent") as run:
        with pytest.raises(ValueError):
            explode("once")
        add(1)
    assert [s.status for s in run.trace.steps] == [StepStatus.ERROR, StepStatus.SUCCESS]
    assert "error" not in run.trace.metadata


def test_status_can_be_set_explicitly():
    with record_run("agent") as run, run.step("tool_call", "fetch") as step:
        step.status = "retry"
        step.error_message = "HTTP 503"
    assert run.trace.steps[0].status is StepStatus.RETRY
    assert run.trace.steps[0].error_message == "HTTP 503"


def test_traced_is_a_plain_call_outside_a_run():
    assert add(2, 2) == 4
    assert asyncio.run(think("x")) == "X"


def test_an_unknown_step_type_fails_when_decorating_and_names_the_choices():
    # it decorated fine and only failed inside record_run, as the agent's own call raising
    def f():
        return 1

    for decorate in (
        lambda: traced(step_type="nope"),
        lambda: traced(f, step_type="nope"),
        lambda: record_run("r").traced(step_type="nope"),
        lambda: record_run("r").traced(f, step_type="nope"),
    ):
        with pytest.raises(ValueError, match="'nope'.*tool_call, llm_call"):
            decorate()
    with record_run("r") as run:
        traced(step_type="llm_call")(f)()
    assert run.trace is not None
    assert run.trace.steps[0].step_type == StepType.LLM_CALL


def test_methods_leave_self_out_and_odd_values_become_json():
    class Tools:
        @traced
        def lookup(self, key: str, *extra: object, **options: object) -> object:
            return {"key": key, "blob": b"\xff\x00", "obj": object, "nan": float("nan")}

    with record_run("agent") as run:
        Tools().lookup("k", 1, 2, fast=True)
    step = run.trace.steps[0]
    assert step.input_payload == {"key": "k", "extra": [1, 2], "options": {"fast": True}}
    assert step.output_payload["blob"] == "_wA="
    assert step.output_payload["obj"] == "<class 'object'>"
    assert step.output_payload["nan"] is None
    json.dumps(run.trace.model_dump(mode="json"), allow_nan=False)


def test_async_steps_nest_under_their_creator_and_not_under_each_other():
    async def agent() -> None:
        run = current_run()
        assert run is not None
        async with run.step("routing", "fan-out"):
            await asyncio.gather(think("a"), think("b"), think("c"))
        await think("after")

    with record_run("agent") as run:
        asyncio.run(agent())
    steps = run.trace.steps
    fan_out = by_name(run.trace, "fan-out")[0]
    thinks = by_name(run.trace, "think")
    assert [s.parent_id for s in thinks] == [fan_out.step_id] * 3 + [None]
    assert {s.input_payload["prompt"] for s in thinks[:3]} == {"a", "b", "c"}
    assert len(steps) == 5


def test_cancelled_async_step_is_abandoned():
    async def agent() -> None:
        task = asyncio.ensure_future(think("slow"))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    with record_run("agent") as run:
        asyncio.run(agent())
    assert run.trace.steps[0].status is StepStatus.ABANDONED


def test_async_run_block():
    async def main():
        async with record_run("agent") as run:
            await think("q")
        return run

    run = asyncio.run(main())
    assert [s.name for s in run.trace.steps] == ["think"]


def test_bound_tool_records_from_any_thread_and_bind_carries_the_parent():
    with record_run("agent") as run:
        lookup = run.tool(lambda key: key * 2)
        fetch = run.tool(name="fetch")(lambda url: url)
        with run.step("routing", "plan") as plan, ThreadPoolExecutor(max_workers=4) as pool:
            list(pool.map(lookup, ["a", "b", "c"]))  # no context: roots of this run
            list(pool.map(run.bind(fetch), ["x", "y"]))  # bound: under `plan`
            list(pool.map(run.bind(add), [1, 2]))  # @traced finds the run via bind
            list(pool.map(add, [5]))  # @traced in a bare thread: not recorded
    steps = run.trace.steps
    assert sorted(s.input_payload["key"] for s in by_name(run.trace, "<lambda>")) == ["a", "b", "c"]
    assert {s.parent_id for s in by_name(run.trace, "<lambda>")} == {None}
    assert {s.parent_id for s in by_name(run.trace, "fetch")} == {plan.step_id}
    assert sorted(s.input_payload["a"] for s in by_name(run.trace, "add")) == [1, 2]
    assert len(steps) == 8
    assert sorted(s.step_index for s in steps) == list(range(8))
    assert len({s.step_id for s in steps}) == 8


def test_concurrent_runs_in_threads_never_leak_into_each_other(tmp_path):
    barrier = threading.Barrier(6)

    def one(number: int) -> None:
        with record_run(f"agent-{number}", path=tmp_path / f"{number}.json") as run:
            for i in range(20):
                if i == 5:
                    barrier.wait()
                with run.step("routing", f"outer-{number}"):
                    add(number, i)

    threads = [threading.Thread(target=one, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for number in range(6):
        trace = load_trace(tmp_path / f"{number}.json")
        assert trace.agent_name == f"agent-{number}"
        assert len(trace.steps) == 40
        assert {s.input_payload.get("a", number) for s in trace.steps} == {number}
        assert {s.name for s in trace.steps} == {f"outer-{number}", "add"}
        parents = {s.step_id: s for s in trace.steps}
        assert all(parents[s.parent_id].name == f"outer-{number}" for s in by_name(trace, "add"))


def test_concurrent_async_runs_never_leak_into_each_other():
    async def one(number: int):
        async with record_run(f"agent-{number}") as run:
            for i in range(5):
                await think(f"{number}-{i}")
                await asyncio.sleep(0)
        return run

    async def main():
        return await asyncio.gather(*(one(n) for n in range(5)))

    for number, run in enumerate(asyncio.run(main())):
        prompts = [s.input_payload["prompt"] for s in run.trace.steps]
        assert prompts == [f"{number}-{i}" for i in range(5)]


def test_a_run_inside_a_run_keeps_its_own_steps():
    with record_run("outer") as outer:
        add(1)
        with record_run("inner") as inner:
            add(2)
        add(3)
    assert [s.input_payload["a"] for s in outer.trace.steps] == [1, 3]
    assert [s.input_payload["a"] for s in inner.trace.steps] == [2]


def test_a_step_left_open_is_abandoned():
    with record_run("agent") as run:
        scope = run.step("tool_call", "hang")
        scope.__enter__()
    assert run.trace.steps[0].status is StepStatus.ABANDONED
    assert "ended_at" not in run.trace.steps[0].metadata


def test_written_atomically_and_replaced_whole(tmp_path):
    path = tmp_path / "run.json"
    path.write_text("old")
    with record_run("agent", path=path):
        add(1)
    assert json.loads(path.read_text())["agent_name"] == "agent"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json"]  # no temp file left


def test_unwritable_path_is_one_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OSError, match="file"), record_run("agent", path=blocker / "run.json"):
        add(1)


def test_recorded_file_loads_as_generic_and_compares(tmp_path):
    from agentdiff import compare

    for side, extra in (("baseline", False), ("candidate", True)):
        with record_run("agent", path=tmp_path / f"{side}.json"):
            add(1)
            if extra:
                add(2)
            add(3)
    report = compare(
        load_trace(tmp_path / "baseline.json"), load_trace(tmp_path / "candidate.json")
    )
    assert report.first_divergence is not None
    assert len([c for c in report.alignment if c.op.value == "insert"]) == 1


def test_no_file_written_without_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with record_run("agent"):
        add(1)
    assert list(Path(tmp_path).iterdir()) == []


def test_asyncio_to_thread_carries_the_run_and_parent():
    async def agent():
        run = current_run()
        async with run.step("routing", "plan") as plan:
            await asyncio.to_thread(add, 7)
        return plan

    with record_run("agent") as run:
        plan = asyncio.run(agent())
    added = by_name(run.trace, "add")[0]
    assert added.parent_id == plan.step_id
