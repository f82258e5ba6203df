"""The routes agents take: encoding, distances, clustering, skeletons and the route trie."""

from __future__ import annotations

from agentdiff.routes.cluster import RouteCluster, RouteMap, cluster_routes
from agentdiff.routes.encode import route_id, route_of

__all__ = ["RouteCluster", "RouteMap", "cluster_routes", "route_id", "route_of"]
