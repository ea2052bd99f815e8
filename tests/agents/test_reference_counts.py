"""The baselines' stable reference and paper months read a view's papers once: a round's opening answers
~40 batches on one view, and each used to count every paper by category again."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace
from typing import Any

from foresci.agents.baselines.measure import paper_months, stable_reference


class CountingView:
    """A view whose ``papers`` calls are counted."""

    def __init__(self, papers: list[Any]) -> None:
        self._papers, self.reads = papers, 0

    def papers(self, domain: str | None = None) -> list[Any]:
        self.reads += 1
        return list(self._papers)

    def monthly_counts(self, domain: str | None = None) -> dict[str, int]:
        return {"2025-11": 1, "2025-12": 1}


PAPERS = [SimpleNamespace(announced=date(2025, month, day), primary_category=category)
          for month, day, category in [(10, 3, "cs.CL"), (11, 2, "cs.CL"), (11, 9, "cs.LG"), (12, 1, "cs.CL"),
                                       (12, 5, "cs.CV"), (12, 7, "cs.LG")]]
MONTHS = ["2025-11", "2025-12"]


def test_the_reference_counts_each_view_once_and_a_changed_input_counts_again() -> None:
    view = CountingView(PAPERS)
    first = stable_reference(view, "d", MONTHS, ["cs.CL", "cs.LG"])
    assert first.totals == {"2025-11": 2, "2025-12": 2} and view.reads == 1
    first.totals["2025-11"] = 99  # a caller's copy: the remembered counts stay
    again = stable_reference(view, "other", MONTHS, ["cs.LG", "cs.CL"])
    assert again.totals == {"2025-11": 2, "2025-12": 2} and view.reads == 1  # remembered for this view
    assert stable_reference(view, "d", MONTHS, ["cs.CV"]).totals == {"2025-11": 1, "2025-12": 1}  # fallback
    assert view.reads == 2  # other categories: counted
    assert stable_reference(view, "d", ["2025-10", "2025-11"], ["cs.CL"]).totals == {"2025-10": 1,
                                                                                   "2025-11": 1}
    assert view.reads == 3  # other months: counted
    fresh = CountingView(PAPERS[:3])
    assert stable_reference(fresh, "d", MONTHS, ["cs.CL", "cs.LG"]).totals["2025-12"] == 1  # falls back
    assert fresh.reads == 1  # another view: counted


def test_paper_months_are_read_once_per_view_and_domain() -> None:
    view = CountingView([SimpleNamespace(paper_id=f"p{number}", announced=paper.announced,
                                         primary_category=paper.primary_category)
                         for number, paper in enumerate(PAPERS)])
    months = paper_months(view, "d")
    assert months == {"p0": "2025-10", "p1": "2025-11", "p2": "2025-11", "p3": "2025-12", "p4": "2025-12",
                      "p5": "2025-12"}
    assert paper_months(view, "d") is months and view.reads == 1
    paper_months(view, "other")
    assert view.reads == 2
