"""Realistic synthetic run pairs for the benchmarks (seeded, deterministic).

A run is a forest of agent segments: a `routing` step (an agent taking over) whose children are
LLM turns, `thought` steps, nested sub-agent segments and sometimes a `response`; each LLM turn
has 0-3 `tool_call` children (the calls it asked for, run concurrently). About 40 tools with small
argument dicts (plus a volatile `request_id`), LLM text with token counts, ~1% failed tool calls
retried on the next turn, ISO UTC `started_at`/`ended_at` on every step.

The candidate is the baseline run again (fresh ids, request ids and clock) with ~5% of tool calls
given a different argument, ~2% of the steps deleted, ~5% inserted (extra tool calls, detour
turns, thoughts), one tool loop (the same call 4x in a row, one LLM turn each), and reworded LLM
answers and tool outputs (content, not behaviour).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import orjson

from agentdiff.models.trace import AgentTrace, StepStatus, StepType, TokenUsage, TraceStep

__all__ = ["LOOP_LENGTH", "PairFacts", "SyntheticPair", "make_pair", "write_pair"]

LOOP_LENGTH = 4
CHANGED_ARGS = 0.05
"""Share of the baseline's tool calls whose arguments the candidate changes."""
INSERTED = 0.05
DELETED = 0.02
"""Shares of the baseline's step count inserted into / deleted from the candidate."""
REWORDED = 0.3
"""Share of LLM answers and tool outputs the candidate words differently."""

_WORDS_TEXT = (
    "the order invoice refund customer account shipping delay policy weather forecast flight "
    "hotel booking report summary quarterly revenue churn ticket priority escalation "
    "database query result latency error retry plan check verify compare update status "
    "document search source citation answer draft final review approve region europe pricing "
    "discount"
)
_WORDS = tuple(_WORDS_TEXT.split())
_CITIES = ("Paris", "Berlin", "Tokyo", "Lima", "Oslo", "Cairo", "Austin", "Seoul", "Quito", "Rome")
_MODELS = ("gpt-4o-mini", "gpt-4o", "claude-3-5-sonnet", "gpt-4.1-mini")
_AGENTS = ("supervisor", "researcher", "planner", "coder", "reviewer", "billing", "support")
_TOOLS_TEXT = (
    "search_web fetch_url get_weather get_forecast lookup_order create_ticket update_ticket "
    "list_tickets get_customer update_customer search_docs read_file write_file list_files "
    "run_sql describe_table send_email send_slack get_calendar create_event convert_currency "
    "get_stock_price translate_text summarize_text classify_intent get_flight book_flight "
    "cancel_booking get_hotel book_hotel refund_payment charge_card get_invoice search_kb "
    "run_python geocode get_route get_time_zone check_inventory reserve_item"
)
_TOOLS = tuple(_TOOLS_TEXT.split())
_ARG_KEYS = ("query", "city", "limit", "units", "path", "user", "page", "lang", "amount", "filters")


def _text(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choices(_WORDS, k=rng.randint(low, high)))


def _arg_value(key: str, rng: random.Random) -> Any:
    values: dict[str, Any] = {
        "query": lambda: f"{_text(rng, 2, 5)} {rng.randint(1, 9999)}",
        "city": lambda: rng.choice(_CITIES),
        "limit": lambda: rng.randint(1, 50),
        "units": lambda: rng.choice(("metric", "imperial")),
        "path": lambda: f"/data/{rng.choice(_WORDS)}/{rng.randint(1, 999)}.csv",
        "user": lambda: rng.choice(("alice", "bob", "carol", "dave", "erin")),
        "page": lambda: rng.randint(1, 20),
        "lang": lambda: rng.choice(("en", "fr", "de", "ja", "es")),
        "amount": lambda: round(rng.uniform(1, 500), 2),
        "filters": lambda: {"status": rng.choice(("open", "closed")), "min": rng.randint(0, 9)},
    }
    return values[key]()


