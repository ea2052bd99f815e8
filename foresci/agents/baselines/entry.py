"""Newcomer entry into an option before the cutoff: what the trend forecaster reads for planning tasks.

A planning task's key is where newcomers enter in the window: the share of an option's window papers none
of whose authors had published in it before (the planning family's target).
Trend forecasts it by the option's *current* entry rate, read from the KB: among the option's papers of the
last ``months`` months before the cutoff, the share none of whose authors is an author of one of its
earlier papers (each paper judged against everything the option published before it, so the rate says how
open the option is now, not how open it was when the months began), smoothed as ``(newcomers + 1) /
(papers + 2)``. Momentum (how fast an option grows) is a different quantity: a fast-growing option held
by the teams already in it ranks low here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from foresci.agents.baselines.measure import months_before
from foresci.agents.tools import month_of
from foresci.kb.models import Paper


@dataclass(frozen=True)
class EntryRate:
    """An option's newcomer papers among its papers of the months read, and the smoothed rate."""

    papers: int
    newcomers: int
    months: int

    @property
    def rate(self) -> float:
        """``(newcomers + 1) / (papers + 2)``: an option with no recent papers reads 0.5, not 0 or 1."""
        return (self.newcomers + 1) / (self.papers + 2)

    def reason(self) -> str:
        """One line for a ranking's reason."""
        return (f"{self.newcomers} of its {self.papers} papers of the last {self.months} months before the "
                f"cutoff by authors new to it (entry rate {self.rate:.0%})")


def entry_rate(papers: Iterable[Paper], cutoff: date, months: int) -> EntryRate:
    """The :class:`EntryRate` of one option's papers (any order; papers after ``cutoff`` are not read):
    a paper of the last ``months`` calendar months up to the cutoff's month is a newcomer paper when none of
    its authors wrote an earlier paper of the option (same day: the paper id orders them)."""
    first = months_before(cutoff, max(1, months))[0]
    seen: set[str] = set()
    counted = newcomers = 0
    for paper in sorted((paper for paper in papers if paper.announced <= cutoff),
                        key=lambda paper: (paper.announced, paper.paper_id)):
        authors = set(paper.authors)
        if month_of(paper.announced) >= first:
            counted += 1
            newcomers += not authors & seen
        seen |= authors
    return EntryRate(papers=counted, newcomers=newcomers, months=max(1, months))
