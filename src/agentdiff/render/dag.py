"""A picture of a trace's DAG: a layered layout from parent links, drawn as SVG by a template.

Each step gets its own row (depth-first, children in `step_index` order) and its depth picks
the column, so a wide fan-out stays readable; edges are elbows from parent to child. Steps the
diff marks (inserted, deleted, changed, reordered, looping, failed, first divergence) carry CSS
classes; the template escapes every label. A large trace draws only the marked and failed steps
and their ancestors: each run of unmarked sibling subtrees becomes one "… N unchanged steps"
box, and at most `MAX_NODES` boxes are drawn per side.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from agentdiff.models.report import DiffReport, Op
from agentdiff.models.trace import AgentTrace, StepStatus, TraceStep
from agentdiff.render.measures import plural
from agentdiff.render.text import clip
from agentdiff.render.view import text

__all__ = ["DagNode", "DagPicture", "dag_pictures"]

ROW_H = 26
INDENT = 22
BOX_W = 190
BOX_H = 20
MARGIN = 6
LABEL_CHARS = 26
SMALL = 60
"""A trace with at most this many steps is drawn whole; a larger one folds unchanged subtrees."""
MAX_NODES = 300
"""Boxes drawn per side at most (then one box says how many steps are left out)."""


@dataclass(frozen=True)
class DagNode:
    """One step's box: position, label, tooltip and CSS classes."""

    x: int
    y: int
    label: str
    title: str
    classes: str


@dataclass(frozen=True)
class DagEdge:
    """An elbow from a parent's box down and across to a child's box."""

    x1: int
    y1: int
    x2: int
    y2: int


@dataclass(frozen=True)
class DagPicture:
    """Everything the template needs to draw one trace's DAG."""

    side: str
    nodes: list[DagNode]
    edges: list[DagEdge]
    width: int
    height: int
    box_w: int = BOX_W
    box_h: int = BOX_H


def _marks(report: DiffReport) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """CSS classes by step id, for the baseline and the candidate (read off the report)."""
    base: dict[str, set[str]] = {}
    cand: dict[str, set[str]] = {}
    for entry in report.alignment:
        if entry.op is Op.MATCH:
            continue
        cls = {f"op-{entry.op.value}"}
        if entry == report.first_divergence:
            cls.add("first")
        if entry.baseline is not None:
            base.setdefault(entry.baseline.step_id, set()).update(cls)
        if entry.candidate is not None:
            cand.setdefault(entry.candidate.step_id, set()).update(cls)
    for loop in report.loops:
        for step_id in loop.step_ids:
            cand.setdefault(step_id, set()).add("loop")
    return base, cand


def _children(trace: AgentTrace) -> dict[str | None, list[TraceStep]]:
    ids = {s.step_id for s in trace.steps}
    children: dict[str | None, list[TraceStep]] = {}
    for step in sorted(trace.steps, key=lambda s: s.step_index):
        children.setdefault(step.parent_id if step.parent_id in ids else None, []).append(step)
    return children


def _sizes(children: dict[str | None, list[TraceStep]]) -> dict[str, int]:
    """Subtree size of every step (itself included), children before parents."""
    sizes: dict[str, int] = {}
    stack: list[tuple[TraceStep, bool]] = [(s, False) for s in children.get(None, [])]
    while stack:
        step, done = stack.pop()
        kids = children.get(step.step_id, [])
        if done:
            sizes[step.step_id] = 1 + sum(sizes[k.step_id] for k in kids)
        else:
            stack.append((step, True))
            stack.extend((k, False) for k in kids)
    return sizes


def _interesting(trace: AgentTrace, marks: Mapping[str, set[str]]) -> set[str] | None:
    """Steps worth drawing: marked or failed ones and their ancestors (`None`: draw all)."""
    if len(trace.steps) <= SMALL:
        return None
    parents = {s.step_id: s.parent_id for s in trace.steps}
    keep: set[str] = set()
    for step in trace.steps:
        if step.step_id in marks or step.status is not StepStatus.SUCCESS:
            node: str | None = step.step_id
            while node is not None and node in parents and node not in keep:
                keep.add(node)
                node = parents[node]
    return keep


