"""The small emergence world two test modules share (seed 6, difficulty 0: planted pairs announced by their
network) and a KB view over a paper list at a cutoff (what ``KBTools.view`` and the run's view factory give
a method)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from foresci.kb.models import Paper
from foresci.sim.emergence import EmergenceWorldConfig

CONFIG = EmergenceWorldConfig(seed=6, difficulty=0.0, planted_pairs=40, papers_per_pair=4,
                              min_papers_per_pair=1)


@dataclass
class CutoffView:
    """The papers of a list announced up to ``cutoff``."""

    all_papers: list[Paper]
    cutoff: date
    kb: object

    def papers(self, domain: str | None = None, statuses: tuple[str, ...] = ()) -> list[Paper]:
        return [paper for paper in self.all_papers if paper.announced <= self.cutoff]
