"""The helpers every adapter shares, written once.

- `payloads`: payload coercion (JSON strings parsed, dicts kept, other values wrapped).
- `tokens`: one token-count reader (`usage_from(mapping, key_sets)`) and one summing helper
  (`sum_usage`).
- `ordering`: one parents-first chronological ordering (`parents_first`).

Time parsing is not here: it lives in `agentdiff.timeparse`, where the engine can use it too.
"""
