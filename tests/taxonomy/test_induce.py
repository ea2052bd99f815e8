"""Induction: leakage, determinism, planted structure recovered, routing of later papers."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from datetime import date

import numpy as np
import pytest

from foresci.core.settings import Settings
from foresci.kb.models import Paper
from foresci.taxonomy.assign import assign_papers
from foresci.taxonomy.build import build_taxonomy
from foresci.taxonomy.induce import TaxonomyHistory, induce_taxonomy
from tests.taxonomy.conftest import PLANTED_CUTOFF


class ListKB:
    """A stand-in for KnowledgeBase over an in-memory list (it holds post-cutoff papers too)."""

    def __init__(self, papers: Sequence[Paper], embeddings: np.ndarray) -> None:
        self._papers = list(papers)
        self._rows = {paper.paper_id: embeddings[index] for index, paper in enumerate(papers)}
        self.read_until: list[date | None] = []

    def papers(self, until: date | None = None, since: date | None = None, domain: str | None = None,
               statuses: tuple[str, ...] = ("core", "support")) -> list[Paper]:
        self.read_until.append(until)
        return [paper for paper in self._papers if (until is None or paper.announced <= until)
                and (since is None or paper.announced >= since)]

    def embeddings(self, paper_ids: Sequence[str]) -> np.ndarray:
        return np.stack([self._rows[paper_id] for paper_id in paper_ids])


def topic_of(paper_id: str) -> str:
    return paper_id.split("-")[0]


def test_taxonomy_at_cutoff_ignores_later_papers_in_the_kb(planted: tuple[list[Paper], np.ndarray],
                                                          planted_history: TaxonomyHistory) -> None:
    papers, embeddings = planted
    assert any(paper.announced > PLANTED_CUTOFF for paper in papers)
    kb = ListKB(papers, embeddings)
    from_kb = build_taxonomy(kb, "planted", PLANTED_CUTOFF, Settings())
    assert kb.read_until == [PLANTED_CUTOFF]
    for snapshot in from_kb.snapshots:
        assert snapshot.embedding_model == Settings().embed.model
        snapshot.embedding_model = ""
    assert from_kb.model_dump() == planted_history.model_dump()
    visible = {paper_id for node in from_kb.final.nodes for paper_id in node.paper_ids}
    assert all(paper.announced <= PLANTED_CUTOFF for paper in papers if paper.paper_id in visible)


def test_papers_after_the_cutoff_are_rejected_by_name(planted: tuple[list[Paper], np.ndarray]) -> None:
    papers, embeddings = planted
    late = next(paper for paper in papers if paper.announced > PLANTED_CUTOFF)
    with pytest.raises(ValueError, match=late.paper_id):
        induce_taxonomy(papers, embeddings, "planted", PLANTED_CUTOFF, Settings())


def test_same_input_in_any_order_gives_the_same_ids(planted: tuple[list[Paper], np.ndarray],
                                                     planted_history: TaxonomyHistory) -> None:
    papers, embeddings = planted
    visible = [index for index, paper in enumerate(papers) if paper.announced <= PLANTED_CUTOFF]
    random.Random(5).shuffle(visible)
    again = induce_taxonomy([papers[index] for index in visible], embeddings[visible], "planted",
                            PLANTED_CUTOFF, Settings())
    assert again.model_dump() == planted_history.model_dump()


def test_nodes_keep_their_ids_and_lineage_from_slice_to_slice(planted_history: TaxonomyHistory) -> None:
    previous: dict[str, object] = {}
    for snapshot in planted_history.snapshots:
        current = {node.node_id: node.lineage for node in snapshot.nodes}
        assert set(previous) <= set(current), "a node of the previous slice lost its id"
        assert all(current[node_id] == lineage for node_id, lineage in previous.items())
        for node in snapshot.nodes:
            assert node.lineage is not None and node.lineage.created_slice <= snapshot.slice_index
        previous = dict(current)


def test_planted_topics_become_pure_nodes_and_the_new_one_grows_in_width(
        planted_history: TaxonomyHistory) -> None:
    final = planted_history.final
    top = final.children(None)
    purity = {}
    for node in top:
        counts = Counter(topic_of(paper_id) for paper_id in node.paper_ids)
        topic, count = counts.most_common(1)[0]
        purity[topic] = count / len(node.paper_ids)
    assert set(purity) == {"zorblax", "vellium", "crandor", "fimbral"}
    assert min(purity.values()) > 0.95
    newcomer = next(node for node in top if topic_of(node.paper_ids[0]) == "fimbral")
    assert newcomer.lineage is not None and newcomer.lineage.event == "width"
    assert planted_history.slices[newcomer.lineage.created_slice][1] >= date(2025, 4, 1)
    assert "fimbral" in " ".join(newcomer.key_terms)
    assert len(planted_history.snapshots[0].nodes) == 3


def test_node_evidence_records_are_filled(planted: tuple[list[Paper], np.ndarray],
                                          planted_history: TaxonomyHistory) -> None:
    papers = {paper.paper_id: paper for paper in planted[0]}
    for node in planted_history.final.nodes:
        assert node.representative_ids and set(node.representative_ids) <= set(node.paper_ids)
        assert sum(node.monthly_counts.values()) == len(node.paper_ids)
        dates = [papers[paper_id].announced for paper_id in node.paper_ids]
        assert node.first_seen == min(dates) and node.last_seen == max(dates)
        assert node.centroid is not None and abs(np.linalg.norm(node.centroid) - 1) < 1e-4
        assert abs(sum(node.dimension_shares.values()) - 1) < 1e-3


def test_assign_papers_routes_post_cutoff_papers_to_their_topic(
        planted: tuple[list[Paper], np.ndarray], planted_history: TaxonomyHistory) -> None:
    papers, embeddings = planted
    later = [index for index, paper in enumerate(papers) if paper.announced > PLANTED_CUTOFF]
    assignment = assign_papers(planted_history.final, [papers[index] for index in later], embeddings[later])
    assert len(assignment) == len(later)
    leaves = {node.node_id for node in planted_history.final.leaves()}
    assert set(assignment.values()) <= leaves
    node_topic = {node.node_id: Counter(map(topic_of, node.paper_ids)).most_common(1)[0][0]
                  for node in planted_history.final.nodes}
    correct = sum(node_topic[node_id] == topic_of(paper_id) for paper_id, node_id in assignment.items())
    assert correct / len(assignment) > 0.95


def test_empty_input_gives_an_empty_history() -> None:
    history = induce_taxonomy([], np.zeros((0, 8), dtype=np.float32), "empty", date(2025, 1, 1), Settings())
    assert history.snapshots == []
    with pytest.raises(ValueError, match="no snapshots"):
        _ = history.final


class ScreenedListKB(ListKB):
    """ListKB where one planted topic's papers are only 'support' papers of the domain."""

    def __init__(self, papers: Sequence[Paper], embeddings: np.ndarray, support_topic: str) -> None:
        super().__init__(papers, embeddings)
        self.support_topic = support_topic

    def papers(self, until: date | None = None, since: date | None = None, domain: str | None = None,
               statuses: tuple[str, ...] = ("core", "support")) -> list[Paper]:
        return [paper for paper in super().papers(until, since, domain)
                if ("support" if topic_of(paper.paper_id) == self.support_topic else "core") in statuses]