def _tool_args(name: str, rng: random.Random) -> dict[str, Any]:
    slot = _TOOLS.index(name)
    keys = [_ARG_KEYS[(slot + k * 3) % len(_ARG_KEYS)] for k in range(1 + slot % 4)]
    return {key: _arg_value(key, rng) for key in keys}


@dataclass(eq=False)
class Node:
    """One step before ids and times are assigned."""

    step_type: StepType
    name: str
    input_payload: dict[str, Any]
    output_payload: dict[str, Any] | None
    latency_ms: float
    tokens: TokenUsage | None = None
    status: StepStatus = StepStatus.SUCCESS
    children: list[Node] = field(default_factory=list)
    origin: int | None = None
    """Serial number of the baseline node this one was copied from (`None`: inserted)."""


def _tool(rng: random.Random, name: str | None = None, args: dict[str, Any] | None = None) -> Node:
    name = name or rng.choice(_TOOLS)
    failed = rng.random() < 0.01
    return Node(
        step_type=StepType.TOOL_CALL,
        name=name,
        input_payload=args if args is not None else _tool_args(name, rng),
        output_payload={"error": "upstream timeout"}
        if failed
        else {"result": _text(rng, 3, 12), "items": rng.randint(0, 40)},
        latency_ms=round(rng.uniform(5, 900), 3),
        status=StepStatus.ERROR if failed else StepStatus.SUCCESS,
    )


def _llm(rng: random.Random, model: str, tools: list[Node]) -> Node:
    prompt, completion = rng.randint(200, 4000), rng.randint(10, 400)
    return Node(
        step_type=StepType.LLM_CALL,
        name=model,
        input_payload={
            "model": model,
            "messages": [{"role": "user", "content": _text(rng, 8, 40)}],
            "temperature": 0.2,
        },
        output_payload={
            "content": _text(rng, 10, 60),
            "finish_reason": "tool_calls" if tools else "stop",
        },
        latency_ms=round(rng.uniform(300, 4000), 3),
        tokens=TokenUsage(
            prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
        ),
        children=tools,
    )


def _simple(rng: random.Random, step_type: StepType, name: str, payload: dict[str, Any]) -> Node:
    return Node(
        step_type=step_type,
        name=name,
        input_payload=payload,
        output_payload={"content": _text(rng, 5, 30)},
        latency_ms=round(rng.uniform(1, 50), 3),
    )


def _size(node: Node) -> int:
    return 1 + sum(_size(child) for child in node.children)


def _turn(rng: random.Random, model: str, budget: int, retry: Node | None) -> Node:
    wanted = rng.choices((0, 1, 2, 3), weights=(25, 40, 20, 15))[0]
    tools = [_tool(rng, retry.name, retry.input_payload)] if retry is not None else []
    while len(tools) < min(wanted, budget - 1):
        tools.append(_tool(rng))
    return _llm(rng, model, tools[: max(budget - 1, 0)])


def _segment(rng: random.Random, budget: int, depth: int) -> Node:
    agent = rng.choice(_AGENTS)
    model = rng.choice(_MODELS)
    root = _simple(rng, StepType.ROUTING, agent, {"task": _text(rng, 4, 15), "handoff": True})
    used = 1
    retry: Node | None = None
    for _ in range(rng.randint(2, 8)):
        if used >= budget:
            break
        child = _segment_child(rng, budget - used, depth, model, retry)
        retry = next((t for t in child.children if t.status is StepStatus.ERROR), None)
        root.children.append(child)
        used += _size(child)
    if used < budget and rng.random() < 0.3:
        root.children.append(_simple(rng, StepType.RESPONSE, "final_answer", {}))
    return root


