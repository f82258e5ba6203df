"""Capture a pool of repeated real runs for the N-vs-M statistics: `python runs_pool.py OUT_ROOT`.

One OpenAI Agents SDK agent (a support agent with the tools lookup_order / refund_payment /
search_kb / escalate) runs the same task many times. The SDK's real `OpenAIChatCompletionsModel`
talks to a real `openai.AsyncOpenAI` client whose HTTP transport is a scripted, in-process
endpoint that picks one of two plans per run with fixed probabilities (seeded), and reports
token usage with run-to-run variation: the agent loop, the tool runner and the tracing spans are
SDK code; only the model's answers are played back.

- plan A (70 %): lookup_order → refund_payment → answer
- plan B (30 %): search_kb → lookup_order → escalate → answer

Variants, 40 runs each: `baseline` and `unchanged` (the same agent, other seeds), `loop` (in
30 % of runs the model calls lookup_order with the same arguments three more times), `cost`
(the same routes, every model call reports 50 % more tokens).

Writes `OUT_ROOT/../runs_pool/<variant>/run-NN.json.gz` (`{"trace": Trace.export(), "spans":
[Span.export()...]}`, the shape `openai_agents.py` captures) and `<variant>.facts.json` (per
run: the plan the scripted model chose, whether it looped, the tokens it reported, the tool calls
the tools recorded).
"""

from __future__ import annotations

import asyncio
import gzip
import json
import random
import sys
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

import httpx2
from agents import (
    Agent,
    OpenAIChatCompletionsModel,
    RunConfig,
    Runner,
    function_tool,
    set_trace_processors,
)
from openai import AsyncOpenAI
from openai_agents import Collector  # the same in-memory trace processor

PACKAGES = ("openai-agents", "openai", "httpx2")
PRODUCED_BY = {name: version(name) for name in PACKAGES}
RUNS = 40
VARIANTS = {
    "baseline": {"seed": 1000, "loop_share": 0.0, "token_factor": 1.0},
    "unchanged": {"seed": 2000, "loop_share": 0.0, "token_factor": 1.0},
    "loop": {"seed": 3000, "loop_share": 0.3, "token_factor": 1.0},
    "cost": {"seed": 4000, "loop_share": 0.0, "token_factor": 1.5},
}
P_PLAN_A = 0.7
TASK = "Order A-1042 arrived broken. Please refund it."
ORDER = {"order_id": "A-1042"}


@dataclass
class Facts:
    """What one live run did."""

    plan: str = ""
    looped: bool = False
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


FACTS = Facts()


def _record(name: str, arguments: dict[str, Any]) -> None:
    FACTS.tool_calls.append({"name": name, "arguments": arguments})


@function_tool
def lookup_order(order_id: str) -> dict[str, Any]:
    """Look an order up."""
    _record("lookup_order", {"order_id": order_id})
    return {"order_id": order_id, "status": "delivered", "total_eur": 42.5}


@function_tool
def refund_payment(order_id: str, amount_eur: float) -> dict[str, Any]:
    """Refund (part of) an order."""
    _record("refund_payment", {"order_id": order_id, "amount_eur": amount_eur})
    return {"refund_id": "R-77", "amount_eur": amount_eur}


@function_tool
def search_kb(query: str) -> str:
    """Search the support knowledge base."""
    _record("search_kb", {"query": query})
    return "Damaged items: refund after a human check when the order is over 40 EUR."


@function_tool
def escalate(order_id: str, reason: str) -> str:
    """Hand the case to a human."""
    _record("escalate", {"order_id": order_id, "reason": reason})
    return "ticket T-9 opened"


Call = tuple[str, dict[str, Any]]


def script(rng: random.Random, loop_share: float) -> tuple[str, bool, list[list[Call] | str]]:
    """The plan, whether it loops, and the model's turns (tool calls per turn, then text)."""
    plan = "A" if rng.random() < P_PLAN_A else "B"
    looped = rng.random() < loop_share
    lookup: Call = ("lookup_order", dict(ORDER))
    if plan == "A":
        turns: list[list[Call] | str] = [[lookup]]
        turns += [[lookup]] * (3 if looped else 0)
        turns += [[("refund_payment", {**ORDER, "amount_eur": 42.5})], "Refunded 42.50 EUR."]
    else:
        turns = [[("search_kb", {"query": "damaged item refund policy"})], [lookup]]
        turns += [[lookup]] * (3 if looped else 0)
        turns += [
            [("escalate", {**ORDER, "reason": "damaged, over 40 EUR"})],
            "A colleague will check and refund you.",
        ]
    return plan, looped, turns


