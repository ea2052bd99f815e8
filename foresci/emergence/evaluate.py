"""Score every baseline on an emergence set: the five network baselines, the learned baseline trained on
the latest window the cutoff closes (:func:`training_period`), and the audit (degree bias, positive share,
what the features read, degree-stratified AUCs). A learned model that is not trainable is named in the
evaluation (``not_trainable``) and has no score."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import numpy as np

from foresci.emergence.build import EmergenceSet, NameEmbedder, emergence_set, shift_months
from foresci.emergence.concepts import ConceptPaper
from foresci.emergence.config import EmergenceSettings
from foresci.emergence.features import BASELINES, feature_columns
from foresci.emergence.learned import LearnedModel, fit_learned, not_trainable
from foresci.emergence.scoring import Interval, auc_difference, degree_strata, score_pairs, stratified_aucs

LEARNED = "learned"
DEGREE = "degree"


@dataclass(frozen=True)
class Evaluation:
    """One emergence set scored at one positive threshold ``k``."""

    cutoff: date
    window_end: date
    min_papers: int
    total_candidates: int
    scored_candidates: int
    positives: int
    scores: dict[str, dict[str, Interval]]  # method -> metric -> interval (no LEARNED when not trainable)
    audit: dict[str, Any]
    stratified: dict[str, Interval]  # method (and 'learned-preferential_attachment') -> stratified AUC
    not_trainable: str | None = None  # why the learned baseline has no score (None: it has one)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready summary."""
        return {
            "cutoff": self.cutoff.isoformat(), "window_end": self.window_end.isoformat(),
            "min_papers": self.min_papers, "total_candidates": self.total_candidates,
            "scored_candidates": self.scored_candidates, "positives": self.positives,
            "scores": {method: {name: interval.as_dict() for name, interval in metrics.items()}
                       for method, metrics in self.scores.items()},
            "degree_stratified_auc": {name: interval.as_dict() for name, interval in self.stratified.items()},
            "not_trainable": self.not_trainable,
            "audit": self.audit,
        }


@dataclass(frozen=True)
class TrainingPeriod:
    """The training snapshot's cutoff, the end of the window its labels read, and why it cannot be used."""

    cutoff: date
    end: date
    reason: str | None  # None: the KB covers it


def training_period(cutoff: date, first_paper: date | None, settings: EmergenceSettings) -> TrainingPeriod:
    """The latest ``learned.train_window_months`` window closed at ``cutoff`` (whatever the task's window),
    usable when the papers fill at least ``learned.min_history_months`` calendar months up to its snapshot
    (the snapshot's own month included)."""
    learned = settings.learned
    start = shift_months(cutoff, -learned.train_window_months)
    reason = None
    if first_paper is None:
        reason = f"no papers up to {cutoff}"
    elif history_months(first_paper, start) < learned.min_history_months:
        reason = (f"the training window ({start}, {cutoff}] needs papers in {learned.min_history_months} "
                  f"calendar months up to its snapshot; the papers begin {first_paper} "
                  f"({max(history_months(first_paper, start), 0)})")
    return TrainingPeriod(start, cutoff, reason)


def history_months(first_paper: date, snapshot: date) -> int:
    """Calendar months from the first paper's month to the snapshot's month, both included."""
    return (snapshot.year - first_paper.year) * 12 + snapshot.month - first_paper.month + 1


def train_learned(papers: Sequence[ConceptPaper], cutoff: date, min_papers: int, settings: EmergenceSettings,
                  embed: NameEmbedder | None = None) -> LearnedModel:
    """The learned baseline for ``cutoff``, fitted on :func:`training_period` (papers up to ``cutoff``
    only), or a model that is not trainable, with the reason."""
    visible = [paper for paper in papers if paper.announced <= cutoff]
    first = min((paper.announced for paper in visible), default=None)
    period = training_period(cutoff, first, settings)
    if period.reason:
        return not_trainable(period.reason, training_cutoff=period.cutoff, training_end=period.end)
    training = emergence_set(visible, period.cutoff, period.end, settings,
                             settings.learned.max_training_pairs, embed)
    history = history_months(first, period.cutoff) if first else 0
    return fit_learned(training.snapshot.features.matrix(), training.labels(min_papers), settings.learned,
                       period.cutoff, period.end,
                       feature_columns(history, settings.learned.features), training.counts)


