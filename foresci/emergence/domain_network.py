"""A domain's concept co-occurrence network at a cutoff: the papers up to it, the concept vocabulary mined
from them, their concept incidence and the network (:mod:`foresci.emergence.network`).

:func:`cutoff_network` computes it from a list of concept papers (what
:func:`foresci.emergence.build.snapshot_at` reads); :func:`domain_network` from what a KB view shows of
a domain (its core papers, as the family's builder reads them), once per (KB, domain, cutoff, recent
span, settings) in the process: the answering methods' network measures
(``agents/baselines/pair_network``) and the learned link predictor (:mod:`foresci.emergence.pair_model`)
read this one computation.

Paper order: by announcement date, the input's order kept within a day (a KB lists each day's papers in
its row order). Nothing here depends on it but the rows of ``paper_concepts`` (the vocabulary and the
network are sums over papers).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import scipy.sparse as sp

from foresci.emergence.concepts import ConceptPaper, Vocabulary, concept_papers, mine_vocabulary
from foresci.emergence.config import EmergenceSettings, load_emergence_settings
from foresci.emergence.months import shift_months
from foresci.emergence.network import ConceptNetwork, build_network, incidence

STATUSES = ("core",)
"""The screening statuses the family's builder reads (``foresci.kb.screen.CANDIDATE_STATUSES``)."""


@dataclass(frozen=True)
class CutoffNetwork:
    """The papers up to a cutoff, the vocabulary mined from them, their incidence and the network."""

    cutoff: date
    papers: tuple[ConceptPaper, ...]  # announced on or before the cutoff, by date
    vocabulary: Vocabulary
    paper_concepts: sp.csr_matrix  # (papers, concepts), the rows of ``papers``
    network: ConceptNetwork

    @property
    def columns(self) -> dict[str, int]:
        """Concept name -> its column in the vocabulary and the network."""
        return {name: column for column, name in enumerate(self.vocabulary.names)}


def cutoff_network(papers: Sequence[ConceptPaper], cutoff: date, recent_months: int,
                   settings: EmergenceSettings, vocabulary: Vocabulary | None = None) -> CutoffNetwork:
    """The network at ``cutoff`` of ``papers`` announced on or before it (later ones are dropped);
    ``recent_months`` sets the span whose papers count as recent, ``vocabulary`` replaces the one mined
    at ``cutoff``."""
    before = tuple(sorted((paper for paper in papers if paper.announced <= cutoff),
                          key=lambda paper: paper.announced))
    vocabulary = vocabulary or mine_vocabulary(before, cutoff, settings.vocabulary)
    paper_concepts = incidence(before, vocabulary)
    network = build_network(before, paper_concepts, cutoff, shift_months(cutoff, -recent_months))
    return CutoffNetwork(cutoff=cutoff, papers=before, vocabulary=vocabulary, paper_concepts=paper_concepts,
                         network=network)


_NETWORKS: dict[tuple[Any, ...], tuple[Any, CutoffNetwork]] = {}
_LOCKS: dict[tuple[Any, ...], threading.Lock] = {}
_GUARD = threading.Lock()
_KEPT = 8


def source_key(view: Any) -> tuple[Any, ...]:
    """What names the papers ``view`` shows: its KB's path and fingerprint, or (a view without a KB that
    has them) the view object itself."""
    kb = getattr(view, "kb", None)
    path, fingerprint = getattr(kb, "path", None), getattr(kb, "fingerprint", None)
    if path is not None and fingerprint is not None:
        return ("kb", str(path), str(fingerprint))
    return ("view", id(view))


def domain_network(view: Any, domain: str | None, cutoff: date, recent_months: int,
                   settings: EmergenceSettings | None = None) -> CutoffNetwork:
    """:func:`cutoff_network` of the core papers ``view`` (a KB view at ``cutoff`` or later) shows of
    ``domain`` (None: every paper), computed once per (KB, domain, cutoff, recent span, settings) in
    this process."""
    settings = settings or load_emergence_settings()
    key = (source_key(view), domain, cutoff.isoformat(), recent_months, settings.model_dump_json())
    with _GUARD:
        lock = _LOCKS.setdefault(key, threading.Lock())
    with lock:
        with _GUARD:
            found = _NETWORKS.get(key)
        if found is not None and (key[0][0] == "kb" or found[0] is view):
            return found[1]
        shown = view.papers(domain=domain, statuses=STATUSES) if domain else view.papers()
        visible = [paper for paper in shown if paper.announced <= cutoff]
        concepts = concept_papers(visible, settings.vocabulary)
        computed = cutoff_network(concepts, cutoff, recent_months, settings)
        with _GUARD:
            if key not in _NETWORKS and len(_NETWORKS) >= _KEPT:
                _NETWORKS.pop(next(iter(_NETWORKS)))
            _NETWORKS[key] = (view if key[0][0] == "view" else None, computed)
        return computed
