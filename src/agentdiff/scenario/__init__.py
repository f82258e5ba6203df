"""N baseline runs against M candidate runs of one scenario: tests, routes and a verdict.

The entry points are `agentdiff.scenario.api.compare_runs` / `compare_scenarios` (also
`agentdiff.compare_runs`); this package's `__init__` imports nothing, so `agentdiff.suite` can
use the report models without a cycle.
"""
