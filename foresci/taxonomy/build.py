"""KB adapter: induce a domain's taxonomy from a knowledge base, reading only papers <= the cutoff."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any, Protocol

import numpy as np

from foresci.kb.models import Paper
from foresci.taxonomy.induce import SliceCallback, TaxonomyHistory, induce_taxonomy


class PaperSource(Protocol):
    """The part of ``foresci.kb.KnowledgeBase`` the taxonomy needs."""

    def papers(self, until: date | None = None, since: date | None = None, domain: str | None = None,
               statuses: tuple[str, ...] = ("core", "support")) -> list[Paper]:
        """Papers of a domain announced in [since, until], in announcement order."""
        ...

    def embeddings(self, paper_ids: Sequence[str]) -> np.ndarray:
        """One embedding row per id."""
        ...


def build_taxonomy(kb: PaperSource, domain: str, cutoff: date, settings: Any,
                   on_slice: SliceCallback | None = None) -> TaxonomyHistory:
    """Induce ``domain``'s taxonomy at ``cutoff`` from the KB's core and support papers announced <= cutoff.

    The KB may hold later papers; they are never read (``kb.papers(until=cutoff)``), and any that slip
    through are rejected by :func:`induce_taxonomy`.
    """
    papers = kb.papers(until=cutoff, domain=domain, statuses=("core", "support"))
    embeddings = kb.embeddings([paper.paper_id for paper in papers]) if papers else np.zeros((0, 1))
    model = str(getattr(getattr(settings, "embed", None), "model", ""))
    return induce_taxonomy(papers, np.asarray(embeddings, dtype=np.float32), domain, cutoff, settings,
                           on_slice=on_slice, embedding_model=model)
