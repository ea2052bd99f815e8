"""What every family's round tasks share: the pre-cutoff reader a freeze reads the KB through, a frozen task
with its record, the outcome-blind void of a window without data, and a task's resolution row
(:mod:`foresci.rounds.family_tasks` freezes and resolves through the families' hooks; the concept-emergence
items, :mod:`foresci.rounds.emergence_items`, use the same pieces)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from foresci.core.errors import UserError
from foresci.kb.models import Paper
from foresci.kb.screen import CANDIDATE_STATUSES
from foresci.tasks.families.round_outcome import Resolved
from foresci.tasks.models import Task

DATA_NEVER_ARRIVED = "no paper of the domain was announced in the window: its data never arrived"
"""The outcome-blind void: the KB holds no paper of the task's domain in the window."""


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


@dataclass
class Frozen:
    """One prospectively frozen task and what resolution needs about it (all pre-cutoff facts)."""

    task: Task
    record: dict[str, Any]


def resolution_row(item: Frozen, family: str, horizon: str, resolved: Resolved) -> dict[str, Any]:
    """The row ``resolutions/tasks-<window>.jsonl`` keeps of one task: ``status`` (``void`` only for an
    outcome-blind ``reason``), ``outcome`` (option id -> share), ``decisive`` (a hidden target: top-1 and
    FTA as a release scores them), ``note`` (why not decisive) and the ``hidden`` target."""
    hidden = resolved.hidden
    return {"task_id": item.task.task_id, "family": family, "domain": item.task.domain, "horizon": horizon,
            "status": "void" if resolved.void is not None else "resolved", "reason": resolved.void,
            "outcome": resolved.outcome, "decisive": hidden is not None, "note": resolved.note,
            "hidden": None if hidden is None else hidden.model_dump(mode="json")}


