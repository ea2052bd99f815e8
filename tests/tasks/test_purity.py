"""Domain purity: a node whose papers are only 'support' for the domain never becomes a task candidate."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from foresci.core.settings import Settings
from foresci.kb.models import Paper
from foresci.tasks.build import build_release
from foresci.tasks.hidden_io import load_hidden
from foresci.tasks.release import load_release
from tests.tasks.toy import CUTOFF, ToyKB

OFF_DOMAIN = "n_vorp"


class ScreenedToyKB(ToyKB):
    """The toy KB where every paper of one node is only a 'support' paper of the domain."""

    def __init__(self) -> None:
        super().__init__()
        node_index = [node.node_id for node in self.snapshot.nodes].index(OFF_DOMAIN)
        self.support_ids = {paper_id for paper_id, row in self._rows.items() if row == node_index}

    def papers(self, until: date | None = None, since: date | None = None, domain: str | None = None,
               statuses: tuple[str, ...] = ("core", "support")) -> list[Paper]:
        """Papers in [since, until] whose screen status is among ``statuses``."""
        return [paper for paper in super().papers(until, since, domain)
                if ("support" if paper.paper_id in self.support_ids else "core") in statuses]


def test_support_only_nodes_are_never_candidates(tmp_path: Path) -> None:
    kb = ScreenedToyKB()
    settings = Settings()
    settings.tasks.min_support = 5
    settings.tasks.enforce_gates = False
    build_release(kb, tmp_path, CUTOFF, settings=settings, per_family=6, snapshots={"toy": kb.snapshot})
    tasks = load_release(tmp_path).tasks
    hidden = load_hidden(tmp_path)
    assert tasks
    for task in tasks:
        assert all(candidate.node_id != OFF_DOMAIN for candidate in task.candidates)
        assert hidden[task.task_id].stats.get("node_id") != OFF_DOMAIN
        assert not set(hidden[task.task_id].evidence_ids) & kb.support_ids
