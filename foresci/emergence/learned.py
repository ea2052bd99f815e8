"""The learned baseline: a scikit-learn classifier on the pair features of an earlier cutoff.

Trained on the cutoff ``t - window`` (features of its candidates there, labels from ``(t - window, t]``,
so every training input is at or before ``t``) and applied to the candidates at ``t``: the recipe of
Science4Cast's winning entry (curated network features, a simple model).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from foresci.emergence.config import LearnedSettings


@dataclass(frozen=True)
class LearnedModel:
    """A fitted classifier (None when the training cutoff had a single class) and its training facts."""

    estimator: object | None
    training_pairs: int
    training_positives: int
    note: str

    def score(self, features: np.ndarray) -> np.ndarray:
        """Probability of emergence of each row (a constant 0.5 for an untrained model)."""
        if self.estimator is None or len(features) == 0:
            return np.full(len(features), 0.5)
        probabilities = self.estimator.predict_proba(features)  # type: ignore[attr-defined]
        return np.asarray(probabilities[:, 1], dtype=np.float64)


def _estimator(settings: LearnedSettings) -> object:
    if settings.model == "gradient_boosting":
        from sklearn.ensemble import HistGradientBoostingClassifier

        return HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, random_state=settings.seed)
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, class_weight="balanced"))


def fit_learned(features: np.ndarray, labels: np.ndarray, settings: LearnedSettings) -> LearnedModel:
    """Fit the classifier on (a seeded sample of at most ``max_training_pairs``) training pairs."""
    rows = np.arange(len(labels))
    if len(rows) > settings.max_training_pairs:
        rows = np.sort(np.random.default_rng(settings.seed).choice(len(rows), settings.max_training_pairs,
                                                                    replace=False))
    x, y = features[rows], labels[rows].astype(int)
    positives = int(y.sum())
    if positives == 0 or positives == len(y):
        return LearnedModel(None, len(y), positives,
                            f"untrained: {len(y)} training pairs with {positives} positives (one class)")
    estimator = _estimator(settings)
    estimator.fit(x, y)  # type: ignore[attr-defined]
    note = f"{settings.model} on {len(y)} pairs, {positives} positive"
    return LearnedModel(estimator, len(y), positives, note)
