"""A picture of a trace's DAG: a layered layout from parent links, drawn as SVG by a template.

Each step gets its own row (depth-first, children in `step_index` order) and its depth picks
the column, so a wide fan-out stays readable; edges are elbows from parent to child. Steps the
diff marks (inserted, deleted, changed, reordered, looping, failed, first divergence) carry CSS
classes; the template escapes every label.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from agentdiff.models.report import DiffReport, Op
from agentdiff.models.trace import AgentTrace, StepStatus, TraceStep
from agentdiff.render.text import clip, one_line

__all__ = ["DagNode", "DagPicture", "dag_pictures"]

ROW_H = 26
INDENT = 22
BOX_W = 190
BOX_H = 20
MARGIN = 6
LABEL_CHARS = 26


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


def _order(trace: AgentTrace) -> list[tuple[TraceStep, int]]:
    """Steps depth-first (children by `step_index`), each with its depth."""
    ids = {s.step_id for s in trace.steps}
    children: dict[str | None, list[TraceStep]] = {}
    for step in sorted(trace.steps, key=lambda s: s.step_index):
        children.setdefault(step.parent_id if step.parent_id in ids else None, []).append(step)
    ordered: list[tuple[TraceStep, int]] = []
    stack = [(s, 0) for s in reversed(children.get(None, []))]
    while stack:
        step, depth = stack.pop()
        ordered.append((step, depth))
        stack.extend((c, depth + 1) for c in reversed(children.get(step.step_id, [])))
    return ordered


def _picture(side: str, trace: AgentTrace, marks: Mapping[str, set[str]]) -> DagPicture:
    ordered = _order(trace)
    where: dict[str, tuple[int, int]] = {}
    nodes: list[DagNode] = []
    edges: list[DagEdge] = []
    for row, (step, depth) in enumerate(ordered):
        x, y = MARGIN + depth * INDENT, MARGIN + row * ROW_H
        where[step.step_id] = (x, y)
        classes = set(marks.get(step.step_id, ()))
        if step.status is not StepStatus.SUCCESS:
            classes.add(f"status-{step.status.value}")
        name = one_line(step.name)
        title = f"{name} ({step.step_type.value}, {step.status.value}) id={one_line(step.step_id)}"
        nodes.append(DagNode(x, y, clip(name, LABEL_CHARS), title, " ".join(sorted(classes))))
        parent = where.get(step.parent_id or "")
        if parent is not None:
            px, py = parent
            edges.append(DagEdge(px + INDENT // 2, py + BOX_H, x, y + BOX_H // 2))
    depth_max = max((d for _, d in ordered), default=0)
    width = 2 * MARGIN + depth_max * INDENT + BOX_W
    height = 2 * MARGIN + max(len(ordered), 1) * ROW_H
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
