"""Synthetic repeated runs of one agent task, for the N-vs-M benchmark and tests.

An agent picks plan A (lookup → refund) or plan B (search → lookup → escalate) with fixed
probabilities; cost and latency vary log-normally run to run; variants plant a loop in a share
of runs or scale the cost. Seeded: the same arguments give the same traces.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from agentdiff.models.trace import AgentTrace, StepType, TokenUsage, TraceStep

PLANS = {
    "A": ["lookup_order", "refund_payment"],
    "B": ["search_kb", "lookup_order", "escalate"],
}


@dataclass(frozen=True)
class Variant:
    """How a candidate differs from the baseline agent."""

    p_plan_a: float = 0.7
    loop_share: float = 0.0
    cost_factor: float = 1.0
    extra_tools: int = 0
    """Filler tool calls per run (for longer, benchmark-sized runs)."""


def make_run(rng: random.Random, run_id: str, variant: Variant = Variant()) -> AgentTrace:
    """One run of the agent."""
    plan = PLANS["A" if rng.random() < variant.p_plan_a else "B"]
    tools = list(plan)
    if variant.loop_share and rng.random() < variant.loop_share:
        tools[1:1] = [tools[0]] * 3
    tools[1:1] = [f"fetch_{k}" for k in range(variant.extra_tools)]
    steps: list[TraceStep] = []
    clock = 0.0
    scale = variant.cost_factor * rng.lognormvariate(0, 0.25)

    def add(kind: StepType, name: str, **extra: object) -> None:
        nonlocal clock
        took = rng.lognormvariate(5.5, 0.3)
        steps.append(
            TraceStep(
                step_id=f"{run_id}-{len(steps)}",
                step_index=len(steps),
                step_type=kind,
                name=name,
                latency_ms=took,
                metadata={"started_at": clock, "ended_at": clock + took / 1000},
                **extra,  # type: ignore[arg-type]
            )
        )
        clock += took / 1000

    for tool in ["plan", *tools]:
        if True:
            prompt = int(400 * scale)
            add(
                StepType.LLM_CALL,
                "gpt-4o-mini",
                tokens=TokenUsage(
                    prompt_tokens=prompt, completion_tokens=60, total_tokens=prompt + 60
                ),
            )
        if tool != "plan":
            add(StepType.TOOL_CALL, tool, input_payload={"order": "A-1"})
    add(StepType.RESPONSE, "answer", output_payload={"text": "done"})
    return AgentTrace(trace_id=run_id, agent_name="support", steps=steps)


def make_runs(
    seed: int, count: int, variant: Variant = Variant(), prefix: str = "run"
) -> list[AgentTrace]:
    """`count` seeded runs."""
    rng = random.Random(seed)
    return [make_run(rng, f"{prefix}-{i}", variant) for i in range(count)]
