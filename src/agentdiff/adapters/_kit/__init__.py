"""The helpers every adapter shares, written once.

- `payloads`: payload coercion (JSON strings parsed, dicts kept, other values wrapped).
- `tokens`: one token-count reader (`usage_from(mapping, key_sets)`) and one summing helper
  (`sum_usage`).
- `ordering`: one parents-first chronological ordering (`parents_first`).
- `turns`: `metadata["turn_id"]` from step order where a source does not link a tool call to the
  model message that asked for it (`mark_turns`, `tool_call_names`).
- `shapes`: wrong JSON types as a `TraceFormatError` naming the JSON path.

Time parsing is not here: it lives in `agentdiff.timeparse`, where the engine can use it too.
"""
