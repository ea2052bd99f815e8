"""Synthetic emergence worlds: planted pairs are what emerges; pre-cutoff signals announce them only at
low difficulty (the learned baseline's AUC; the 10-world goal is benchmarks/emergence_sim.py)."""

from __future__ import annotations

from foresci.emergence.concepts import concept_papers
from foresci.emergence.config import load_emergence_settings
from foresci.emergence.evaluate import LEARNED, evaluate_window
from foresci.sim.emergence import EmergenceWorldConfig, generate_emergence_world

SETTINGS = load_emergence_settings()
FAST = SETTINGS.model_copy(update={
    "targets": SETTINGS.targets.model_copy(update={"positive_min_papers": [1]}),
    "scoring": SETTINGS.scoring.model_copy(update={"bootstrap_resamples": 100}),
})


def _evaluate(seed: int, difficulty: float):  # type: ignore[no-untyped-def]
    config = EmergenceWorldConfig(seed=seed, difficulty=difficulty)
    world = generate_emergence_world(config)
    return world, evaluate_window(concept_papers(world.papers, FAST.vocabulary), config.cutoff,
                                  config.window_months, FAST)[0]


def test_same_seed_same_world_and_planted_pairs_are_the_positives() -> None:
    config = EmergenceWorldConfig(seed=3, difficulty=0.5, concepts=40, papers_per_month=40, planted_pairs=8)
    world, again = generate_emergence_world(config), generate_emergence_world(config)
    assert world.papers == again.papers and world.planted == again.planted
    assert sum(pair.announced for pair in world.planted) == 4
    before = [paper for paper in world.papers if paper.announced <= config.cutoff]
    for pair in world.planted:  # never together before the cutoff, together after it
        assert not any(pair.first in p.abstract and pair.second in p.abstract for p in before)
        after = [p for p in world.papers if p.announced > config.cutoff
                 and pair.first in p.abstract and pair.second in p.abstract]
        assert len(after) == config.papers_per_pair


def test_learned_baseline_sees_announced_pairs_only() -> None:
    for seed in (1, 2):
        world, easy = _evaluate(seed, 0.0)
        assert easy.positives >= 0.8 * len(world.planted)
        auc = easy.scores[LEARNED]["auc"]
        assert auc.low is not None and auc.low > 0.75, (seed, auc)
        _, hard = _evaluate(seed, 1.0)
        auc = hard.scores[LEARNED]["auc"]
        assert auc.low is not None and auc.high is not None
        assert auc.low - 0.05 <= 0.5 <= auc.high + 0.05, (seed, auc)
        assert not hard.audit["features_read_after_cutoff"]