def test_taxonomy_is_induced_from_core_papers_only(planted: tuple[list[Paper], np.ndarray]) -> None:
    """Domain purity: support papers shape no node by default; member_statuses can let them in."""
    papers, embeddings = planted
    support_topic = Counter(topic_of(paper.paper_id) for paper in papers).most_common(1)[0][0]
    kb = ScreenedListKB(papers, embeddings, support_topic)
    members = {paper_id for node in build_taxonomy(kb, "planted", PLANTED_CUTOFF, Settings()).final.nodes
               for paper_id in node.paper_ids}
    assert members
    assert not {paper_id for paper_id in members if topic_of(paper_id) == support_topic}
    settings = Settings()
    settings.taxonomy.member_statuses = ["core", "support"]
    widened = {paper_id for node in build_taxonomy(kb, "planted", PLANTED_CUTOFF, settings).final.nodes
               for paper_id in node.paper_ids}
    assert {paper_id for paper_id in widened if topic_of(paper_id) == support_topic}


class ScreenedView:
    """A forecaster's KB view at the planted cutoff over a ScreenedListKB."""

    def __init__(self, kb: ScreenedListKB) -> None:
        self.kb = kb
        self.cutoff = PLANTED_CUTOFF

    def papers(self, domain: str | None = None,
               statuses: tuple[str, ...] = ("core", "support")) -> list[Paper]:
        return self.kb.papers(until=self.cutoff, domain=domain, statuses=statuses)

    def embeddings(self, paper_ids: Sequence[str]) -> np.ndarray:
        return self.kb.embeddings(paper_ids)


def test_forecaster_routes_through_the_builders_taxonomy(planted: tuple[list[Paper], np.ndarray]) -> None:
    """The trend/persistence forecasters induce T(d, t) from the same papers as the task builder (core
    only), so the node ids of task options exist in theirs."""
    from foresci.agents.baselines.routing import taxonomy_of

    papers, embeddings = planted
    support_topic = Counter(topic_of(paper.paper_id) for paper in papers).most_common(1)[0][0]
    kb = ScreenedListKB(papers, embeddings, support_topic)
    builder = build_taxonomy(kb, "planted", PLANTED_CUTOFF, Settings()).final
    forecaster = taxonomy_of(ScreenedView(kb), "planted")
    assert forecaster is not None
    assert {node.node_id: sorted(node.paper_ids) for node in forecaster.nodes} == {
        node.node_id: sorted(node.paper_ids) for node in builder.nodes}
