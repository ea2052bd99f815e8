"""Reading a knowledge base for concept emergence under the cutoff discipline.

What a snapshot at ``t`` reads comes through ``KBView(kb, t)`` (an id prefix: nothing after ``t`` is
reachable); only the window targets read ``(t, end]``, straight from the KB, as the other hidden targets do.
"""

from __future__ import annotations

from datetime import date, timedelta

from foresci.emergence.build import Snapshot, snapshot_at
from foresci.emergence.concepts import ConceptPaper, concept_papers
from foresci.emergence.config import EmergenceSettings
from foresci.kb.retrieve import KBView
from foresci.kb.store import KnowledgeBase

Statuses = tuple[str, ...]
DEFAULT_STATUSES: Statuses = ("core", "support")


def papers_at(view: KBView, settings: EmergenceSettings, domain: str | None = None,
              statuses: Statuses = DEFAULT_STATUSES) -> list[ConceptPaper]:
    """The concept papers a view can see (every paper, or those screened into ``domain``)."""
    papers = view.papers(domain=domain, statuses=statuses) if domain else view.papers()
    return concept_papers(papers, settings.vocabulary)


def window_papers(kb: KnowledgeBase, cutoff: date, end: date, settings: EmergenceSettings,
                  domain: str | None = None, statuses: Statuses = DEFAULT_STATUSES) -> list[ConceptPaper]:
    """The concept papers announced in ``(cutoff, end]``: hidden-target input, never a feature."""
    papers = kb.papers(since=cutoff + timedelta(days=1), until=end, domain=domain, statuses=statuses)
    return concept_papers(papers, settings.vocabulary)


def kb_snapshot(kb: KnowledgeBase, cutoff: date, recent_months: int, settings: EmergenceSettings,
                domain: str | None = None, statuses: Statuses = DEFAULT_STATUSES) -> Snapshot:
    """The snapshot at ``cutoff`` from what ``KBView(kb, cutoff)`` shows."""
    view = KBView(kb, cutoff)
    return snapshot_at(papers_at(view, settings, domain, statuses), cutoff, recent_months, settings)
