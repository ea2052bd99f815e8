"""Trajectory rules: normalised by the reference, thresholds from YAML, fragmenting needs children."""

from __future__ import annotations

from collections import Counter
from datetime import date

import numpy as np
import pytest

from foresci.core.errors import UserError
from foresci.kb.models import Paper
from foresci.taxonomy.assign import assign_papers
from foresci.taxonomy.evidence import monthly_counts
from foresci.taxonomy.induce import TaxonomyHistory
from foresci.taxonomy.trajectory import (
    TrajectoryRules,
    classify_trajectory,
    measure_trajectory,
    months_between,
)

BASELINE = (date(2025, 1, 1), date(2025, 3, 31))
WINDOW = (date(2025, 4, 1), date(2025, 6, 30))


def monthly(values: list[int], start_month: int = 1) -> dict[str, int]:
    return {f"2025-{start_month + offset:02d}": value for offset, value in enumerate(values)}


def test_months_between_is_inclusive_and_crosses_years() -> None:
    expected = ["2025-11", "2025-12", "2026-01", "2026-02"]
    assert months_between(date(2025, 11, 20), date(2026, 2, 1)) == expected
    with pytest.raises(ValueError):
        months_between(date(2025, 2, 1), date(2025, 1, 1))


def test_a_node_growing_with_its_field_is_steady_not_accelerating() -> None:
    reference = monthly([100, 100, 100, 200, 200, 200])
    node = monthly([10, 10, 10, 20, 20, 20])
    measure = measure_trajectory(node, reference, WINDOW, BASELINE)
    assert measure.label == "steady"
    assert measure.lift == pytest.approx(1.0, abs=0.05)


def test_share_gain_accelerates_and_share_loss_cools() -> None:
    reference = monthly([100] * 6)
    rising = monthly([10, 10, 10, 20, 25, 30])
    assert classify_trajectory(rising, reference, WINDOW, BASELINE) == "accelerating"
    assert classify_trajectory(monthly([20, 20, 20, 8, 6, 4]), reference, WINDOW, BASELINE) == "cooling"


def test_fragmenting_needs_children_whose_spread_widens() -> None:
    reference = monthly([100] * 6)
    node = monthly([30, 30, 30, 30, 30, 30])
    concentrating = [monthly([10, 10, 10, 28, 28, 28]), monthly([10, 10, 10, 1, 1, 1]),
                     monthly([10, 10, 10, 1, 1, 1])]
    dispersing = [monthly([28, 28, 28, 10, 10, 10]), monthly([1, 1, 1, 10, 10, 10]),
                  monthly([1, 1, 1, 10, 10, 10])]
    assert classify_trajectory(node, reference, WINDOW, BASELINE) == "steady"
    assert classify_trajectory(node, reference, WINDOW, BASELINE, child_monthly=concentrating) == "steady"
    measure = measure_trajectory(node, reference, WINDOW, BASELINE, child_monthly=dispersing)
    assert measure.label == "fragmenting"
    assert measure.entropy_window is not None and measure.entropy_baseline is not None
    assert measure.entropy_window > measure.entropy_baseline


def test_rules_come_from_the_yaml_and_can_be_overridden(tmp_path) -> None:
    defaults = TrajectoryRules.load()
    assert defaults.cooling_lift < 1 < defaults.accelerating_lift
    strict = tmp_path / "trajectory.yaml"
    strict.write_text("rules:\n  accelerating_lift: 5.0\n  cooling_lift: 0.1\n", encoding="utf-8")
    rules = TrajectoryRules.load(strict)
    reference = monthly([100] * 6)
    rising = monthly([10, 10, 10, 20, 25, 30])
    assert classify_trajectory(rising, reference, WINDOW, BASELINE, rules) == "steady"
    broken = tmp_path / "broken.yaml"
    broken.write_text("rules:\n  accelerating_lift: 0.5\n", encoding="utf-8")
    with pytest.raises(UserError, match="broken.yaml"):
        TrajectoryRules.load(broken)


def test_empty_reference_is_an_error() -> None:
    with pytest.raises(ValueError, match="reference has no papers"):
        classify_trajectory(monthly([1] * 6), {}, WINDOW, BASELINE)


def test_planted_trends_are_recovered_through_the_taxonomy(planted: tuple[list[Paper], np.ndarray],
                                                           planted_history: TaxonomyHistory) -> None:
    papers, embeddings = planted
    final = planted_history.final
    assignment = assign_papers(final, papers, embeddings)
    by_paper = {paper.paper_id: paper for paper in papers}
    reference = monthly_counts(papers)
    labels = {}
    for node in final.children(None):
        topic = Counter(paper_id.split("-")[0] for paper_id in node.paper_ids).most_common(1)[0][0]
        leaves = {leaf.node_id for leaf in final.leaves()}
        members = [by_paper[paper_id] for paper_id, leaf in assignment.items()
                   if leaf == node.node_id or (leaf in leaves and _ancestor(final, leaf, node.node_id))]
        labels[topic] = classify_trajectory(monthly_counts(members), reference,
                                            (date(2025, 5, 1), date(2025, 6, 30)),
                                            (date(2025, 2, 1), date(2025, 4, 30)))
    assert labels["crandor"] == "accelerating"
    assert labels["fimbral"] == "accelerating"
    assert labels["vellium"] == "cooling"
    assert labels["zorblax"] == "steady"


def _ancestor(snapshot, node_id: str, ancestor_id: str) -> bool:
    parent = snapshot.node(node_id).parent_id
    while parent is not None:
        if parent == ancestor_id:
            return True
        parent = snapshot.node(parent).parent_id
    return False


def test_recent_momentum_uses_only_pre_cutoff_counts(planted_history: TaxonomyHistory) -> None:
    final = planted_history.final
    assert all(node.recent_trajectory is not None for node in final.nodes)
    newcomer = next(node for node in final.children(None) if node.paper_ids[0].startswith("fimbral"))
    fading = next(node for node in final.children(None) if node.paper_ids[0].startswith("vellium"))
    assert newcomer.recent_trajectory == "accelerating"
    assert fading.recent_trajectory == "cooling"
    assert all(month <= "2025-04" for node in final.nodes for month in node.monthly_counts)
