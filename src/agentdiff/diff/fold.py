"""Fold framework-internal chain steps into their parent (`fold_framework_steps`, off by default).

LangChain-instrumented traces (LangSmith runs, OpenInference LangChain spans) record every
runnable the framework composes: `RunnableSequence`, prompt templates, routing lambdas such as
LangGraph's `should_continue`, channel reads and writes. They are plumbing, not behaviour; folding
them gives shorter reports. A folded step is a `routing` step recorded as a LangChain chain (run
type `chain` or span kind `CHAIN`) whose name is in `FRAMEWORK_STEPS` (or starts with one of
`FRAMEWORK_PREFIXES`); its children move up to its parent. Nothing else changes: every kept
step keeps its `step_index` (the one the trace as given, and `agentdiff inspect` of it, shows),
and a trace with no such step comes back as the same object. `compare` reports a moved step's
place in the run as given, not in the folded copy (`diff.compare`). `compare-runs`, `routes` and
`suite` fold each run once (`scenario.pairs.PairComparer`) and read everything of the folded copy.
"""

from __future__ import annotations

from agentdiff.models.trace import AgentTrace, StepType, TraceStep

__all__ = ["FRAMEWORK_PREFIXES", "FRAMEWORK_STEPS", "fold_framework_steps", "is_framework_step"]

FRAMEWORK_STEPS = frozenset(
    (
        "RunnableSequence",
        "RunnableLambda",
        "RunnableParallel",
        "RunnablePassthrough",
        "RunnableAssign",
        "RunnablePick",
        "RunnableBranch",
        "RunnableCallable",
        "RunnableWithFallbacks",
        "RunnableEach",
        "RunnableBinding",
        "Prompt",
        "PromptTemplate",
        "ChatPromptTemplate",
        "should_continue",
        "route_tools",
        "tools_condition",
        "ChannelRead",
        "ChannelWrite",
        "__start__",
        "__end__",
    )
)
"""Names of LangChain / LangGraph plumbing steps."""
FRAMEWORK_PREFIXES = ("RunnableParallel<", "RunnableAssign<", "ChannelWrite<", "RunnableLambda<")
_CHAIN_KINDS = frozenset(("chain", "CHAIN"))


def is_framework_step(step: TraceStep) -> bool:
    """A routing step recorded as a LangChain chain whose name is framework plumbing."""
    if step.step_type is not StepType.ROUTING:
        return False
    meta = step.metadata or {}
    if meta.get("run_type") not in _CHAIN_KINDS and meta.get("span_kind") not in _CHAIN_KINDS:
        return False
    return step.name in FRAMEWORK_STEPS or step.name.startswith(FRAMEWORK_PREFIXES)


def fold_framework_steps(trace: AgentTrace) -> AgentTrace:
    """The trace without framework plumbing steps, their children moved to their parent."""
    folded = {s.step_id: s.parent_id for s in trace.steps if is_framework_step(s)}
    if not folded:
        return trace

    def kept_parent(parent: str | None) -> str | None:
        seen: set[str] = set()
        while parent in folded and parent not in seen:
            seen.add(parent)
            parent = folded[parent]
        return parent

    steps = [
        s.model_copy(update={"parent_id": kept_parent(s.parent_id)})
        for s in trace.steps
        if s.step_id not in folded
    ]
    metadata = {**(trace.metadata or {}), "folded_framework_steps": len(folded)}
    return trace.model_copy(update={"steps": steps, "metadata": metadata})
