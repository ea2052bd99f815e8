"""What every family's round tasks share: the pre-cutoff reader a freeze reads the KB through, a frozen task
with its record, the outcome-blind void of a window without data, and a task's resolution row
(:mod:`foresci.rounds.family_tasks` freezes and resolves through the families' hooks; a family's own round
items, ``TaskFamily.round_items``, use the same pieces: the frozen task, its row and the void live in
:mod:`foresci.tasks.families.round_outcome`, below the rounds)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from foresci.core.errors import UserError
from foresci.kb.models import Paper
from foresci.kb.screen import CANDIDATE_STATUSES
from foresci.tasks.families.round_outcome import DATA_NEVER_ARRIVED, Frozen, resolution_row

__all__ = ["DATA_NEVER_ARRIVED", "Frozen", "PreCutoffReader", "resolution_row"]


class PreCutoffReader:
    """The KB as a round's freeze may read it: papers announced on or before ``cutoff`` only.

    Every paper handed out is checked against the cutoff (a KB returning a later one is an error, not a
    silent leak) and embeddings are given only for papers this reader handed out.
    """

    def __init__(self, kb: Any, cutoff: date) -> None:
        self.kb, self.cutoff = kb, cutoff
        self._handed: set[str] = set()
        self.latest: date | None = None

    def papers(self, domain: str) -> list[Paper]:
        """The domain's candidate papers up to the cutoff."""
        papers = self.kb.papers(until=self.cutoff, domain=domain, statuses=CANDIDATE_STATUSES)
        for paper in papers:
            if paper.announced > self.cutoff:
                raise UserError(f"paper {paper.paper_id} ({paper.announced}) is after the round's cutoff "
                                f"{self.cutoff}", field="cutoff")
            self.latest = max(self.latest or paper.announced, paper.announced)
        self._handed.update(paper.paper_id for paper in papers)
        return papers

    def embeddings(self, paper_ids: Sequence[str]) -> Any:
        """Embeddings of papers this reader handed out."""
        unknown = [paper_id for paper_id in paper_ids if paper_id not in self._handed]
        if unknown:
            raise UserError(f"embedding of {unknown[0]} asked for before the reader handed it out",
                            field="cutoff")
        return self.kb.embeddings(list(paper_ids))


