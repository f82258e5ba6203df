"""The diff engine: order, align, compare, find loops, measure."""

from agentdiff.diff.compare import compare
from agentdiff.diff.options import CompareOptions
from agentdiff.diff.totals import trace_totals

__all__ = ["CompareOptions", "compare", "trace_totals"]
