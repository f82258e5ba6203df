"""`record_run`: record one run of any Python agent as a canonical `AgentTrace`.

    with record_run("weather-agent", task_input={"city": "Paris"}, path="runs/1.json") as run:
        with run.step("llm_call", "plan", {"messages": messages}) as step:
            response = client.chat.completions.create(...)
            step.record_response(response)          # tokens + model
            step.output = response.choices[0].message
        run.final_output = answer

Steps nest through `contextvars` (`agentdiff.record.context`); step ids are `step-1`,
`step-2`... in start order, so two recordings of the same path carry the same ids. The trace is
built when the block ends and written atomically to `path` when one is given. An exception that
escapes the block is recorded (as the failing step's error, else as a final `response` step
named after the agent), noted in `metadata["error"]`, and re-raised. Steps still open then are
`abandoned`.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any, ParamSpec, TypeVar, overload

from typing_extensions import Self

from agentdiff.adapters._kit.tokens import sum_usage
from agentdiff.files import write_output_file
from agentdiff.models.trace import AgentTrace, StepStatus, StepType
from agentdiff.record.context import CURRENT_RUN, CURRENT_STEP
from agentdiff.record.decorate import wrap
from agentdiff.record.step import (
    Step,
    describe_error,
    jsonable,
    optional_payload,
    payload,
    step_type_of,
    utc_now,
)

__all__ = ["Run", "StepScope", "record_run"]

P = ParamSpec("P")
R = TypeVar("R")
RECORDER = "agentdiff.record"


class StepScope:
    """`with run.step(...) as step:` (or `async with`): opens the step, closes it on exit."""

    def __init__(self, run: Run, step_type: StepType | str, name: str, input_payload: Any) -> None:
        self._run = run
        self._args = (step_type, name, input_payload)
        self._token: contextvars.Token[tuple[Run, Step] | None] | None = None
        self._step: Step | None = None

    def __enter__(self) -> Step:
        step = self._run.open_step(*self._args)
        self._step = step
        self._token = CURRENT_STEP.set((self._run, step))
        return step

    def __exit__(self, kind: object, error: BaseException | None, tb: TracebackType | None) -> None:
        if self._token is not None:
            _reset(CURRENT_STEP, self._token)
        if self._step is not None:
            if isinstance(error, asyncio.CancelledError) and self._step.status is None:
                self._step.status = StepStatus.ABANDONED
            self._step.finish(error)

    async def __aenter__(self) -> Step:
        return self.__enter__()

    async def __aexit__(
        self, kind: object, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.__exit__(kind, error, tb)


def _reset(var: contextvars.ContextVar[Any], token: contextvars.Token[Any]) -> None:
    try:
        var.reset(token)
    except ValueError:  # closed in another context (a generator resumed elsewhere)
        var.set(token.old_value if token.old_value is not contextvars.Token.MISSING else None)


class Run:
    """One recorded run; use `record_run(...)` to make one."""

    def __init__(
        self,
        agent_name: str,
        *,
        task_input: Any = None,
        path: str | Path | None = None,
        agent_version: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        self.agent_name = agent_name
        self.agent_version = agent_version
        self.task_input = task_input
        self.path = Path(path) if path is not None else None
        self.metadata: dict[str, Any] = dict(metadata or {})
        self.final_output: Any = None
        self.trace_id = uuid.uuid4().hex
        self.trace: AgentTrace | None = None
        """The finished trace, set when the `with` block ends."""
        self.error_step: Step | None = None
        """The `error` step added for an exception that escaped the run outside every step."""
        self._steps: list[Step] = []
        self._lock = threading.Lock()
        self._started_at = utc_now()
        self._clock = time.perf_counter()
        self._token: contextvars.Token[Run | None] | None = None

    # -- recording -------------------------------------------------------------------------
    def step(self, step_type: StepType | str, name: str, input: Any = None) -> StepScope:  # noqa: A002
        """A context manager recording one step (`step_type`: tool_call, llm_call, ...)."""
        return StepScope(self, step_type, name, input)

    def open_step(self, step_type: StepType | str, name: str, input_payload: Any) -> Step:
        """Start a step under the innermost open step of this run in the calling context."""
        outer = CURRENT_STEP.get()
        parent = outer[1].step_id if outer is not None and outer[0] is self else None
        with self._lock:
            index = len(self._steps)
            step = Step(f"step-{index + 1}", index, step_type, name, input_payload, parent)
            self._steps.append(step)
        return step

    @overload
    def tool(self, fn: Callable[P, R], /) -> Callable[P, R]: ...
    @overload
    def tool(self, /, *, name: str | None = ...) -> Callable[[Callable[P, R]], Callable[P, R]]: ...
    def tool(self, fn: Callable[..., Any] | None = None, /, *, name: str | None = None) -> Any:
        """Record each call of the decorated function as a `tool_call` step of this run."""
        if fn is not None:
            return wrap(fn, StepType.TOOL_CALL, name, self)
        return lambda f: wrap(f, StepType.TOOL_CALL, name, self)

    @overload
    def traced(self, fn: Callable[P, R], /) -> Callable[P, R]: ...
    @overload
    def traced(
        self, /, *, step_type: StepType | str = ..., name: str | None = ...
    ) -> Callable[[Callable[P, R]], Callable[P, R]]: ...
    def traced(
        self,
        fn: Callable[..., Any] | None = None,
        /,
        *,
        step_type: StepType | str = StepType.TOOL_CALL,
        name: str | None = None,
    ) -> Any:
        """Like `agentdiff.record.traced`, bound to this run (works from any thread)."""
        step_type = step_type_of(step_type)
        if fn is not None:
            return wrap(fn, step_type, name, self)
        return lambda f: wrap(f, step_type, name, self)

    def bind(self, fn: Callable[P, R]) -> Callable[P, R]:
        """`fn` running in a copy of the calling context: hand it to a thread or a pool."""
        captured = contextvars.copy_context()

        def bound(*args: P.args, **kwargs: P.kwargs) -> R:
            return captured.copy().run(fn, *args, **kwargs)

        return bound

    # -- the block -------------------------------------------------------------------------
    def __enter__(self) -> Self:
        self._token = CURRENT_RUN.set(self)
        return self

    def __exit__(self, kind: object, error: BaseException | None, tb: TracebackType | None) -> None:
        if self._token is not None:
            _reset(CURRENT_RUN, self._token)
        self.finish(error)

    async def __aenter__(self) -> Self:
        return self.__enter__()

    async def __aexit__(
        self, kind: object, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.__exit__(kind, error, tb)

    def finish(self, error: BaseException | None = None) -> AgentTrace:
        """Build the trace (recording `error`, if any) and write it to `path` when given."""
        if error is not None:
            self._record_error(error)
        self.trace = self.build()
        if self.path is not None:
            # the import is here: baselines loads the adapters, which the recorder never needs
            from agentdiff.baselines import canonical_json  # noqa: PLC0415

            write_output_file(self.path, canonical_json(self.trace), durable=True)
        return self.trace

    def _record_error(self, error: BaseException) -> None:
        self.metadata["error"] = describe_error(error)
        with self._lock:
            seen = any(step.error is error for step in self._steps)
        if not seen:
            step = self.open_step(StepType.RESPONSE, self.agent_name, {})
            step.status = StepStatus.ERROR
            step.finish(error)
            self.error_step = step

    def build(self) -> AgentTrace:
        """The trace as recorded so far (open steps appear as `abandoned`)."""
        with self._lock:
            steps = [step.to_trace_step() for step in self._steps]
        metadata = {
            "recorded_by": RECORDER,
            "started_at": self._started_at,
            "ended_at": utc_now(),
            **jsonable(self.metadata),
        }
        return AgentTrace(
            trace_id=self.trace_id,
            agent_name=self.agent_name,
            agent_version=self.agent_version,
            task_input=payload(self.task_input),
            final_output=optional_payload(self.final_output),
            steps=steps,
            total_latency_ms=round((time.perf_counter() - self._clock) * 1000, 3),
            total_tokens=sum_usage(s.tokens for s in steps),
            metadata=metadata,
        )


def record_run(
    agent_name: str,
    *,
    task_input: Any = None,
    path: str | Path | None = None,
    agent_version: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> Run:
    """A run to record in a `with` (or `async with`) block; see the module docstring."""
    return Run(
        agent_name,
        task_input=task_input,
        path=path,
        agent_version=agent_version,
        metadata=metadata,
    )
