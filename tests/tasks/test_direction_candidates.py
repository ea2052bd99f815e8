"""Direction candidates are real directions: late small nodes and chain-phrase nodes are left out."""

from __future__ import annotations

from datetime import date

from foresci.tasks.builders.common import direction_candidates, eligible_nodes, history_share, phrase_share
from foresci.tasks.config import TaskSettings
from foresci.tasks.evidence import DomainEvidence, NodeEvidence
from foresci.tasks.families.direction_forecasting.builder import build_direction_tasks, lead_noise
from foresci.tasks.families.strategic_planning.builder import planning_candidates
from foresci.tasks.windows import make_window
from foresci.taxonomy.models import Lineage, Node, Signal, Snapshot

CUTOFF = date(2024, 12, 31)
SLICES = [(date(2024, 1, 1), date(2024, 3, 31)), (date(2024, 4, 1), date(2024, 6, 30)),
          (date(2024, 7, 1), date(2024, 9, 30)), (date(2024, 10, 1), date(2024, 11, 30)),
          (date(2024, 12, 1), CUTOFF)]
VOCABULARY = frozenset({"alpha", "beta", "gamma", "delta", "router", "cache", "drift"})


def _node(node_id: str, label: str, created_slice: int, papers: int, chain_papers: int = 0) -> NodeEvidence:
    paper_ids = [f"{node_id}-{number}" for number in range(papers)]
    signals = [Signal(kind="bottleneck", text="cache drift", paper_ids=paper_ids[:chain_papers],
                      count=chain_papers)] if chain_papers else []
    node = Node(node_id=node_id, label=label, paper_ids=paper_ids, signals=signals,
                lineage=Lineage(created_slice=created_slice, created_at=SLICES[created_slice][1],
                                event="seed" if created_slice == 0 else "width"))
    return NodeEvidence(node=node, subtree=[node_id], pre_total=papers, baseline=papers // 4, window=10,
                        baseline_share=0.1, window_share=0.1, growth=0.0, pre_ids=paper_ids)


def _domain(nodes: list[NodeEvidence]) -> DomainEvidence:
    snapshot = Snapshot(domain="d", cutoff=CUTOFF, slice_index=len(SLICES) - 1, slice_bounds=SLICES,
                        nodes=[item.node for item in nodes])
    return DomainEvidence(domain="d", snapshot=snapshot, window=make_window(CUTOFF, "3m"), papers={},
                          assignment={}, nodes={item.node_id: item for item in nodes}, reference_baseline=1,
                          reference_window=1, reference_monthly={}, pre_vocabulary=VOCABULARY)


def test_late_and_chain_dominated_nodes_are_not_direction_candidates() -> None:
    old = _node("n1", "alpha router", 0, 60, chain_papers=12)
    mid = _node("n2", "beta cache", 1, 40)
    late = _node("n3", "gamma router", 3, 20)
    chain = _node("n4", "delta drift", 0, 30, chain_papers=21)
    domain = _domain([old, mid, late, chain])
    settings = TaskSettings()

    assert history_share(old, domain) == 1.0
    assert 0.7 < history_share(mid, domain) < 0.8  # created in the slice starting April: 9 of 12 months
    assert history_share(late, domain) < 0.5
    assert phrase_share(chain) == 0.7 and phrase_share(old) == 0.2

    assert {item.node_id for item in eligible_nodes(domain, settings)} == {"n1", "n2", "n3", "n4"}
    assert [item.node_id for item in direction_candidates(domain, settings)] == ["n1", "n2"]
    lenient = TaskSettings(min_history_share=0.1, max_phrase_share=0.9)
    assert [item.node_id for item in direction_candidates(domain, lenient)] == ["n1", "n2", "n3", "n4"]


def test_planning_offers_late_nodes_but_not_bottleneck_subjects() -> None:
    """Entry (newcomer share) needs no long history, so a late node is a planning option while it stays out
    of direction's growth target; a node dominated by one limitation phrase stays out of both (#44)."""
    domain = _domain([_node("n1", "alpha router", 0, 60, chain_papers=12), _node("n2", "beta cache", 1, 40),
                      _node("n3", "gamma router", 3, 20), _node("n4", "delta drift", 0, 30, chain_papers=21)])
    settings = TaskSettings()
    assert [item.node_id for item in planning_candidates(domain, settings)] == ["n1", "n2", "n3"]
    assert "n3" not in {item.node_id for item in direction_candidates(domain, settings)}
    strict = TaskSettings(max_phrase_share=0.15)
    assert [item.node_id for item in planning_candidates(domain, strict)] == ["n2", "n3"]


def _growing(node_id: str, label: str, baseline: int, window: int, growth: float) -> NodeEvidence:
    item = _node(node_id, label, 0, 40 + baseline)
    item.baseline = item.level = baseline
    item.window, item.growth, item.trajectory = window, growth, "accelerating"
    return item


def test_a_lead_within_poisson_noise_makes_no_direction_task() -> None:
    steady = [_growing("n2", "beta cache", 40, 40, 0.0), _growing("n3", "gamma router", 30, 29, -0.05),
              _growing("n4", "delta drift", 20, 18, -0.1)]
    lucky = _domain([_growing("n1", "alpha router", 2, 5, 0.3), *steady])
    real = _domain([_growing("n1", "alpha router", 30, 60, 0.3), *steady])
    settings = TaskSettings(candidates_per_task=4)  # lead 0.3 must reach 0.5 standard errors
    noisy, clear = (lead_noise(domain.nodes["n1"], domain.nodes["n2"]) for domain in (lucky, real))
    assert noisy > 0.6 > clear
    assert build_direction_tasks(lucky, settings, "D", wanted=2) == []
    built = build_direction_tasks(real, settings, "D", wanted=2)
    assert built and all(item.hidden.primary_direction == next(
        candidate.option_id for candidate in item.task.candidates if candidate.node_id == "n1")
        for item in built)
