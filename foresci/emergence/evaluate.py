"""Score every baseline on an emergence set: the five network baselines, the learned baseline trained on
the earlier cutoff ``t - window``, and the audit (degree bias, positive share, what the features read)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import numpy as np

from foresci.emergence.build import EmergenceSet, emergence_set, shift_months
from foresci.emergence.concepts import ConceptPaper
from foresci.emergence.config import EmergenceSettings
from foresci.emergence.features import BASELINES
from foresci.emergence.learned import LearnedModel, fit_learned
from foresci.emergence.scoring import Interval, auc_difference, score_pairs

LEARNED = "learned"


@dataclass(frozen=True)
class Evaluation:
    """One emergence set scored at one positive threshold ``k``."""

    cutoff: date
    window_end: date
    min_papers: int
    total_candidates: int
    scored_candidates: int
    positives: int
    scores: dict[str, dict[str, Interval]]  # method -> metric -> interval
    audit: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready summary."""
        return {
            "cutoff": self.cutoff.isoformat(), "window_end": self.window_end.isoformat(),
            "min_papers": self.min_papers, "total_candidates": self.total_candidates,
            "scored_candidates": self.scored_candidates, "positives": self.positives,
            "scores": {method: {name: interval.as_dict() for name, interval in metrics.items()}
                       for method, metrics in self.scores.items()},
            "audit": self.audit,
        }


def train_learned(papers: Sequence[ConceptPaper], cutoff: date, months: int, min_papers: int,
                  settings: EmergenceSettings) -> LearnedModel:
    """The learned baseline for ``cutoff``: fitted at ``cutoff - months`` with labels up to ``cutoff``."""
    earlier = shift_months(cutoff, -months)
    visible = [paper for paper in papers if paper.announced <= cutoff]
    training = emergence_set(visible, earlier, cutoff, settings, settings.learned.max_training_pairs)
    return fit_learned(training.snapshot.features.matrix(), training.labels(min_papers), settings.learned)


def method_scores(target: EmergenceSet, model: LearnedModel) -> dict[str, np.ndarray]:
    """Score of every candidate under each baseline (higher: more likely to emerge)."""
    features = target.snapshot.features
    scores = {name: features.baseline(name) for name in BASELINES}
    scores[LEARNED] = model.score(features.matrix())
    return scores


def evaluate(target: EmergenceSet, model: LearnedModel, min_papers: int,
             settings: EmergenceSettings) -> Evaluation:
    """AUC and precision@k with bootstrap intervals for every method, and the audit."""
    labels = target.labels(min_papers)
    scoring = settings.scoring
    methods = method_scores(target, model)
    concepts = target.snapshot.candidates.pairs if scoring.bootstrap_unit == "concepts" else None
    scored = {name: score_pairs(values, labels, scoring.precision_at, scoring.bootstrap_resamples,
                                scoring.bootstrap_seed, concepts)
              for name, values in methods.items()}
    lift = auc_difference(methods[LEARNED], methods["preferential_attachment"], labels,
                          scoring.bootstrap_resamples, scoring.bootstrap_seed, concepts)
    degree = score_pairs(target.snapshot.features.baseline("degree"), labels, [], 0, 0)["auc"].value
    best = max((metrics["auc"].value for metrics in scored.values()), default=float("nan"))
    network = target.snapshot.network
    audit = {
        "positive_share": round(float(labels.mean()), 6) if len(labels) else None,
        "degree_auc": round(degree, 4),
        "degree_share_of_best_lift": round((degree - 0.5) / (best - 0.5), 4) if best > 0.5 else None,
        "features_last_read": network.last_read.isoformat() if network.last_read else None,
        "features_read_after_cutoff": bool(network.last_read and network.last_read > target.snapshot.cutoff),
        "pre_cutoff_papers": network.papers, "window_papers": target.window_papers,
        "concepts": len(target.snapshot.vocabulary), "candidates_sampled": target.snapshot.candidates.sampled,
        "learned": model.note,
        "learned_minus_preferential_attachment_auc": lift.as_dict(),
    }
    return Evaluation(cutoff=target.snapshot.cutoff, window_end=target.window_end, min_papers=min_papers,
                      total_candidates=target.snapshot.candidates.total, scored_candidates=len(labels),
                      positives=int(labels.sum()), scores=scored, audit=audit)


def evaluate_window(papers: Sequence[ConceptPaper], cutoff: date, months: int,
                    settings: EmergenceSettings) -> list[Evaluation]:
    """Every ``targets.positive_min_papers`` evaluation of the window of ``months`` after ``cutoff``."""
    target = emergence_set(papers, cutoff, shift_months(cutoff, months), settings)
    results = []
    trained: dict[int, LearnedModel] = {}
    for min_papers in settings.targets.positive_min_papers:
        train_k = settings.learned.train_min_papers or min_papers
        if train_k not in trained:
            trained[train_k] = train_learned(papers, cutoff, months, train_k, settings)
        results.append(evaluate(target, trained[train_k], min_papers, settings))
    return results