def method_scores(target: EmergenceSet, model: LearnedModel) -> dict[str, np.ndarray]:
    """Score of every candidate under each baseline (higher: more likely to emerge); the learned baseline
    only when it is trainable."""
    features = target.snapshot.features
    scores = {name: features.baseline(name) for name in BASELINES}
    if model.trainable:
        scores[LEARNED] = model.score(features.matrix())
    return scores


def evaluate(target: EmergenceSet, model: LearnedModel, min_papers: int,
             settings: EmergenceSettings) -> Evaluation:
    """AUC and precision@k with bootstrap intervals for every method, degree-stratified AUCs, the audit."""
    labels = target.labels(min_papers)
    scoring = settings.scoring
    methods = method_scores(target, model)
    concepts = target.snapshot.candidates.pairs if scoring.bootstrap_unit == "concepts" else None
    scored = {name: score_pairs(values, labels, scoring.precision_at, scoring.bootstrap_resamples,
                                scoring.bootstrap_seed, concepts)
              for name, values in methods.items()}
    features = target.snapshot.features
    size = features.baseline("preferential_attachment")
    strata = degree_strata(size, scoring.degree_strata)
    differences = ((LEARNED, "preferential_attachment"),) if model.trainable else ()
    stratified = stratified_aucs({**methods, DEGREE: features.baseline("degree")}, labels, strata,
                                 scoring.bootstrap_resamples, scoring.bootstrap_seed, concepts, differences)
    lift = auc_difference(methods[LEARNED], methods["preferential_attachment"], labels,
                          scoring.bootstrap_resamples, scoring.bootstrap_seed, concepts) \
        if model.trainable else None
    degree = score_pairs(features.baseline("degree"), labels, [], 0, 0)["auc"].value
    best = max((metrics["auc"].value for metrics in scored.values()), default=float("nan"))
    network = target.snapshot.network
    audit = {
        "positive_share": round(float(labels.mean()), 6) if len(labels) else None,
        "degree_auc": round(degree, 4),
        "degree_share_of_best_lift": round((degree - 0.5) / (best - 0.5), 4) if best > 0.5 else None,
        "degree_strata": int(len(np.unique(strata))),
        "features_last_read": network.last_read.isoformat() if network.last_read else None,
        "features_read_after_cutoff": bool(network.last_read and network.last_read > target.snapshot.cutoff),
        "pre_cutoff_papers": network.papers, "window_papers": target.window_papers,
        "concepts": len(target.snapshot.vocabulary), "candidates_sampled": target.snapshot.candidates.sampled,
        "learned": model.note,
        "learned_training": {"cutoff": model.training_cutoff.isoformat() if model.training_cutoff else None,
                             "window_end": model.training_end.isoformat() if model.training_end else None},
        "learned_minus_preferential_attachment_auc": lift.as_dict() if lift else None,
    }
    return Evaluation(cutoff=target.snapshot.cutoff, window_end=target.window_end, min_papers=min_papers,
                      total_candidates=target.snapshot.candidates.total, scored_candidates=len(labels),
                      positives=int(labels.sum()), scores=scored, audit=audit, stratified=stratified,
                      not_trainable=None if model.trainable else model.note)


def evaluate_window(papers: Sequence[ConceptPaper], cutoff: date, months: int, settings: EmergenceSettings,
                    embed: NameEmbedder | None = None,
                    trained: dict[tuple[date, int], LearnedModel] | None = None) -> list[Evaluation]:
    """Every ``targets.positive_min_papers`` evaluation of the window of ``months`` after ``cutoff``
    (``trained``: models by (cutoff, training k) to reuse across the windows of one cutoff and papers:
    the training period does not depend on the window)."""
    target = emergence_set(papers, cutoff, shift_months(cutoff, months), settings, embed=embed)
    results = []
    models = trained if trained is not None else {}
    for min_papers in settings.targets.positive_min_papers:
        key = (cutoff, settings.learned.train_min_papers or min_papers)
        if key not in models:
            models[key] = train_learned(papers, cutoff, key[1], settings, embed)
        results.append(evaluate(target, models[key], min_papers, settings))
    return results