class ScriptedEndpoint:
    """Plays the model's turns back over HTTP, with seeded run-to-run token variation."""

    def __init__(self, turns: list[list[Call] | str], rng: random.Random, factor: float) -> None:
        self.turns = turns
        self.rng = rng
        self.factor = factor
        self.count = 0

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        self.count += 1
        jitter = self.rng.lognormvariate(0, 0.2)
        prompt = int(len(json.dumps(body, sort_keys=True)) // 4 * jitter * self.factor)
        turn = self.turns.pop(0)
        if isinstance(turn, str):
            message: dict[str, Any] = {"role": "assistant", "content": turn}
            finish, completion = "stop", len(turn) // 4
        else:
            calls = [
                {
                    "id": f"call_{self.count:04d}_{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)},
                }
                for i, (name, args) in enumerate(turn)
            ]
            message = {"role": "assistant", "content": None, "tool_calls": calls}
            finish, completion = "tool_calls", 20 + 6 * len(calls)
        completion = int(completion * jitter * self.factor)
        FACTS.llm_calls += 1
        FACTS.prompt_tokens += prompt
        FACTS.completion_tokens += completion
        return httpx2.Response(
            200,
            json={
                "id": f"chatcmpl-{self.count:04d}",
                "object": "chat.completion",
                "created": 1_780_000_000,
                "model": "gpt-4o-mini",
                "choices": [{"index": 0, "finish_reason": finish, "message": message}],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                },
            },
        )


async def run_once(variant: str, index: int, rng: random.Random) -> tuple[dict[str, Any], Facts]:
    global FACTS  # noqa: PLW0603 - the tools record into the current run's facts
    settings = VARIANTS[variant]
    plan, looped, turns = script(rng, float(settings["loop_share"]))
    FACTS = Facts(plan=plan, looped=looped)
    endpoint = ScriptedEndpoint(turns, rng, float(settings["token_factor"]))
    client = AsyncOpenAI(
        api_key="sk-offline-capture",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(endpoint)),
    )
    agent = Agent(
        name="Support Agent",
        instructions="Resolve refund requests with the tools.",
        tools=[lookup_order, refund_payment, search_kb, escalate],
        model=OpenAIChatCompletionsModel(model="gpt-4o-mini", openai_client=client),
    )
    collector = Collector()
    set_trace_processors([collector])
    config = RunConfig(
        workflow_name="support-refund",
        group_id=f"{variant}-{index:02d}",
        trace_metadata={"scenario": "refund", "variant": variant, "run": str(index)},
    )
    await Runner.run(agent, TASK, run_config=config)
    if len(collector.traces) != 1 or endpoint.turns:
        msg = f"{variant} run {index}: the script was not played to its end"
        raise RuntimeError(msg)
    export = {
        "trace": collector.traces[0].export(),
        "spans": [span.export() for span in collector.spans],
    }
    return export, FACTS


def main(out_root: Path) -> None:
    """Runs interleaved across variants (run i of every variant, then run i + 1), so that drift
    in the machine's speed while capturing shows up in every variant alike, not as a difference."""
    pool = out_root.parent / "runs_pool"
    rngs = {variant: random.Random(int(s["seed"])) for variant, s in VARIANTS.items()}
    facts: dict[str, list[dict[str, Any]]] = {variant: [] for variant in VARIANTS}
    for variant in VARIANTS:
        (pool / variant).mkdir(parents=True, exist_ok=True)
    for index in range(RUNS):
        for variant in VARIANTS:
            export, found = asyncio.run(run_once(variant, index, rngs[variant]))
            name = f"run-{index:02d}"
            data = json.dumps(export, separators=(",", ":"), ensure_ascii=False).encode()
            (pool / variant / f"{name}.json.gz").write_bytes(gzip.compress(data, mtime=0))
            facts[variant].append({"run": name, **found.__dict__})
    for variant, settings in VARIANTS.items():
        document = {
            "variant": variant,
            **settings,
            "produced_by": PRODUCED_BY,
            "runs": facts[variant],
        }
        (pool / f"{variant}.facts.json").write_text(json.dumps(document, indent=1) + "\n")
    print(f"wrote {RUNS} runs for each of {', '.join(VARIANTS)} to {pool}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