Item = tuple[TraceStep | None, int, int]
"""(step, depth, folded count): a step to draw, or a fold of `count` unchanged steps."""


def _order(trace: AgentTrace, marks: Mapping[str, set[str]]) -> list[Item]:
    """Steps depth-first (children by `step_index`); runs of unmarked subtrees folded."""
    children = _children(trace)
    sizes = _sizes(children)
    keep = _interesting(trace, marks)
    ordered: list[Item] = []
    # each entry: the siblings still to visit, last one first
    stack: list[tuple[list[TraceStep], int]] = [(children.get(None, [])[::-1], 0)]
    while stack:
        siblings, depth = stack[-1]
        if not siblings:
            stack.pop()
            continue
        step = siblings.pop()
        if keep is not None and step.step_id not in keep:
            folded = sizes[step.step_id]
            while siblings and siblings[-1].step_id not in keep:
                folded += sizes[siblings.pop().step_id]
            ordered.append((None, depth, folded))
            continue
        ordered.append((step, depth, 0))
        stack.append((children.get(step.step_id, [])[::-1], depth + 1))
    return ordered


def _node(step: TraceStep, x: int, y: int, marks: Mapping[str, set[str]]) -> DagNode:
    classes = set(marks.get(step.step_id, ()))
    if step.status is not StepStatus.SUCCESS:
        classes.add(f"status-{step.status.value}")
    name = text(step.name)
    title = f"{name} ({step.step_type.value}, {step.status.value}) id={text(step.step_id)}"
    return DagNode(x, y, clip(name, LABEL_CHARS), title, " ".join(sorted(classes)))


def _fold_node(x: int, y: int, folded: int, *, cut: bool = False) -> DagNode:
    words = plural(folded, "more step") + " not drawn" if cut else plural(folded, "unchanged step")
    return DagNode(x, y, f"… {words}", words, "fold")


def _picture(side: str, trace: AgentTrace, marks: Mapping[str, set[str]]) -> DagPicture:
    ordered = _order(trace, marks)
    where: dict[str, tuple[int, int]] = {}
    nodes: list[DagNode] = []
    edges: list[DagEdge] = []
    parent_of = {s.step_id: s.parent_id for s in trace.steps}
    for row, (step, depth, folded) in enumerate(ordered[:MAX_NODES]):
        x, y = MARGIN + depth * INDENT, MARGIN + row * ROW_H
        if step is None:
            nodes.append(_fold_node(x, y, folded))
            continue
        where[step.step_id] = (x, y)
        nodes.append(_node(step, x, y, marks))
        parent = where.get(parent_of.get(step.step_id) or "")
        if parent is not None:
            px, py = parent
            edges.append(DagEdge(px + INDENT // 2, py + BOX_H, x, y + BOX_H // 2))
    if len(ordered) > MAX_NODES:
        rest = sum(1 if s is not None else n for s, _, n in ordered[MAX_NODES:])
        nodes.append(_fold_node(MARGIN, MARGIN + MAX_NODES * ROW_H, rest, cut=True))
    depth_max = max((d for _, d, _ in ordered), default=0)
    width = 2 * MARGIN + depth_max * INDENT + BOX_W
    height = 2 * MARGIN + max(len(nodes), 1) * ROW_H
    return DagPicture(side, nodes, edges, width, height)


def dag_pictures(report: DiffReport) -> list[DagPicture]:
    """The baseline's and the candidate's pictures (empty when the traces are not attached)."""
    base_marks, cand_marks = _marks(report)
    pictures = []
    if report.baseline_trace is not None:
        pictures.append(_picture("baseline", report.baseline_trace, base_marks))
    if report.candidate_trace is not None:
        pictures.append(_picture("candidate", report.candidate_trace, cand_marks))
    return pictures
