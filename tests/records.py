"""Checks that a record built without validation is the one validation would have made."""

from __future__ import annotations

from pydantic import BaseModel


def same_internals(fast: BaseModel, slow: BaseModel) -> None:
    """`fast` (built directly) has `slow`'s (validated) type, field order, fields set, extras and
    private state."""
    assert type(fast) is type(slow)
    assert list(fast.__dict__) == list(slow.__dict__)
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.__pydantic_extra__ == slow.__pydantic_extra__
    assert fast.__pydantic_private__ == slow.__pydantic_private__


def same_record(fast: BaseModel, slow: BaseModel) -> None:
    """`same_internals`, and equal values with the same JSON."""
    same_internals(fast, slow)
    assert fast == slow
    assert fast.model_dump_json() == slow.model_dump_json()
