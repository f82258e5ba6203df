"""The route trie: routes merged by common prefix, with run counts per side at every branch.

Divergence concentrates in the first steps, so a trie shows where runs split. Steps are folded
(`lookup_order ×3` is one node) and the depth is capped at `MAX_DEPTH` (deeper steps are
counted in the last node shown).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from agentdiff.routes.skeleton import fold

__all__ = ["MAX_DEPTH", "TrieNode", "route_trie"]

MAX_DEPTH = 40


@dataclass
class TrieNode:
    """One step of the merged routes; `counts[side]` runs passed through it."""

    step: str
    counts: dict[str, int] = field(default_factory=dict)
    children: list[TrieNode] = field(default_factory=list)
    ends: dict[str, int] = field(default_factory=dict)
    """Runs whose route ends here, per side."""

    def child(self, step: str) -> TrieNode:
        """The child for `step`, added when missing."""
        for node in self.children:
            if node.step == step:
                return node
        node = TrieNode(step)
        self.children.append(node)
        return node


def route_trie(
    routes: Sequence[Sequence[str]],
    weights: Sequence[dict[str, int]],
    *,
    max_depth: int = MAX_DEPTH,
) -> TrieNode:
    """Merge distinct routes (labels) with their run counts per side into one trie."""
    root = TrieNode("start")
    for labels, counts in zip(routes, weights, strict=True):
        _add(root, counts)
        node = root
        for name, n in fold(labels)[:max_depth]:
            node = node.child(name if n == 1 else f"{name} ×{n}")
            _add(node, counts)
        for side, k in counts.items():
            node.ends[side] = node.ends.get(side, 0) + k
    _sort(root)
    return root


def _add(node: TrieNode, counts: dict[str, int]) -> None:
    for side, k in counts.items():
        node.counts[side] = node.counts.get(side, 0) + k


def _sort(node: TrieNode) -> None:
    node.children.sort(key=lambda c: (-sum(c.counts.values()), c.step))
    for child in node.children:
        _sort(child)
