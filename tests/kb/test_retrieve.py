"""KBView never reveals a paper announced after its cutoff; hybrid search behaves."""

from __future__ import annotations

from collections import Counter
from datetime import date, timedelta

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from foresci.kb.retrieve import CutoffError, KBView, reciprocal_rank_fusion
from foresci.kb.store import KnowledgeBase

WORDS = [
    "agent",
    "tool",
    "diffusion",
    "image",
    "retrieval",
    "graph",
    "preference",
    "molecules",
    "robust",
    "fast sampling",
    "memory",
    "zzzunknown",
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    offset=st.integers(min_value=-2, max_value=10),
    words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
    k=st.integers(min_value=1, max_value=40),
    use_domain=st.booleans(),
)
def test_nothing_after_the_cutoff_is_reachable(
    built_kb: KnowledgeBase, offset: int, words: list[str], k: int, use_domain: bool
) -> None:
    cutoff = built_kb.min_date + timedelta(days=offset)
    view = KBView(built_kb, cutoff)
    domain = built_kb.domains[offset % len(built_kb.domains)] if use_domain else None
    hits = view.search(" ".join(words), k=k, domain=domain)
    assert len(hits) <= k
    assert all(hit.paper.announced <= cutoff for hit in hits)
    assert [hit.rank for hit in hits] == list(range(1, len(hits) + 1))
    visible = view.papers(domain=domain)
    assert all(paper.announced <= cutoff for paper in visible)
    everything = built_kb.papers()
    expected_visible = [paper for paper in everything if paper.announced <= cutoff]
    assert view.papers() == expected_visible
    for paper in everything:
        got = view.get(paper.paper_id)
        assert (got is not None) == (paper.announced <= cutoff)
    early = [paper.paper_id for paper in expected_visible]
    assert view.embeddings(early).shape == (len(early), built_kb.vectors.shape[1])
    late = [paper.paper_id for paper in everything if paper.announced > cutoff]
    if late:
        with pytest.raises(CutoffError):
            view.embeddings(late[:1])
    counts = view.monthly_counts(domain)
    assert counts == dict(Counter(paper.announced.isoformat()[:7] for paper in visible))
    assert all(month <= cutoff.isoformat()[:7] for month in counts)


def test_search_finds_the_topic_and_reports_both_ranks(built_kb: KnowledgeBase) -> None:
    view = KBView(built_kb, built_kb.max_date)
    hits = view.search("text-to-image diffusion model fast sampling", k=5)
    assert len(hits) == 5
    assert all("diffusion" in hit.paper.title.lower() for hit in hits)
    assert hits[0].bm25_rank is not None and hits[0].dense_rank is not None
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)


def test_domain_search_stays_in_domain(built_kb: KnowledgeBase) -> None:
    view = KBView(built_kb, built_kb.max_date)
    domain = "visual_generative_modeling_and_diffusion"
    for hit in view.search("language agents and tools", k=10, domain=domain):
        decision = built_kb.screen(hit.paper.paper_id, domain)
        assert decision is not None and decision.status in ("core", "support")


def test_view_before_first_paper_is_empty(built_kb: KnowledgeBase) -> None:
    view = KBView(built_kb, built_kb.min_date - timedelta(days=1))
    assert view.size == 0
    assert view.search("agent") == []
    assert view.papers() == []
    assert view.monthly_counts() == {}


def test_view_requires_a_date(built_kb: KnowledgeBase) -> None:
    with pytest.raises(TypeError):
        KBView(built_kb, "2025-03-20")  # type: ignore[arg-type]


def test_embeddings_are_normalised_and_ordered(built_kb: KnowledgeBase) -> None:
    ids = [paper.paper_id for paper in built_kb.papers()[:5]][::-1]
    vectors = built_kb.embeddings(ids)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(vectors[0], built_kb.embeddings([ids[0]])[0])


def test_rrf_formula() -> None:
    fused = dict(reciprocal_rank_fusion([[1, 2, 3], [3, 1]], k=60))
    assert fused[1] == pytest.approx(1 / 61 + 1 / 62)
    assert fused[3] == pytest.approx(1 / 63 + 1 / 61)
    assert fused[2] == pytest.approx(1 / 62)
    assert list(dict(reciprocal_rank_fusion([[5], [4]], k=60))) == [4, 5]


def test_papers_since_until(built_kb: KnowledgeBase) -> None:
    since = built_kb.min_date + timedelta(days=2)
    until = built_kb.min_date + timedelta(days=4)
    window = built_kb.papers(since=since, until=until)
    assert window and all(since <= paper.announced <= until for paper in window)
    assert len(window) == sum(1 for paper in built_kb.papers() if since <= paper.announced <= until)
    assert isinstance(built_kb.max_date, date)


def test_papers_answers_are_remembered_per_arguments(built_kb: KnowledgeBase) -> None:
    domain = built_kb.domains[0]
    until = built_kb.min_date + timedelta(days=4)
    first = built_kb.papers(until=until, domain=domain)
    built = len(built_kb._chosen)
    first.clear()  # a caller's list: the remembered answer stays
    again = built_kb.papers(until=until, domain=domain, statuses=("support", "core"))
    assert len(built_kb._chosen) == built  # the same answer, not selected again
    assert [paper.paper_id for paper in again] == [
        paper.paper_id for paper in built_kb.papers() if paper.announced <= until
        and built_kb.domain_mask(domain)[built_kb.row_of(paper.paper_id) or 0]]
    assert again and all(paper.announced <= until for paper in again)
    built_kb.papers(until=until, domain=domain, statuses=("core",))
    built_kb.papers(until=until + timedelta(days=1), domain=domain)
    assert len(built_kb._chosen) == built + 2  # other statuses, another day: selected


@pytest.mark.parametrize("domain", [None, "visual_generative_modeling_and_diffusion"])
def test_dense_ranking_is_exact_within_the_prefix(built_kb: KnowledgeBase, domain: str | None) -> None:
    view = KBView(built_kb, built_kb.min_date + timedelta(days=3))
    vector = built_kb.vectors[0]
    mask = built_kb.domain_mask(domain) if domain else None
    ranked = view.dense_ranking(vector, 10, mask)
    allowed = [row for row in range(view.size) if mask is None or mask[row]]
    scores = built_kb.vectors[allowed] @ vector
    expected = [allowed[index] for index in np.argsort(-scores, kind="stable")[:10]]
    assert len(ranked) == min(10, len(allowed))
    np.testing.assert_allclose(
        sorted(scores, reverse=True)[:10], [built_kb.vectors[row] @ vector for row in ranked], rtol=1e-5
    )
    assert set(ranked) <= set(allowed) and ranked[0] == expected[0]


def test_a_text_search_in_a_fresh_kb_builds_no_id_map(built_kb: KnowledgeBase) -> None:
    """Opening a KB and searching by text leaves the arXiv id -> row map unbuilt (a fresh `kb search`
    pays nothing for it); the first lookup by id builds it."""
    kb = KnowledgeBase.open(built_kb.path, built_kb.settings)
    hits = KBView(kb, kb.max_date).search("agents", k=3)
    assert hits and "_row_of" not in vars(kb)
    assert kb.row_of(hits[0].paper.paper_id) == built_kb.row_of(hits[0].paper.paper_id)
    assert "_row_of" in vars(kb)
