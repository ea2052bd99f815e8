"""Window evidence of one cutoff shares what it derives from the papers, and reads the same as evidence
collected window by window."""

from __future__ import annotations

from dataclasses import fields

from foresci.tasks.evidence import NodeEvidence, collect_evidence, collect_windows
from foresci.tasks.windows import add_months, make_window
from tests.tasks.toy import CUTOFF, toy_world

HORIZONS = ("3m", "6m", "venue_cycle")


def _node_fields(evidence: NodeEvidence) -> dict[str, object]:
    return {item.name: getattr(evidence, item.name) for item in fields(evidence)}


def test_shared_windows_read_like_separate_ones() -> None:
    snapshot, papers, assignment = toy_world()
    windows = [make_window(CUTOFF, horizon) for horizon in HORIZONS]
    shared = collect_windows(snapshot, papers, assignment, windows)
    separate = [collect_evidence(snapshot, papers, assignment, window) for window in windows]
    assert shared[0].text_cache is shared[1].text_cache is shared[2].text_cache
    assert separate[0].text_cache is not separate[1].text_cache
    for one, other in zip(shared, separate, strict=True):
        assert one.pre_vocabulary == other.pre_vocabulary
        assert one.pre_token_counts == other.pre_token_counts
        assert one.common_tokens == other.common_tokens
        assert list(one.nodes) == list(other.nodes)
        for node_id, node in one.nodes.items():
            assert _node_fields(node) == _node_fields(other.nodes[node_id])
        for paper_id in list(one.papers)[:20]:
            assert one.token_set(paper_id) == other.token_set(paper_id)
            assert one.gram_set(paper_id) == other.gram_set(paper_id)


def test_windows_after_different_cutoffs_keep_their_own_cache() -> None:
    snapshot, papers, assignment = toy_world()
    earlier = add_months(CUTOFF, -3)
    windows = [make_window(CUTOFF, "3m"), make_window(earlier, "3m")]
    found = collect_windows(snapshot, papers, assignment, windows)
    assert found[0].text_cache is not found[1].text_cache
    alone = collect_evidence(snapshot, papers, assignment, make_window(earlier, "3m"))
    assert found[1].pre_token_counts == alone.pre_token_counts
    assert found[1].pre_vocabulary == alone.pre_vocabulary


def test_node_evidence_is_equal_only_to_itself() -> None:
    snapshot, papers, assignment = toy_world()
    window = make_window(CUTOFF, "3m")
    first = collect_evidence(snapshot, papers, assignment, window)
    again = collect_evidence(snapshot, papers, assignment, window)
    node_id = next(iter(first.nodes))
    assert first.nodes[node_id] == first.nodes[node_id]
    assert first.nodes[node_id] != again.nodes[node_id]
    assert first.nodes[node_id] in list(first.nodes.values())
    assert again.nodes[node_id] not in list(first.nodes.values())
