"""Suites: many scenarios in one run, on a local process pool or a Dask cluster.

`RunSet` (scenario → runs) on each side, `run_suite()` judges every scenario and returns a
`SuiteReport`; backends in `agentdiff.suite.backends` (and `agentdiff.suite.cluster` for Dask);
route distance in `agentdiff.suite.routes`. See docs/suites.md.
"""

from agentdiff.suite.backends import Backend, InProcess, ProcessPool
from agentdiff.suite.manifest import ScenarioOverride, SuiteManifest, load_manifest
from agentdiff.suite.options import SuiteOptions
from agentdiff.suite.refs import RunRef
from agentdiff.suite.report import SuiteReport
from agentdiff.suite.results import load_results, query_results
from agentdiff.suite.routes import nearest_run, route_distance, route_of
from agentdiff.suite.run import run_suite
from agentdiff.suite.runset import RunSet

__all__ = [
    "Backend",
    "InProcess",
    "ProcessPool",
    "RunRef",
    "RunSet",
    "ScenarioOverride",
    "SuiteManifest",
    "SuiteOptions",
    "SuiteReport",
    "load_manifest",
    "load_results",
    "nearest_run",
    "query_results",
    "route_distance",
    "route_of",
    "run_suite",
]
