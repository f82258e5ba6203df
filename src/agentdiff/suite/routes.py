"""Route helpers for suites: re-exported from `agentdiff.routes.route`, where they are defined."""

from __future__ import annotations

from agentdiff.routes.route import (
    nearest_run,
    route_distance,
    route_from_refs,
    route_id,
    route_of,
    side_route,
)

__all__ = ["nearest_run", "route_distance", "route_from_refs", "route_id", "route_of", "side_route"]
