"""Window papers using both concepts of named pairs: the family's target count, from the concept keys alone.

A release counts, for each candidate of its snapshot, the window papers whose phrases hold both concepts
(:func:`foresci.emergence.build.window_counts`: incidence with the snapshot's vocabulary, then
co-occurrence). A frozen round item keeps only its pairs' concept keys, so resolution runs the same
incidence and co-occurrence code over a vocabulary made of those keys: a key is in a window paper exactly
when it is one of the paper's phrase keys, whatever else the vocabulary holds, so the counts equal the
release's for the same pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from foresci.emergence.candidates import pair_counts
from foresci.emergence.concepts import Vocabulary, concept_papers
from foresci.emergence.config import VocabularySettings
from foresci.emergence.network import cooccurrence, incidence
from foresci.kb.models import Paper
from foresci.kb.screen import CANDIDATE_STATUSES


def pair_window_counts(window: Sequence[Paper], pairs: Sequence[tuple[str, str]],
                       settings: VocabularySettings) -> list[int]:
    """For each (key, key) pair, the papers of ``window`` using both concepts (phrases read with the
    settings' word limits, as the snapshot reads them)."""
    import numpy as np

    if not pairs:
        return []
    keys = tuple(sorted({key for pair in pairs for key in pair}))
    vocabulary = Vocabulary(cutoff=date.min, keys=keys, document_frequency=(0,) * len(keys), names=keys)
    column = vocabulary.index()
    together = cooccurrence(incidence(concept_papers(window, settings), vocabulary))
    rows = np.asarray([[column[first], column[second]] for first, second in pairs], dtype=np.int64)
    return [int(value) for value in pair_counts(together, rows)]


def domain_window_papers(kb: Any, domain: str, cutoff: date, end: date) -> list[Paper]:
    """The domain's candidate papers announced after ``cutoff`` and on or before ``end`` (the papers a
    release's emergence set reads as the window)."""
    papers = kb.papers(until=end, domain=domain, statuses=CANDIDATE_STATUSES)
    return sorted((paper for paper in papers if cutoff < paper.announced <= end),
                  key=lambda paper: (paper.announced, paper.paper_id))
