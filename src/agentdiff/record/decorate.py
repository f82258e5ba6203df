"""Decorators that record each call of a function as a step: `@traced` and `@run.tool`.

The step's input is the call's arguments by parameter name (`self`/`cls` left out), its output
the return value, its status `error` with the message when the call raises (the exception still
propagates). Sync and `async def` functions are both supported. `@traced` records into the run
of the calling context and is a plain call outside any run; a run's own `@run.tool` always
records into that run, from any thread.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, cast, overload

from agentdiff.models.trace import StepType
from agentdiff.record.context import current_run
from agentdiff.record.step import step_type_of

if TYPE_CHECKING:
    from agentdiff.record.run import Run

__all__ = ["traced", "wrap"]

P = ParamSpec("P")
R = TypeVar("R")
_BOUND_NAMES = ("self", "cls")


def _arguments(signature: inspect.Signature | None, args: Any, kwargs: Any) -> dict[str, Any]:
    if signature is None:
        return {"args": list(args), "kwargs": dict(kwargs)}
    try:
        bound = signature.bind_partial(*args, **kwargs)
    except TypeError:
        return {"args": list(args), "kwargs": dict(kwargs)}
    values = dict(bound.arguments)
    first = next(iter(signature.parameters), None)
    if first in _BOUND_NAMES:
        values.pop(first, None)
    return values


def _signature(fn: Callable[..., Any]) -> inspect.Signature | None:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def wrap(
    fn: Callable[P, R], step_type: StepType | str, name: str | None, run: Run | None
) -> Callable[P, R]:
    """`fn`, recording each call as a step of `run` (or of the calling context's run).

    A `step_type` that is no `StepType` is a `ValueError` here, when decorating.
    """
    step_type = step_type_of(step_type)
    label = name or getattr(fn, "__name__", None) or repr(fn)
    signature = _signature(fn)

    if inspect.iscoroutinefunction(fn):
        async_fn = cast("Callable[P, Awaitable[Any]]", fn)

        @functools.wraps(fn)
        async def async_wrapper(*args: P.args, **kwargs: P.kwargs) -> Any:
            target = run or current_run()
            if target is None:
                return await async_fn(*args, **kwargs)
            with target.step(step_type, label, _arguments(signature, args, kwargs)) as step:
                step.output = result = await async_fn(*args, **kwargs)
                return result

        return cast("Callable[P, R]", async_wrapper)

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        target = run or current_run()
        if target is None:
            return fn(*args, **kwargs)
        with target.step(step_type, label, _arguments(signature, args, kwargs)) as step:
            step.output = result = fn(*args, **kwargs)
            return result

    return wrapper


@overload
def traced(fn: Callable[P, R], /) -> Callable[P, R]: ...
@overload
def traced(
    *, step_type: StepType | str = ..., name: str | None = ...
) -> Callable[[Callable[P, R]], Callable[P, R]]: ...
def traced(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    step_type: StepType | str = StepType.TOOL_CALL,
    name: str | None = None,
) -> Any:
    """Record each call of the function as a step of the current run (`@traced` or with options).

    `@traced(step_type="llm_call", name="plan")`; the default is a `tool_call` named after the
    function. Outside `record_run` the function runs unrecorded. An unknown `step_type` is a
    `ValueError` naming the allowed ones, raised here rather than at the first recorded call.
    """
    step_type = step_type_of(step_type)
    if fn is not None:
        return wrap(fn, step_type, name, None)
    return lambda f: wrap(f, step_type, name, None)
