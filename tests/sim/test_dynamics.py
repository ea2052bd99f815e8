"""Each planted dynamic is visible in the written corpus; the difficulty dial works at both ends."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from foresci.core.io import iter_jsonl
from foresci.sim.knobs import WorldConfig
from foresci.sim.plan import plan_world, total_counts
from foresci.sim.stats import corpus_monthly_counts, halves_p_value, pre_cutoff_separability, split_counts
from foresci.sim.truth import GroundTruth, TrajectoryLabel
from foresci.sim.world import load_ground_truth


def _texts(world: Path) -> list[tuple[str, str]]:
    """(announcement month, normalised title + abstract) of each paper's first row."""
    seen: set[str] = set()
    texts = []
    for path in sorted((world / "corpus").glob("*.jsonl*")):
        for row in iter_jsonl(path):
            if row["id"] not in seen:
                seen.add(row["id"])
                texts.append((path.name[:7], " ".join(f"{row['title']} {row['summary']}".split())))
    return texts


def _pooled_ratio(truth: GroundTruth, counts: dict[str, dict[str, int]], label: TrajectoryLabel) -> float:
    window = before = 0.0
    for direction in truth.by_label(label):
        window_mean, before_mean = split_counts(truth, counts[direction.direction_id])
        window, before = window + window_mean, before + before_mean
    return window / before


def _planted_pooled_ratio(truth: GroundTruth, label: TrajectoryLabel) -> float:
    rates = {
        direction.direction_id: {
            month: round(rate * 1000) for month, rate in direction.true_monthly_rates.items()
        }
        for direction in truth.directions
    }
    return _pooled_ratio(truth, rates, label)


def test_corpus_text_counts_match_the_recorded_observations(clean_world: Path) -> None:
    truth = load_ground_truth(clean_world)
    counts = corpus_monthly_counts(clean_world, truth)
    for direction in truth.directions:
        assert counts[direction.direction_id] == direction.observed_counts
        assert direction.observed_counts == direction.planted_counts  # no noise: observed = planted


@pytest.mark.parametrize("world_name", ["clean_world", "noisy_world"])
def test_growth_and_decline_match_the_planted_factor(world_name: str, request: pytest.FixtureRequest) -> None:
    world: Path = request.getfixturevalue(world_name)
    truth = load_ground_truth(world)
    counts = corpus_monthly_counts(world, truth)
    observed = {label: _pooled_ratio(truth, counts, label) for label in ("accelerating", "steady", "cooling")}
    # noise moves papers between directions (mislabels), so the tolerance widens with it
    labels = (
        ("accelerating", "cooling", "steady") if truth.config["noise"] == 0 else ("accelerating", "cooling")
    )
    for label in labels:
        assert observed[label] == pytest.approx(_planted_pooled_ratio(truth, label), rel=0.3), label
    assert observed["accelerating"] > observed["steady"] > observed["cooling"]
    assert _planted_pooled_ratio(truth, "accelerating") > 1.8
    assert _planted_pooled_ratio(truth, "cooling") < 0.6
    for direction in truth.directions:
        window_mean, before_mean = split_counts(truth, counts[direction.direction_id])
        if direction.trajectory == "accelerating":
            assert window_mean > 1.2 * before_mean, direction.direction_id
        if direction.trajectory == "cooling":
            assert window_mean < 0.85 * before_mean, direction.direction_id


def test_fragmenting_children_emerge_only_after_the_cutoff_at_high_difficulty(hard_world: Path) -> None:
    truth = load_ground_truth(hard_world)
    texts = _texts(hard_world)
    fragmenting = truth.by_label("fragmenting")
    assert fragmenting
    for direction in fragmenting:
        assert len(direction.children) >= 2
        for child in direction.children:
            months = [month for month, text in texts if child.vocabulary.name in text.lower()]
            assert months and min(months) > truth.cutoff_month
            assert min(months) >= child.emerges
            assert len(months) >= 3
            assert all(
                direction.name in text.lower() for _, text in texts if child.vocabulary.name in text.lower()
            )


def test_fragmenting_children_are_already_visible_before_the_cutoff_at_low_difficulty(
    easy_world: Path,
) -> None:
    truth = load_ground_truth(easy_world)
    texts = _texts(easy_world)
    early = [
        child
        for direction in truth.by_label("fragmenting")
        for child in direction.children
        if any(month <= truth.cutoff_month and child.vocabulary.name in text.lower() for month, text in texts)
    ]
    assert early


