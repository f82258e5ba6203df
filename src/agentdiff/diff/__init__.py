"""The diff engine: order, align, compare, find loops, measure."""

from agentdiff.diff.compare import compare
from agentdiff.diff.options import CompareOptions

__all__ = ["CompareOptions", "compare"]
