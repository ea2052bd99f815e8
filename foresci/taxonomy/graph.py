"""The taxonomy as a networkx graph: hierarchy edges (parent -> child) and method-evolution edges."""

from __future__ import annotations

import json
from typing import Any

import networkx as nx

from foresci.taxonomy.models import Edge, Node, Snapshot

HIERARCHY = "subdirection"
EVOLUTION = "evolution"


def snapshot_to_graph(snapshot: Snapshot, with_centroids: bool = True) -> nx.MultiDiGraph:
    """A MultiDiGraph: one vertex per node (its fields as attributes), ``kind`` on every edge."""
    graph = nx.MultiDiGraph()
    graph.graph.update(snapshot.model_dump(mode="json", exclude={"nodes", "edges"}))
    for node in snapshot.nodes:
        attributes = node.model_dump(mode="json", exclude=None if with_centroids else {"centroid"})
        graph.add_node(node.node_id, **attributes)
    for node in snapshot.nodes:
        if node.parent_id is not None:
            graph.add_edge(node.parent_id, node.node_id, kind=HIERARCHY)
    for edge in snapshot.edges:
        attributes = edge.model_dump(mode="json", exclude={"source", "target"})
        graph.add_edge(edge.source, edge.target, kind=EVOLUTION, **attributes)
    return graph


def graph_to_snapshot(graph: nx.MultiDiGraph) -> Snapshot:
    """Rebuild a Snapshot from :func:`snapshot_to_graph`'s graph (node order preserved)."""
    nodes = [Node.model_validate(dict(attributes)) for _, attributes in graph.nodes(data=True)]
    edges = [Edge.model_validate({"source": source, "target": target,
                                  **{key: value for key, value in attributes.items() if key != "kind"}})
             for source, target, attributes in graph.edges(data=True) if attributes.get("kind") == EVOLUTION]
    return Snapshot.model_validate({**graph.graph, "nodes": nodes, "edges": edges})


def to_node_link(snapshot: Snapshot, with_centroids: bool = True) -> dict[str, Any]:
    """Node-link JSON data of a snapshot's graph."""
    data: dict[str, Any] = nx.node_link_data(snapshot_to_graph(snapshot, with_centroids), edges="edges")
    return data


def from_node_link(data: dict[str, Any]) -> Snapshot:
    """Snapshot from node-link JSON data written by :func:`to_node_link`."""
    graph = nx.node_link_graph(data, directed=True, multigraph=True, edges="edges")
    return graph_to_snapshot(graph)


def graphml_ready(graph: nx.MultiDiGraph) -> nx.MultiDiGraph:
    """A copy whose list/dict attributes are JSON strings and None values dropped (GraphML needs scalars)."""
    def flatten(attributes: dict[str, Any]) -> dict[str, Any]:
        return {key: json.dumps(value) if isinstance(value, list | dict | tuple) else value
                for key, value in attributes.items() if value is not None}

    flat = nx.MultiDiGraph()
    flat.graph.update(flatten(dict(graph.graph)))
    for node_id, attributes in graph.nodes(data=True):
        flat.add_node(node_id, **flatten(attributes))
    for source, target, attributes in graph.edges(data=True):
        flat.add_edge(source, target, **flatten(attributes))
    return flat