def test_bottleneck_chains_report_then_resolve_then_open(hard_world: Path) -> None:
    truth = load_ground_truth(hard_world)
    texts = _texts(hard_world)
    for direction in truth.directions:
        upcoming = [chain for chain in direction.bottlenecks if chain.after_cutoff]
        historic = [chain for chain in direction.bottlenecks if not chain.after_cutoff]
        assert upcoming and historic, direction.direction_id
        for chain in direction.bottlenecks:
            phrases = [chain.bottleneck, *chain.bottleneck_variants]
            reported = [
                month
                for month, text in texts
                if "limited by" in text and any(f"limited by {phrase}" in text for phrase in phrases)
            ]
            assert reported and min(reported) < chain.resolved
            opened = [
                month
                for month, text in texts
                if f"reduces {chain.bottleneck}, which opens the way to {chain.opportunity}" in text
            ]
            assert opened and min(opened) == chain.resolved
        for (
            chain
        ) in upcoming:  # at the highest difficulty nothing about the opportunity leaks before the cutoff
            for phrase in (chain.opportunity, *chain.opportunity_variants):
                assert not [month for month, text in texts if phrase in text and month <= truth.cutoff_month]


def test_opportunities_are_hinted_before_the_cutoff_at_low_difficulty(easy_world: Path) -> None:
    truth = load_ground_truth(easy_world)
    texts = [text for month, text in _texts(easy_world) if month <= truth.cutoff_month]
    hinted = [
        chain
        for direction in truth.directions
        for chain in direction.bottlenecks
        if chain.after_cutoff
        and any(f"A promising direction for future work is {chain.opportunity}" in text for text in texts)
    ]
    assert hinted


def test_method_relation_cues_appear_from_their_first_month(clean_world: Path) -> None:
    truth = load_ground_truth(clean_world)
    texts = _texts(clean_world)
    relations = {relation.relation for relation in truth.method_relations}
    assert relations == {"extension", "replacement", "component_reuse"}
    cue_words = {"extension": "We extend", "replacement": "replacing the", "component_reuse": "We reuse the"}
    for relation in truth.method_relations:
        assert cue_words[relation.relation] in relation.cue and relation.source_method in relation.cue
        months = [month for month, text in texts if relation.cue in text]
        assert all(month >= relation.first_month for month in months)
        if relation.first_month <= truth.cutoff_month:
            assert months, relation.cue


def test_labels_are_balanced_and_no_label_dominates(clean_world: Path) -> None:
    truth = load_ground_truth(clean_world)
    for label in ("accelerating", "cooling", "steady", "fragmenting"):
        assert 0 < len(truth.by_label(label)) <= len(truth.directions) / 2


def _plan_p_value(seed: int, difficulty: float) -> float:
    plan = plan_world(WorldConfig(seed=seed, difficulty=difficulty, n_domains=2))

    def series(label: str) -> list[list[int]]:
        return [
            total_counts(item)[: plan.cutoff_index + 1] for item in plan.directions if item.label == label
        ]

    return halves_p_value(series("accelerating"), series("cooling"))


def test_lowest_difficulty_separates_growth_from_decline_before_the_cutoff(easy_world: Path) -> None:
    assert pre_cutoff_separability(load_ground_truth(easy_world)) < 0.01
    assert all(_plan_p_value(seed, 0.0) < 0.01 for seed in range(10))


def test_highest_difficulty_makes_them_indistinguishable_before_the_cutoff(hard_world: Path) -> None:
    truth = load_ground_truth(hard_world)
    assert all(direction.pre_slope == 0 for direction in truth.directions)
    assert pre_cutoff_separability(truth) > 0.05
    rejections = sum(_plan_p_value(seed, 1.0) < 0.05 for seed in range(10))
    assert rejections <= 2  # about the 5 % a true null gives


def test_venue_years_and_comments_look_like_arxiv(clean_world: Path) -> None:
    comments = [
        row["comment"]
        for path in sorted((clean_world / "corpus").glob("*.jsonl"))
        for row in iter_jsonl(path)
        if row["comment"]
    ]
    accepted = [
        comment
        for comment in comments
        if re.search(
            r"(CVPR|ICLR|NeurIPS|ACL|KDD|AAAI|ICML|EMNLP|NAACL|"
            r"IJCAI|SIGIR|ICCV|ECCV) 20\d\d",
            comment,
        )
    ]
    assert len(accepted) > len(comments) / 2
