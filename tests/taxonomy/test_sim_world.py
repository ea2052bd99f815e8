"""A generated synthetic world (foresci.sim): planted directions and trends recovered by the taxonomy."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import numpy as np
import pytest

from foresci.core.io import iter_jsonl
from foresci.core.settings import Settings
from foresci.kb.ingest import ingest
from foresci.kb.models import Paper
from foresci.sim.world import GroundTruth, WorldConfig, generate_world, load_ground_truth
from foresci.taxonomy.evidence import monthly_counts
from foresci.taxonomy.induce import TaxonomyHistory, induce_taxonomy
from foresci.taxonomy.window import label_all_nodes, routed_monthly
from tests.taxonomy.textvec import hashed_tfidf


@dataclass
class World:
    """A generated world, its papers, stand-in embeddings and the taxonomy at its cutoff."""

    truth: GroundTruth
    direction_of: dict[str, str]
    child_of: dict[str, str | None]
    papers: list[Paper]
    embeddings: np.ndarray
    history: TaxonomyHistory

    def top_node_of(self) -> dict[str, str]:
        """Planted direction -> the top-level node holding most of its papers."""
        best: dict[str, tuple[int, str]] = {}
        for node in self.history.final.children(None):
            for direction, count in Counter(self.direction_of[pid] for pid in node.paper_ids).items():
                if count > best.get(direction, (0, ""))[0]:
                    best[direction] = (count, node.node_id)
        return {direction: node_id for direction, (_, node_id) in best.items()}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    root: Path = tmp_path_factory.mktemp("world")
    config = WorldConfig(seed=7, n_domains=1, directions_per_domain=4, months=12, papers_per_month=60,
                         difficulty=0.0, noise=0.0, background_share=0.0)
    paths = generate_world(config, root)
    truth = load_ground_truth(paths.root)
    rows = list(iter_jsonl(paths.paper_labels))
    papers = ingest([paths.corpus], max_row_bytes=200_000).papers
    embeddings = hashed_tfidf([paper.text for paper in papers])
    visible = [index for index, paper in enumerate(papers) if paper.announced <= truth.cutoff]
    history = induce_taxonomy([papers[index] for index in visible], embeddings[visible], "world",
                              truth.cutoff, Settings())
    return World(truth, {row["paper_id"]: str(row["direction_id"]) for row in rows},
                 {row["paper_id"]: row.get("child_id") for row in rows}, papers, embeddings, history)


def test_each_planted_direction_dominates_its_own_top_level_node(world: World) -> None:
    top = world.top_node_of()
    planted = {direction.direction_id for direction in world.truth.directions}
    assert set(top) == planted
    assert len(set(top.values())) == len(planted), "two planted directions share one top-level node"
    for direction, node_id in top.items():
        node = world.history.final.node(node_id)
        share = sum(world.direction_of[pid] == direction for pid in node.paper_ids) / len(node.paper_ids)
        assert share >= 0.7, (direction, share)


def test_planted_trends_are_recovered_relative_to_the_domain(world: World) -> None:
    final = world.history.final
    monthly = routed_monthly(final, world.papers, world.embeddings)
    window = (date.fromisoformat(world.truth.window_months[0] + "-01"), date(2024, 12, 31))
    baseline = (date(2024, 1, 1), world.truth.cutoff)
    measures = label_all_nodes(final, monthly, monthly_counts(world.papers), window, baseline)
    top = world.top_node_of()
    lifts: dict[str, list[float]] = {"accelerating": [], "steady": [], "cooling": []}
    for direction in world.truth.directions:
        if direction.trajectory not in lifts:
            continue
        measure = measures[top[direction.direction_id]]
        lifts[direction.trajectory].append(measure.lift)
        if direction.trajectory == "steady":
            # planted steady keeps its absolute rate; relative to a growing domain its share may fall
            assert 0.8 <= measure.node_window / measure.node_baseline <= 1.25, direction.direction_id
        else:
            assert measure.label == direction.trajectory, (direction.direction_id, measure.label)
    assert sum(map(len, lifts.values())) >= 3
    assert max(lifts["cooling"], default=0.0) < min(lifts["steady"], default=1.0)
    assert max(lifts["steady"], default=1.0) < min(lifts["accelerating"], default=2.0)


def test_emergent_sub_directions_land_in_nodes_grown_after_the_seed(world: World) -> None:
    final = world.history.final
    grown = {pid for node in final.leaves() if node.lineage and node.lineage.event in ("width", "depth")
             for pid in node.paper_ids}
    visible = {pid for node in final.nodes for pid in node.paper_ids}
    child_papers = [pid for pid in visible if world.child_of.get(pid)]
    assert len(child_papers) >= 10, "the world should plant a split before the cutoff"
    assert sum(pid in grown for pid in child_papers) / len(child_papers) >= 0.5
