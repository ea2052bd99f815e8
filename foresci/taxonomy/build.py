"""KB adapter: induce a domain's taxonomy from a knowledge base, reading only papers <= the cutoff."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any, Protocol

import numpy as np

from foresci.kb.models import Paper
from foresci.taxonomy.induce import SliceCallback, TaxonomyHistory, induce_taxonomy
from foresci.taxonomy.models import Snapshot
from foresci.taxonomy.naming import kb_embed_function
from foresci.taxonomy.rules import TaxonomyRules


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
                   on_slice: SliceCallback | None = None,
                   rules: TaxonomyRules | None = None) -> TaxonomyHistory:
    """Induce ``domain``'s taxonomy at ``cutoff`` from the KB's papers announced <= cutoff whose screen status
    is one of ``settings.taxonomy.member_statuses`` (core only by default: domain purity).

    The KB may hold later papers; they are never read (``kb.papers(until=cutoff)``), and any that slip
    through are rejected by :func:`induce_taxonomy`. ``rules``: the taxonomy's rule files as the command
    loaded them (None: read from ``settings.taxonomy``).
    """
    statuses = tuple(getattr(getattr(settings, "taxonomy", None), "member_statuses", ("core",)))
    papers = kb.papers(until=cutoff, domain=domain, statuses=statuses)
    embeddings = kb.embeddings([paper.paper_id for paper in papers]) if papers else np.zeros((0, 1))
    model = str(getattr(getattr(settings, "embed", None), "model", ""))
    history = induce_taxonomy(papers, np.asarray(embeddings, dtype=np.float32), domain, cutoff, settings,
                              on_slice=on_slice, embedding_model=model,
                              name_embed=kb_embed_function(kb, settings), rules=rules)
    llm = getattr(settings, "llm", None)
    if history.snapshots and llm is not None and llm.configured:
        polish_with_llm(history.final, papers, settings)
    return history


def polish_with_llm(snapshot: Snapshot, papers: Sequence[Paper], settings: Any) -> None:
    """The LLM naming mode: the ``builder`` model polishes the offline names under the checks of
    :mod:`foresci.taxonomy.llm_naming` (runs when an LLM endpoint is set)."""
    from foresci.llm import LLMClient
    from foresci.taxonomy.llm_naming import polish_names

    polish_names(snapshot, {paper.paper_id: paper.text for paper in papers}, LLMClient(settings, "builder"),
                 titles={paper.paper_id: paper.title for paper in papers})
