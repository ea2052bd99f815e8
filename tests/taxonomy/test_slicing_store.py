"""Slicing policy, store round trip, graph export."""

from __future__ import annotations

from datetime import date, timedelta

import networkx as nx
import pytest

from foresci.core.artifacts import read_manifest
from foresci.taxonomy.graph import graphml_ready, snapshot_to_graph
from foresci.taxonomy.induce import TaxonomyHistory
from foresci.taxonomy.slicing import SlicingPolicy, load_slicing_policy, slice_bounds
from foresci.taxonomy.store import load_taxonomy, save_taxonomy


def test_slices_cover_the_range_and_are_finer_near_the_cutoff() -> None:
    policy = load_slicing_policy()
    bounds = slice_bounds(date(2025, 3, 18), date(2025, 12, 31), policy)
    assert bounds[0][0] == date(2025, 3, 18) and bounds[-1][1] == date(2025, 12, 31)
    for (_, end), (start, _) in zip(bounds, bounds[1:], strict=False):
        assert start == end + timedelta(days=1)
    lengths = [(end - start).days + 1 for start, end in bounds]
    assert lengths[0] > 60, "far from the cutoff: a quarter (plus the merged stub)"
    assert all(28 <= length <= 31 for length in lengths[1:5]), "two to six months out: calendar months"
    assert all(length <= 16 for length in lengths[5:]), "last two months: half-months"


def test_a_mid_month_cutoff_ends_the_last_slice_on_the_cutoff() -> None:
    bounds = slice_bounds(date(2025, 1, 1), date(2025, 11, 20), load_slicing_policy())
    assert bounds[-1] == (date(2025, 11, 16), date(2025, 11, 20))


def test_policy_without_an_open_last_rule_is_rejected() -> None:
    with pytest.raises(ValueError, match="last rule"):
        SlicingPolicy.model_validate({"rules": [{"within_days": 10, "length": {"days": 5}}]})


def test_store_round_trip_and_manifest(tmp_path, planted_history: TaxonomyHistory) -> None:
    folder = save_taxonomy(planted_history, tmp_path / "taxonomy")
    loaded = load_taxonomy(folder)
    assert loaded.model_dump() == planted_history.model_dump()
    manifest = read_manifest(folder)
    assert manifest.kind == "taxonomy"
    assert manifest.counts["nodes_per_slice"] == [len(s.nodes) for s in planted_history.snapshots]
    assert all(name in manifest.hashes for name in ("history.json", "snapshots/slice_00.json"))


def test_graph_has_hierarchy_edges_and_exports_to_graphml(tmp_path, planted_history: TaxonomyHistory) -> None:
    final = planted_history.final
    graph = snapshot_to_graph(final)
    assert graph.number_of_nodes() == len(final.nodes)
    hierarchy = [edge for edge in graph.edges(data=True) if edge[2]["kind"] == "subdirection"]
    assert len(hierarchy) == sum(node.parent_id is not None for node in final.nodes)
    path = tmp_path / "t.graphml"
    nx.write_graphml(graphml_ready(graph), path)
    assert nx.read_graphml(path).number_of_nodes() == len(final.nodes)
