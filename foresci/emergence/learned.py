"""The learned baseline: a scikit-learn classifier on the pair features of an earlier cutoff.

Trained on the latest window the cutoff closes (features of the candidates at ``t - L``, labels from
``(t - L, t]``, ``L = learned.train_window_months`` whatever the task's window, so every training input is
at or before ``t``) and applied to the candidates at ``t``: the recipe of Science4Cast's winning entry
(curated network features, a simple model). A model with nothing to learn from (the KB does not cover the
training period, or the window holds too few positives) is *not trainable*: it carries the reason and no
estimator, and an evaluation names it instead of scoring it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import numpy as np

from foresci.emergence.config import LearnedSettings


@dataclass(frozen=True)
class LearnedModel:
    """A fitted classifier (None when not trainable: ``note`` says why) and its training facts."""

    estimator: object | None
    training_pairs: int
    training_positives: int
    note: str
    training_cutoff: date | None = None  # the training snapshot's cutoff
    training_end: date | None = None  # the end of the window its labels read
    columns: tuple[int, ...] | None = None  # the feature columns it reads (None: all)

    @property
    def trainable(self) -> bool:
        """True when a classifier was fitted."""
        return self.estimator is not None

    def score(self, features: np.ndarray) -> np.ndarray:
        """Probability of emergence of each row (a constant 0.5 for a model that is not trainable)."""
        if self.estimator is None or len(features) == 0:
            return np.full(len(features), 0.5)
        chosen = features if self.columns is None else features[:, list(self.columns)]
        probabilities = self.estimator.predict_proba(chosen)  # type: ignore[attr-defined]
        return np.asarray(probabilities[:, 1], dtype=np.float64)


def not_trainable(reason: str, pairs: int = 0, positives: int = 0, training_cutoff: date | None = None,
                  training_end: date | None = None) -> LearnedModel:
    """A model that is not trainable, with ``reason``."""
    return LearnedModel(None, pairs, positives, f"not trainable: {reason}", training_cutoff, training_end)


def _estimator(settings: LearnedSettings) -> object:
    if settings.model == "gradient_boosting":
        from sklearn.ensemble import HistGradientBoostingClassifier

        return HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, random_state=settings.seed)
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, class_weight="balanced"))


def fit_learned(features: np.ndarray, labels: np.ndarray, settings: LearnedSettings,
                training_cutoff: date | None = None, training_end: date | None = None,
                columns: tuple[int, ...] | None = None) -> LearnedModel:
    """Fit the classifier on (a seeded sample of at most ``max_training_pairs``) training pairs, reading
    ``columns`` of ``features`` (None: all); not trainable with fewer than ``min_training_positives``
    positives or negatives."""
    rows = np.arange(len(labels))
    if len(rows) > settings.max_training_pairs:
        rows = np.sort(np.random.default_rng(settings.seed).choice(len(rows), settings.max_training_pairs,
                                                                    replace=False))
    x, y = features[rows], labels[rows].astype(int)
    if columns is not None:
        x = x[:, list(columns)]
    positives = int(y.sum())
    fewest = settings.min_training_positives
    if positives < fewest or len(y) - positives < fewest:
        period = f" ({training_cutoff} -> {training_end})" if training_cutoff else ""
        return not_trainable(f"{len(y)} training pairs{period} with {positives} positives (needs at least "
                             f"{fewest} of each class)", len(y), positives, training_cutoff, training_end)
    estimator = _estimator(settings)
    estimator.fit(x, y)  # type: ignore[attr-defined]
    read = "" if columns is None else f", {len(columns)} features"
    note = (f"{settings.model} on {len(y)} pairs, {positives} positive ({training_cutoff} -> {training_end})"
            f"{read}")
    return LearnedModel(estimator, len(y), positives, note, training_cutoff, training_end, columns)