def _segment_child(
    rng: random.Random, budget: int, depth: int, model: str, retry: Node | None
) -> Node:
    roll = rng.random()
    if retry is None and roll < 0.1 and depth < 2 and budget > 4:
        return _segment(rng, min(budget, rng.randint(5, 30)), depth + 1)
    if retry is None and roll < 0.25:
        return _simple(rng, StepType.THOUGHT, "plan", {"text": _text(rng, 5, 25)})
    return _turn(rng, model, budget, retry)


def _number(roots: list[Node]) -> list[Node]:
    """Every node in pre-order, each given its serial number as `origin`."""
    out: list[Node] = []
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        node.origin = len(out)
        out.append(node)
        stack.extend(reversed(node.children))
    return out


def baseline_tree(n_steps: int, rng: random.Random) -> list[Node]:
    """Root segments holding exactly `n_steps` steps."""
    roots: list[Node] = []
    count = 0
    while count < n_steps:
        roots.append(_segment(rng, n_steps - count, 0))
        count += _size(roots[-1])
    _number(roots)
    return roots


def _clone(node: Node) -> Node:
    return replace(node, children=[_clone(child) for child in node.children])


@dataclass
class _Slot:
    """A node of the candidate tree and the sibling list that holds it."""

    node: Node
    siblings: list[Node]


def _slots(roots: list[Node]) -> list[_Slot]:
    out: list[_Slot] = []

    def visit(siblings: list[Node]) -> None:
        for node in siblings:
            out.append(_Slot(node, siblings))
            visit(node.children)

    visit(roots)
    return out


def _of_type(slots: list[_Slot], step_type: StepType) -> list[_Slot]:
    return [s for s in slots if s.node.step_type is step_type]


def _change_args(slots: list[_Slot], rng: random.Random) -> list[Node]:
    tools = _of_type(slots, StepType.TOOL_CALL)
    chosen = rng.sample(tools, round(CHANGED_ARGS * len(tools)))
    for slot in chosen:
        node = slot.node
        key = rng.choice(sorted(node.input_payload))
        value = _arg_value(key, rng)
        while value == node.input_payload[key]:
            value = _arg_value(key, rng)
        node.input_payload = {**node.input_payload, key: value}
    return [slot.node for slot in chosen]


def _delete(slots: list[_Slot], rng: random.Random, target: int, keep: set[int]) -> list[int]:
    """Delete leaves (tool calls, thoughts) and small LLM turns; the deleted origins."""
    pool = [
        s
        for s in slots
        if s.node.step_type in (StepType.TOOL_CALL, StepType.THOUGHT, StepType.LLM_CALL)
        and len(s.node.children) <= 1
        and not {id(s.node), *map(id, s.node.children)} & keep
    ]
    deleted: list[int] = []
    for slot in rng.sample(pool, len(pool)):
        if len(deleted) >= target:
            break
        gone = [slot.node, *slot.node.children]
        if len(deleted) + len(gone) > target or slot.node not in slot.siblings:
            continue
        slot.siblings.remove(slot.node)
        deleted.extend(n.origin for n in gone if n.origin is not None)
    return deleted


def _insert(slots: list[_Slot], rng: random.Random, target: int) -> list[Node]:
    """Extra tool calls in existing turns, detour turns and extra thoughts."""
    turns = [s.node for s in _of_type(slots, StepType.LLM_CALL) if s.node.children]
    agents = [s.node for s in _of_type(slots, StepType.ROUTING)]
    inserted: list[Node] = []
    while len(inserted) < target:
        roll = rng.random()
        if roll < 0.4:
            new = [_tool(rng)]
            rng.choice(turns).children.append(new[0])
        else:
            new = _detour(rng) if roll < 0.8 or target - len(inserted) < 2 else []
            new = new or [_simple(rng, StepType.THOUGHT, "plan", {"text": _text(rng, 5, 25)})]
            agent = rng.choice(agents)
            agent.children.insert(rng.randint(0, len(agent.children)), new[0])
        inserted.extend(n for top in new for n in (top, *top.children))
    return inserted


def _detour(rng: random.Random) -> list[Node]:
    return [_llm(rng, rng.choice(_MODELS), [_tool(rng)])]


