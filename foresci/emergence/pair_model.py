"""The learned link predictor of one domain at one cutoff, for answering methods (pre-cutoff data only).

:func:`domain_model` builds, from the domain's network a ``KBView`` at the cutoff shows
(:func:`foresci.emergence.domain_network.domain_network`: core papers, as the family's builder reads
them; the same computation the network baselines read), the snapshot at the cutoff and the learned
baseline trained on the latest window the cutoff closes (:func:`foresci.emergence.evaluate.train_learned`;
a model that is not trainable scores every pair 0.5); it then scores any candidate pair named by its two
concepts. Results are kept per (KB, domain, cutoff, months) for the process, so a run's tasks and
questions of one window share one computation.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import date
from typing import Any

import numpy as np

from foresci.emergence.build import Snapshot, snapshot_of
from foresci.emergence.config import EmergenceSettings, load_emergence_settings
from foresci.emergence.domain_network import domain_network, source_key
from foresci.emergence.evaluate import train_learned
from foresci.emergence.learned import LearnedModel


@dataclass(frozen=True)
class DomainModel:
    """The snapshot at a cutoff and the learned model's probability for each of its candidates."""

    snapshot: Snapshot
    model: LearnedModel
    probabilities: np.ndarray  # (candidates,), aligned with snapshot.candidates.pairs
    codes: np.ndarray  # (candidates,) i * V + j, sorted (candidate pairs are in (i, j) order)

    def row(self, first: str, second: str) -> int | None:
        """The candidate row of the pair named ``first`` and ``second`` (concept names), or None."""
        names = {name: column for column, name in enumerate(self.snapshot.vocabulary.names)}
        if first not in names or second not in names:
            return None
        low, high = sorted((names[first], names[second]))
        code = low * len(names) + high
        position = int(np.searchsorted(self.codes, code))
        return position if position < len(self.codes) and self.codes[position] == code else None

    def probability(self, first: str, second: str) -> float | None:
        """The learned probability that the pair emerges in the window, or None when it is no candidate."""
        row = self.row(first, second)
        return None if row is None else float(self.probabilities[row])


def fit_domain_model(view: Any, domain: str | None, cutoff: date, months: int,
                     settings: EmergenceSettings | None = None) -> DomainModel:
    """The :class:`DomainModel` of ``domain`` (None: every paper) from what ``view`` (a KB view at
    ``cutoff``) shows."""
    settings = settings or load_emergence_settings()
    base = domain_network(view, domain, cutoff, max(months, 1), settings)
    snapshot = snapshot_of(base, settings, settings.targets.question_candidates)
    train_k = settings.learned.train_min_papers or settings.release.forecast_min_papers
    model = train_learned(base.papers, cutoff, train_k, settings)
    pairs = snapshot.candidates.pairs
    codes = pairs[:, 0] * len(snapshot.vocabulary) + pairs[:, 1] if len(pairs) else np.zeros(0, np.int64)
    return DomainModel(snapshot=snapshot, model=model, probabilities=model.score(snapshot.features.matrix()),
                       codes=np.asarray(codes, dtype=np.int64))


_MODELS: dict[tuple[Any, ...], DomainModel] = {}
_LOCKS: dict[tuple[Any, ...], threading.Lock] = {}
_GUARD = threading.Lock()
_KEPT = 8


def domain_model(view: Any, domain: str | None, cutoff: date, months: int) -> DomainModel:
    """:func:`fit_domain_model`, computed once per (KB, domain, cutoff, months) in this process."""
    key = (source_key(view), domain, cutoff.isoformat(), months)
    with _GUARD:
        lock = _LOCKS.setdefault(key, threading.Lock())
    with lock:
        if key not in _MODELS:
            model = fit_domain_model(view, domain, cutoff, months)
            with _GUARD:
                if len(_MODELS) >= _KEPT:
                    _MODELS.pop(next(iter(_MODELS)))
                _MODELS[key] = model
        return _MODELS[key]
