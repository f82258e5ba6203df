"""The columns of the results tables (`runs`, `pairs`, `steps`), declared once.

Each table is a list of (column, DuckDB type). The JSON Lines writer emits the columns in this
order, the Parquet writers type them from here, and `docs/suites.md` documents them.
"""

from __future__ import annotations

__all__ = ["RESULTS_SCHEMA_VERSION", "TABLES", "Column"]

RESULTS_SCHEMA_VERSION = "4"
"""Version of the tables' columns (in every Parquet file's metadata as `schema_version`).

2: `runs` has a row for each run that could not be loaded too, its reason in `load_error`.
3: `runs.model_turns`: every model turn (`Summary.model_turns`), as the N-run statistics count
them; `llm_calls` counts `llm_call` steps only (LangGraph and CrewAI model turns are not).
4: `runs.folded_framework_steps`: the framework steps folded before the run was read
(`fold_framework_steps`; null when folding was off), which `steps` and the route leave out."""

Column = tuple[str, str]

_SIDE_STEP = (
    ("baseline_name", "VARCHAR"),
    ("candidate_name", "VARCHAR"),
    ("baseline_status", "VARCHAR"),
    ("candidate_status", "VARCHAR"),
)

TABLES: dict[str, tuple[Column, ...]] = {
    "runs": (
        ("side", "VARCHAR"),
        ("scenario", "VARCHAR"),
        ("run_id", "VARCHAR"),
        ("trace_id", "VARCHAR"),
        ("source", "VARCHAR"),
        ("source_format", "VARCHAR"),
        ("agent_name", "VARCHAR"),
        ("steps", "BIGINT"),
        ("tool_calls", "BIGINT"),
        ("llm_calls", "BIGINT"),
        ("model_turns", "BIGINT"),
        ("errors", "BIGINT"),
        ("retries", "BIGINT"),
        ("prompt_tokens", "BIGINT"),
        ("completion_tokens", "BIGINT"),
        ("total_tokens", "BIGINT"),
        ("cost_usd", "DOUBLE"),
        ("cost_estimated", "BOOLEAN"),
        ("latency_ms", "DOUBLE"),
        ("route_id", "VARCHAR"),
        ("route_length", "BIGINT"),
        ("load_error", "VARCHAR"),
        ("folded_framework_steps", "BIGINT"),
    ),
    "pairs": (
        ("scenario", "VARCHAR"),
        ("baseline_run_id", "VARCHAR"),
        ("candidate_run_id", "VARCHAR"),
        ("route_distance", "DOUBLE"),
        ("divergence", "DOUBLE"),
        ("first_divergence_pos", "BIGINT"),
        ("first_divergence_op", "VARCHAR"),
        ("first_divergence_name", "VARCHAR"),
        ("match", "BIGINT"),
        ("change", "BIGINT"),
        ("insert", "BIGINT"),
        ("delete", "BIGINT"),
        ("reorder", "BIGINT"),
        ("new_loops", "BIGINT"),
        ("steps_pct", "DOUBLE"),
        ("tool_calls_pct", "DOUBLE"),
        ("errors_delta", "DOUBLE"),
        ("total_tokens_pct", "DOUBLE"),
        ("cost_pct", "DOUBLE"),
        ("latency_pct", "DOUBLE"),
        ("gate_passed", "BOOLEAN"),
        ("violated_rules", "VARCHAR[]"),
    ),
    "steps": (
        ("scenario", "VARCHAR"),
        ("candidate_run_id", "VARCHAR"),
        ("position", "BIGINT"),
        ("op", "VARCHAR"),
        ("step_type", "VARCHAR"),
        *_SIDE_STEP,
        ("changed_paths", "VARCHAR[]"),
        ("baseline_latency_ms", "DOUBLE"),
        ("candidate_latency_ms", "DOUBLE"),
        ("baseline_tokens", "BIGINT"),
        ("candidate_tokens", "BIGINT"),
    ),
}
"""A pair is keyed by (scenario, candidate_run_id): each candidate run is compared once."""