def _add_loop(
    slots: list[_Slot], rng: random.Random, keep: set[int]
) -> tuple[list[Node], list[Node]]:
    """After a one-call turn, LOOP_LENGTH - 1 more turns making the very same call.

    Returns the LOOP_LENGTH calls and the inserted nodes.
    """
    middle = slots[len(slots) // 3 : 2 * len(slots) // 3] or slots
    for slot in rng.sample(middle, len(middle)):
        turn = slot.node
        if _loop_anchor(slot, keep):
            call = turn.children[0]
            at = slot.siblings.index(turn) + 1
            repeats = [
                _llm(rng, turn.name, [replace(call, input_payload=dict(call.input_payload))])
                for _ in range(LOOP_LENGTH - 1)
            ]
            slot.siblings[at:at] = repeats
            calls = [call, *(r.children[0] for r in repeats)]
            return calls, [n for r in repeats for n in (r, *r.children)]
    msg = "no LLM turn with a single successful tool call to loop on"
    raise ValueError(msg)


def _loop_anchor(slot: _Slot, keep: set[int]) -> bool:
    turn = slot.node
    if turn.step_type is not StepType.LLM_CALL or len(turn.children) != 1:
        return False
    call = turn.children[0]
    if call.status is not StepStatus.SUCCESS or id(call) in keep or turn not in slot.siblings:
        return False
    before = slot.siblings[: slot.siblings.index(turn)]
    return not any(c.name == call.name for prev in before[-1:] for c in prev.children)


class _Emitter:
    """Turns a node forest into `TraceStep`s: fresh ids, a running clock, pre-order indexes."""

    def __init__(self, rng: random.Random, clock: float) -> None:
        self.rng = rng
        self.clock = clock
        self.steps: list[TraceStep | None] = []
        self.ids: dict[int, str] = {}

    def emit(self, node: Node, parent_id: str | None) -> None:
        step_id = f"{self.rng.getrandbits(64):016x}"
        self.ids[id(node)] = step_id
        index = len(self.steps)
        self.steps.append(None)
        start = self.clock
        if node.step_type is StepType.ROUTING:
            self.clock += node.latency_ms / 1000
            for child in node.children:
                self.emit(child, step_id)
            end = self.clock
        else:
            end = start + node.latency_ms / 1000
            self.clock = end
            self._concurrent(node.children, step_id)
        self.steps[index] = self._step(node, step_id, parent_id, index, (start, end))
        self.clock += self.rng.uniform(0.001, 0.02)

    def _concurrent(self, calls: list[Node], parent_id: str) -> None:
        """Tool calls of one LLM turn: started together, each taking its own time."""
        start, ends = self.clock, [self.clock]
        for call in calls:
            self.clock = start + self.rng.uniform(0, 0.005)
            self.emit(call, parent_id)
            ends.append(self.clock)
        self.clock = max(ends)

    def _step(
        self, node: Node, step_id: str, parent_id: str | None, index: int, span: tuple[float, float]
    ) -> TraceStep:
        payload = node.input_payload
        if node.step_type is StepType.TOOL_CALL:
            payload = {"request_id": f"{self.rng.getrandbits(64):016x}", **payload}
        return TraceStep(
            step_id=step_id,
            parent_id=parent_id,
            step_index=index,
            step_type=node.step_type,
            name=node.name,
            input_payload=payload,
            output_payload=node.output_payload,
            status=node.status,
            error_message="upstream timeout" if node.status is StepStatus.ERROR else None,
            latency_ms=round((span[1] - span[0]) * 1000, 3),
            tokens=node.tokens,
            metadata={"started_at": _iso(span[0]), "ended_at": _iso(span[1])},
        )


def _iso(seconds: float) -> str:
    moment = datetime.fromtimestamp(seconds, tz=timezone.utc)
    return moment.isoformat(timespec="microseconds").replace("+00:00", "Z")


def _trace(
    roots: list[Node], rng: random.Random, version: str, clock: float
) -> tuple[AgentTrace, dict[int, str]]:
    emitter = _Emitter(rng, clock)
    for root in roots:
        emitter.emit(root, None)
    steps = [s for s in emitter.steps if s is not None]
    trace = AgentTrace(
        trace_id=f"{rng.getrandbits(128):032x}",
        agent_name="support-bot",
        agent_version=version,
        task_input={"question": "Why was order 4412 refunded twice, and what should we do?"},
        final_output={"answer": _text(rng, 20, 60)},
        steps=steps,
        metadata={"generator": "benchmarks/synthetic.py"},
    )
    return trace, emitter.ids


@dataclass(frozen=True)
class PairFacts:
    """What the candidate's derivation did, by step id (ground truth for tests)."""

    changed: tuple[str, ...]
    """Candidate tool calls whose arguments differ from their baseline call."""
    inserted: tuple[str, ...]
    """Candidate steps with no baseline counterpart (the loop's repeats included)."""
    deleted: tuple[str, ...]
    """Baseline steps the candidate does not have."""
    loop: tuple[str, ...]
    """The LOOP_LENGTH identical candidate calls, in order."""
    loop_tool: str


@dataclass(frozen=True)
class SyntheticPair:
    """A baseline run, a candidate derived from it, and what the derivation did."""

    baseline: AgentTrace
    candidate: AgentTrace
    facts: PairFacts


def _reword(slots: list[_Slot], rng: random.Random) -> None:
    """Content only: LLM answers and tool outputs worded differently."""
    for slot in slots:
        node = slot.node
        if node.output_payload and node.status is StepStatus.SUCCESS and rng.random() < REWORDED:
            text_key = "content" if "content" in node.output_payload else "result"
            if text_key in node.output_payload:
                node.output_payload = {**node.output_payload, text_key: _text(rng, 10, 40)}


def make_pair(n_steps: int, seed: int = 0) -> SyntheticPair:
    """A baseline of exactly `n_steps` steps and its candidate (deterministic in `seed`)."""
    rng = random.Random(seed)
    roots = baseline_tree(n_steps, rng)
    mutate = random.Random(f"{seed}-candidate")
    cand_roots = [_clone(root) for root in roots]
    changed = _change_args(_slots(cand_roots), mutate)
    keep = {id(n) for n in changed}
    deleted = _delete(_slots(cand_roots), mutate, round(DELETED * n_steps), keep)
    inserted = _insert(_slots(cand_roots), mutate, round(INSERTED * n_steps))
    loop, repeats = _add_loop(_slots(cand_roots), mutate, keep)
    _reword(_slots(cand_roots), mutate)
    baseline, base_ids = _trace(roots, random.Random(f"{seed}-ids-b"), "1.4.0", 1_767_225_600.0)
    candidate, cand_ids = _trace(
        cand_roots, random.Random(f"{seed}-ids-c"), "1.5.0", 1_767_312_000.0
    )
    by_origin = {s.node.origin: base_ids[id(s.node)] for s in _slots(roots)}
    facts = PairFacts(
        changed=tuple(cand_ids[id(n)] for n in changed),
        inserted=tuple(cand_ids[id(n)] for n in [*inserted, *repeats]),
        deleted=tuple(by_origin[o] for o in deleted),
        loop=tuple(cand_ids[id(n)] for n in loop),
        loop_tool=loop[0].name,
    )
    return SyntheticPair(baseline, candidate, facts)


def write_pair(pair: SyntheticPair, directory: Path) -> tuple[Path, Path]:
    """The pair as canonical JSON files `baseline.json` and `candidate.json` in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = directory / "baseline.json", directory / "candidate.json"
    for trace, path in zip((pair.baseline, pair.candidate), paths, strict=True):
        path.write_bytes(orjson.dumps(trace.model_dump(mode="json")))
    return paths
