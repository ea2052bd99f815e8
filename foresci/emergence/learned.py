"""The learned baseline: a scikit-learn model on the pair features of an earlier cutoff.

Trained on the latest window the cutoff closes (features of the candidates at ``t - L``, labels from
``(t - L, t]``, ``L = learned.train_window_months`` whatever the task's window, so every training input is
at or before ``t``) and applied to the candidates at ``t``: the recipe of Science4Cast's winning entry
(curated network features, a simple model). A model with nothing to learn from (the KB does not cover the
training period, or the window holds too few positives) is *not trainable*: it carries the reason and no
estimator, and an evaluation names it instead of scoring it.

What it reads of each feature (``learned.inputs``): the percentile among the cutoff's candidates (an
earlier cutoff's network is smaller, so raw counts would not mean the same at training and at application),
or that percentile's normal score (:func:`normal_scores`: the same order, but the top and bottom of a
heavy-tailed measure such as d_i * d_j stay spread apart instead of being squeezed into the last percent).
What it predicts (``learned.model``): a classifier's probability that the pair co-occurs, or, for
``poisson``, the pair's expected window papers, scored as P(at least one) = 1 - exp(-expected).
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
    inputs: str = "percentiles"  # what it reads of each column: percentiles or normal_scores
    counts: bool = False  # a regression of window papers (scored as 1 - exp(-expected)), not a classifier

    @property
    def trainable(self) -> bool:
        """True when a classifier was fitted."""
        return self.estimator is not None

    def score(self, features: np.ndarray) -> np.ndarray:
        """Probability of emergence of each row (a constant 0.5 for a model that is not trainable)."""
        if self.estimator is None or len(features) == 0:
            return np.full(len(features), 0.5)
        chosen = model_inputs(features if self.columns is None else features[:, list(self.columns)],
                              self.inputs)
        if self.counts:
            expected = np.asarray(self.estimator.predict(chosen), dtype=np.float64)  # type: ignore[attr-defined]
            return -np.expm1(-expected)
        probabilities = self.estimator.predict_proba(chosen)  # type: ignore[attr-defined]
        return np.asarray(probabilities[:, 1], dtype=np.float64)


def normal_scores(percentiles: np.ndarray) -> np.ndarray:
    """The normal score of each percentile in (0, 1] (:meth:`PairFeatures.matrix`'s columns, n rows): the
    standard normal quantile of the mid-rank ``p - 1 / (2 n)``, so the top percentile maps to a finite value
    and the order within each column is kept."""
    from scipy.stats import norm

    values = np.asarray(percentiles, dtype=np.float64)
    if len(values) == 0:
        return values
    half = 0.5 / len(values)
    return np.asarray(norm.ppf(np.clip(values - half, half, 1.0 - half)), dtype=np.float64)


def model_inputs(percentiles: np.ndarray, inputs: str) -> np.ndarray:
    """What a model reading ``inputs`` (percentiles or normal_scores) is given of the feature columns."""
    return normal_scores(percentiles) if inputs == "normal_scores" else percentiles


def not_trainable(reason: str, pairs: int = 0, positives: int = 0, training_cutoff: date | None = None,
                  training_end: date | None = None) -> LearnedModel:
    """A model that is not trainable, with ``reason``."""
    return LearnedModel(None, pairs, positives, f"not trainable: {reason}", training_cutoff, training_end)


def _estimator(settings: LearnedSettings) -> object:
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if settings.model == "poisson":
        from sklearn.linear_model import PoissonRegressor

        return make_pipeline(StandardScaler(), PoissonRegressor(alpha=1e-4, max_iter=1000))
    if settings.model == "gradient_boosting":
        from sklearn.ensemble import HistGradientBoostingClassifier

        return HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, random_state=settings.seed)
    from sklearn.linear_model import LogisticRegression

    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, class_weight="balanced"))


def fit_learned(features: np.ndarray, labels: np.ndarray, settings: LearnedSettings,
                training_cutoff: date | None = None, training_end: date | None = None,
                columns: tuple[int, ...] | None = None, counts: np.ndarray | None = None) -> LearnedModel:
    """Fit the model on (a seeded sample of at most ``max_training_pairs``) training pairs, reading
    ``columns`` of ``features`` (None: all); not trainable with fewer than ``min_training_positives``
    positives (``labels``) or negatives. A ``poisson`` model regresses ``counts`` (each pair's window papers;
    None: the labels as 0/1)."""
    rows = np.arange(len(labels))
    if len(rows) > settings.max_training_pairs:
        rows = np.sort(np.random.default_rng(settings.seed).choice(len(rows), settings.max_training_pairs,
                                                                    replace=False))
    chosen = features if columns is None else features[:, list(columns)]
    x, y = model_inputs(chosen, settings.inputs)[rows], labels[rows].astype(int)  # scores over every pair
    poisson = settings.model == "poisson"
    target = (counts[rows] if counts is not None else y).astype(np.float64) if poisson else y
    positives = int(y.sum())
    fewest = settings.min_training_positives
    if positives < fewest or len(y) - positives < fewest:
        period = f" ({training_cutoff} -> {training_end})" if training_cutoff else ""
        return not_trainable(f"{len(y)} training pairs{period} with {positives} positives (needs at least "
                             f"{fewest} of each class)", len(y), positives, training_cutoff, training_end)
    estimator = _estimator(settings)
    estimator.fit(x, target)  # type: ignore[attr-defined]
    read = ("" if columns is None else f", {len(columns)} features") + f" as {settings.inputs}"
    note = (f"{settings.model} on {len(y)} pairs, {positives} positive ({training_cutoff} -> {training_end})"
            f"{read}")
    return LearnedModel(estimator, len(y), positives, note, training_cutoff, training_end, columns,
                        settings.inputs, poisson)
