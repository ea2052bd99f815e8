"""What concept emergence adds to a release beside its ranking tasks (hidden side: reads the window).

- Binary forecast questions (:func:`~foresci.tasks.families.concept_emergence.forecasts.binary_questions`,
  scored by Brier), ``release.forecast_questions_per_set`` per domain and window, only when the release asks
  forecast questions at all; they follow the other families' questions in ``forecast.jsonl``. Their naive
  probability is the positive share of the earlier cutoff ``t - window`` (pre-cutoff data only).
- The bulk link-prediction set (:mod:`foresci.emergence.bulk`): ``release.bulk_pairs`` candidates per
  domain and window, a uniform sample drawn with a seed before the window is read, public rows with every
  pair's pre-cutoff network measures in ``emergence_pairs.jsonl`` and their window papers in
  ``emergence_hidden.jsonl``.

Every part reads the emergence set the family's builder computed for the same window evidence.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from foresci.emergence.build import EmergenceSet, emergence_set, shift_months
from foresci.emergence.bulk import HIDDEN_FILE, PUBLIC_FILE, bulk_rows
from foresci.emergence.config import EmergenceSettings, load_emergence_settings
from foresci.emergence.questions import binary_base_rate
from foresci.tasks.config import TaskSettings
from foresci.tasks.evidence import DomainEvidence
from foresci.tasks.families.base import ReleaseParts
from foresci.tasks.families.concept_emergence.builder import training_papers, window_target
from foresci.tasks.families.concept_emergence.family import NAME
from foresci.tasks.families.concept_emergence.forecasts import binary_questions


def _months(evidence: DomainEvidence) -> int:
    window = evidence.window
    return max(1, (window.end.year - evidence.cutoff.year) * 12 + window.end.month - evidence.cutoff.month)


def earlier_base_rate(evidence: DomainEvidence, settings: EmergenceSettings, min_papers: int) -> float:
    """The positive share of the candidates at ``t - window`` whose window ends at ``t`` (smoothed)."""
    earlier = shift_months(evidence.cutoff, -_months(evidence))
    training = emergence_set(training_papers(evidence), earlier, evidence.cutoff, settings,
                             settings.learned.max_training_pairs)
    return binary_base_rate(training.labels(min_papers).tolist())


def bulk_sample(target: EmergenceSet, wanted: int, seed: int) -> EmergenceSet:
    """``target`` cut to a seeded uniform sample of ``wanted`` candidates (in candidate order); the draw
    depends on the number of candidates only, never on the window."""
    total = len(target.counts)
    if total <= wanted:
        return target
    rows = np.sort(np.random.default_rng(seed).choice(total, size=wanted, replace=False))
    snapshot = target.snapshot
    from dataclasses import replace

    candidates = replace(snapshot.candidates, pairs=snapshot.candidates.pairs[rows])
    features = type(snapshot.features)(**{name: getattr(snapshot.features, name)[rows]
                                          for name in snapshot.features.__dataclass_fields__})
    return replace(target, snapshot=replace(snapshot, candidates=candidates, features=features),
                   counts=target.counts[rows])


def emergence_release_parts(evidences: Sequence[DomainEvidence], settings: TaskSettings,
                            forecast_questions: int) -> ReleaseParts:
    """The forecast questions and the bulk set of every domain and window the family reads."""
    from foresci.tasks.families import get_family

    emergence = load_emergence_settings()
    chosen = emergence.release
    horizons = get_family(NAME).horizons
    parts = ReleaseParts()
    public: list[dict[str, Any]] = []
    hidden: list[dict[str, Any]] = []
    for evidence in evidences:
        horizon = evidence.window.horizon
        if horizon not in horizons:
            continue
        target = window_target(evidence)
        if not len(target.counts):
            continue
        seed = zlib.crc32(f"{settings.seed}:{NAME}:release:{evidence.domain}:{horizon}".encode())
        if chosen.bulk_pairs:
            rows = bulk_rows(bulk_sample(target, chosen.bulk_pairs, seed), evidence.domain, horizon)
            public.extend(rows[0])
            hidden.extend(rows[1])
        if forecast_questions > 0 and chosen.forecast_questions_per_set:
            k = chosen.forecast_min_papers
            made = binary_questions(target, evidence.domain, horizon, k, chosen.forecast_questions_per_set,
                                    earlier_base_rate(evidence, emergence, k), seed)
            parts.questions.extend(question for question, _ in made)
            parts.resolutions.extend(resolution for _, resolution in made)
    if public:
        parts.public_files[PUBLIC_FILE] = public
        parts.hidden_files[HIDDEN_FILE] = hidden
        parts.counts["emergence_pairs"] = len(public)
        parts.counts["emergence_positive_pairs"] = sum(1 for row in hidden if row["window_papers"] != 0)
    return parts
