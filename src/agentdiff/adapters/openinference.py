"""The `openinference` adapter: OTel spans (OpenInference or GenAI semconv) → `AgentTrace`.

Inputs: span JSON (Python `ReadableSpan.to_json()`, Phoenix, JavaScript `ReadableSpan` dumps;
a list, `{"spans": [...]}`, `{"data": [...]}` or one span), or OTLP/JSON (one `TracesData`
document, or a list of them from JSON Lines; hex or base64 ids); decoding is
`otel.documents.decode_spans`, the meaning of each span is `otel.semconv.describe_span` (its
docstring holds the step-type table).

- **Steps.** One per span carrying OpenInference or GenAI attributes. Other spans (HTTP/DB
  clients, framework internals) are dropped unless they wrap the agent from outside (agent spans
  below, none above: kept as `routing`); children of a dropped span hang under its nearest kept
  ancestor; `metadata["dropped_spans"]` counts the drops and `metadata["dropped_span_names"]`
  names them (`agentdiff inspect` shows both).
- **Times.** A span whose end is before its start, or that lasts more than 30 days (a missing
  start read as the epoch, mixed units), has unknown times and latency, and the trace says so in
  `metadata["warnings"]`.
- **Turns.** A tool step requested by an LLM step (matched by tool-call id, else by name) gets
  `metadata["turn_id"]` = that LLM step's id: the calls one model message issued share it. A
  tool span recorded beside that LLM span (same parent, as the Vercel AI SDK writes them) is
  nested under it (`metadata["recorded_parent_id"]` keeps the recorded parent).
- **Roots** are spans without a parent or whose parent is not in the file (kept in step metadata
  as `otel_parent_id`).
- **Order.** `step_index` follows start time, parents before children, then file order.
- **Tool arguments** come from the tool span (`gen_ai.tool.call.arguments`, `input.value`); when
  that is not a JSON object (LangChain passes a single-argument tool its bare value) they are
  taken from the LLM tool call that requested it: by tool-call id, else the oldest unanswered
  call of that tool name (`metadata["arguments_from"] = "llm_tool_call"`).
- **Tokens** come from LLM steps only, so wrappers repeating their children's usage
  (`gen_ai.aggregated_usage.*`, chain outputs) are never counted twice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from agentdiff.adapters._kit.payloads import as_optional_payload, as_payload, parse_json_string
from agentdiff.adapters._kit.tokens import sum_usage
from agentdiff.adapters.base import BaseAdapter
from agentdiff.adapters.otel import documents
from agentdiff.adapters.otel.otlp_json import is_otlp
from agentdiff.adapters.otel.pending import PendingCalls
from agentdiff.adapters.otel.semconv import SpanFacts, describe_span, requested_tool_calls
from agentdiff.adapters.otel.span_json import is_span_json
from agentdiff.adapters.otel.tree import SpanTree, impossible_times
from agentdiff.errors import TraceFormatError
from agentdiff.models.compact import Store
from agentdiff.models.trace import AgentTrace, StepType, TokenUsage, TraceStep
from agentdiff.timeparse import duration_ms, timing_metadata, wall_clock_ms

if TYPE_CHECKING:
    from agentdiff.adapters.otel.span import OtelSpan

__all__ = ["OpenInferenceAdapter"]

_AGENT_KINDS = ("AGENT", "genai:invoke_agent", "genai:create_agent")


class OpenInferenceAdapter(BaseAdapter):
    """OTel spans with OpenInference or GenAI-semconv attributes (span JSON, OTLP/JSON, JSONL)."""

    name: ClassVar[str] = "openinference"
    aliases: ClassVar[tuple[str, ...]] = ("otel", "otlp", "phoenix", "genai")
    description: ClassVar[str] = (
        "OpenTelemetry spans (OpenInference / GenAI semconv): span-JSON lists, OTLP/JSON, JSONL"
    )

    @classmethod
    def detect(cls, data: Any) -> bool:
        """OTLP documents and span JSON, except Langfuse-flavoured spans."""
        if not (is_otlp(data) or is_span_json(data)):
            return False
        keys = documents.sample_attribute_keys(data)
        return not any(key.startswith("langfuse.") for key in keys)

    @classmethod
    def trace_ids(cls, data: Any) -> list[str]:
        """Distinct trace ids, in order of first appearance (spans without one are not counted)."""
        return documents.trace_ids(data)

    @classmethod
    def select_trace(cls, data: Any, trace_id: str) -> Any:
        """The same document holding only the spans of `trace_id`."""
        return documents.select_trace(data, trace_id)

    @classmethod
    def split_traces(cls, data: Any) -> list[tuple[str, Any]]:
        """Each trace id with its part of the document, in one pass (`documents.split_traces`)."""
        return documents.split_traces(data)

    @classmethod
    def from_dict(cls, data: Any) -> AgentTrace:
        """Decode the spans and build the trace."""
        if not (is_otlp(data) or isinstance(data, list) or is_span_json(data)):
            msg = (
                "expected OTLP/JSON (an object with resourceSpans) or span objects (a list, "
                "{spans: [...]}, {data: [...]} or one span)"
            )
            raise TraceFormatError(msg)
        return cls.from_spans(documents.decode_spans(data))

    @classmethod
    def from_spans(cls, spans: list[OtelSpan]) -> AgentTrace:
        """Build the trace from decoded spans (OTLP JSON Lines are decoded as they are read)."""
        if not spans:
            msg = "the document holds no spans; expected at least one span"
            hint = "was the exporter flushed before the file was written?"
            raise TraceFormatError(msg, hint=hint)
        return _TraceBuilder(spans).build()


class _TraceBuilder:
    """Builds one `AgentTrace` from decoded spans."""

    def __init__(self, spans: list[OtelSpan]) -> None:
        self.warnings = impossible_times(spans)
        self.facts = {s.span_id: f for s in spans if (f := describe_span(s)) is not None}
        self.tree = SpanTree(spans, keep=set(self.facts))
        self.pending_calls = PendingCalls()
        self.step_store = Store(TraceStep)
        self.usage_store = Store(TokenUsage)

    def build(self) -> AgentTrace:
        """The trace: what it reads of all spans first, then one step per span.

        Each span is released as its step is built, so a million spans and their steps never
        coexist whole.
        """
        ordered = self.tree.ordered()
        roots = self.tree.roots()
        root_facts = self.facts.get(roots[0].span_id) if len(roots) == 1 else None
        root = ordered[0] if ordered else self.tree.spans[0]
        agent_name = self._agent_name(ordered, roots)
        latency = wall_clock_ms(
            (s.start for s in self.tree.spans), (s.end for s in self.tree.spans)
        )
        metadata = self._trace_metadata(root)
        for span in self.tree.spans:
            if span.span_id not in self.tree.kept:
                _release(span)
        steps = [self._settled(self._step(index, span), span) for index, span in enumerate(ordered)]
        return AgentTrace(
            trace_id=root.trace_id or root.span_id,
            agent_name=agent_name,
            task_input=self._task_input(steps, root_facts),
            final_output=self._final_output(steps, root_facts),
            steps=steps,
            total_latency_ms=latency,
            total_tokens=sum_usage(s.tokens for s in steps),
            metadata=metadata,
        )

    def _settled(self, step: TraceStep, span: OtelSpan) -> TraceStep:
        """`step` in compact storage, its span released (the tree reads only ids after it)."""
        self.step_store.repack(step)
        if step.tokens is not None:
            self.usage_store.repack(step.tokens)
        self.facts.pop(span.span_id, None)
        _release(span)
        return step

    def _step(self, index: int, span: OtelSpan) -> TraceStep:
        facts = self.facts.get(span.span_id) or _plain_span_facts(span)
        metadata: dict[str, Any] = {
            **timing_metadata(span.start, span.end),
            "span_id": span.span_id,
            "trace_id": span.trace_id,
            "span_kind": facts.kind,
            "otel_kind": span.kind,
            **facts.extra,
        }
        if span.parent_id and span.parent_id not in self.tree.by_id:
            metadata["otel_parent_id"] = span.parent_id
        input_payload = as_payload(facts.input_value)
        if facts.step_type is StepType.LLM_CALL:
            calls = requested_tool_calls(span)
            for call in calls:
                self.pending_calls.add({**call, "turn_id": span.span_id})
        elif facts.step_type is StepType.TOOL_CALL:
            input_payload = self._tool_arguments(facts, input_payload, metadata)
        return TraceStep(
            step_id=span.span_id,
            parent_id=self._parent(span, metadata),
            step_index=index,
            step_type=facts.step_type,
            name=facts.name,
            input_payload=input_payload,
            output_payload=as_optional_payload(facts.output_value),
            status="error" if span.status_code == "ERROR" else "success",
            error_message=facts.error_message,
            latency_ms=duration_ms(span.start, span.end),
            tokens=facts.tokens,
            metadata=metadata,
        )

    def _tool_arguments(
        self, facts: SpanFacts, payload: dict[str, Any], metadata: dict[str, Any]
    ) -> dict[str, Any]:
        call_id = facts.tool_call_id or _tool_call_id_in_output(facts.output_value)
        if call_id:
            metadata["tool_call_id"] = call_id
        call = self.pending_calls.take(call_id, facts.name)
        if call is not None:
            metadata["turn_id"] = call["turn_id"]
        if isinstance(parse_json_string(facts.input_value), dict) or call is None:
            return payload
        if isinstance(call["arguments"], dict):
            metadata["arguments_from"] = "llm_tool_call"
            metadata["raw_input"] = facts.input_value
            return dict(call["arguments"])
        return payload

    def _parent(self, span: OtelSpan, metadata: dict[str, Any]) -> str | None:
        """The kept parent; a tool span beside the LLM span that asked for it goes under it.

        The Vercel AI SDK (and others) record a tool call as a sibling of the model call that
        requested it; nested under it, the call sits where the other sources put it, and the
        model call and its tool calls are never taken for steps that ran at the same time.
        """
        parent = self.tree.kept_parent(span)
        turn = metadata.get("turn_id")
        if turn in self.tree.by_id and self.tree.kept_parent(self.tree.by_id[turn]) == parent:
            metadata["recorded_parent_id"] = parent
            return str(turn)
        return parent

    def _agent_name(self, ordered: list[OtelSpan], roots: list[OtelSpan]) -> str:
        for span in ordered:
            facts = self.facts.get(span.span_id)
            if facts is not None and facts.kind in _AGENT_KINDS:
                return facts.name
        for span in self.tree.spans:
            attrs = span.attributes
            name = (
                attrs.get("gen_ai.agent.name")
                or attrs.get("ai.telemetry.functionId")
                or span.resource.get("service.name")
            )
            if name:
                return str(name)
        return roots[0].name if roots else "unknown"

    def _task_input(self, steps: list[TraceStep], root: SpanFacts | None) -> dict[str, Any]:
        if root is not None and root.input_value is not None:
            return as_payload(root.input_value)
        first_llm = next((s for s in steps if s.step_type is StepType.LLM_CALL), None)
        return dict(first_llm.input_payload) if first_llm is not None else {}

    def _final_output(
        self, steps: list[TraceStep], root: SpanFacts | None
    ) -> dict[str, Any] | None:
        if root is not None and root.output_value is not None:
            return as_optional_payload(root.output_value)
        last_llm = next((s for s in reversed(steps) if s.step_type is StepType.LLM_CALL), None)
        return last_llm.output_payload if last_llm is not None else None

    def _trace_metadata(self, root: OtelSpan) -> dict[str, Any]:
        meta: dict[str, Any] = {
            "otel_trace_id": root.trace_id,
            "dropped_spans": self.tree.dropped_count(),
        }
        if self.tree.dropped_count():
            meta["dropped_span_names"] = self.tree.dropped_names()
        if self.warnings:
            meta["warnings"] = self.warnings
        service = root.resource.get("service.name")
        if service:
            meta["service_name"] = service
        return meta


_RELEASED_ATTRIBUTES: dict[str, Any] = {}
_RELEASED_EVENTS: list[dict[str, Any]] = []


def _release(span: OtelSpan) -> None:
    """Drop what only the span's own step reads: its attributes, events and JSON path."""
    span.attributes = _RELEASED_ATTRIBUTES
    span.events = _RELEASED_EVENTS
    span.path = ""


def _plain_span_facts(span: OtelSpan) -> SpanFacts:
    """A span of neither convention kept because agent spans sit below it."""
    return SpanFacts(
        step_type=StepType.ROUTING,
        kind=f"otel:{span.kind}",
        name=span.name,
        input_value=None,
        output_value=None,
    )


def _tool_call_id_in_output(output: Any) -> str | None:
    """LangChain tool spans carry the `ToolMessage` dump, whose `tool_call_id` names the call."""
    parsed = parse_json_string(output)
    if not isinstance(parsed, dict):
        return None
    data = parsed.get("data")
    value = (data if isinstance(data, dict) else parsed).get("tool_call_id")
    return str(value) if value else None
