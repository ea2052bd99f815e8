"""Measurements the non-LLM forecasters read from a KB view: per-candidate monthly shares, normalised by
a stable reference, and the cohesion of a candidate's papers (for fragmentation).

An option is measured by the papers the taxonomy T(d, t) routes into its node's subtree
(:func:`node_series`). Fallback when an option has no node in T(t): every option of the task is measured
by keywords (:func:`candidate_series`): a paper counts toward the candidate whose terms (``key_terms``
from the public task context, else the content words of its name) it mentions most, when it mentions at
least ``min_hits`` of them.
"""

from __future__ import annotations

import math
import weakref
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import numpy as np

from foresci.agents.tools import KBViewLike, month_of
from foresci.kb.models import Paper
from foresci.tasks.models import Candidate, Task
from foresci.tasks.text import content_tokens


def months_before(cutoff: date, count: int) -> list[str]:
    """The ``count`` calendar months ending with the cutoff's month, oldest first."""
    year, month = cutoff.year, cutoff.month
    months = []
    for _ in range(count):
        months.append(f"{year:04d}-{month:02d}")
        month -= 1
        if month == 0:
            year, month = year - 1, 12
    return months[::-1]


def months_read(view: KBViewLike, count: int) -> list[str]:
    """The ``count`` months ending with the cutoff's month that the view has papers from (oldest first).

    Months before the KB's first paper are dropped, so a series never reads months nobody collected.
    """
    months = months_before(view.cutoff, count)
    collected = [month for month, papers in view.monthly_counts(None).items() if papers]
    if not collected:
        return months[-1:]
    first = min(collected)
    return [month for month in months if month >= first] or months[-1:]


def candidate_terms(task: Task, candidate: Candidate) -> list[str]:
    """Lower-cased terms that identify a candidate's papers."""
    for key in ("candidates", "options"):
        entry = task.context.get(key, {})
        if isinstance(entry, dict) and isinstance(entry.get(candidate.option_id), dict):
            terms = entry[candidate.option_id].get("key_terms") or []
            if terms:
                return [str(term).lower() for term in terms]
    return list(dict.fromkeys(content_tokens(f"{candidate.name} {candidate.description}")))


@dataclass
class Reference:
    """Monthly totals trend shares are divided by, and what they are."""

    totals: dict[str, int]
    description: str


_CATEGORY_MONTHS: weakref.WeakKeyDictionary[Any, dict[tuple[str, frozenset[str]], Counter[str]]] = (
    weakref.WeakKeyDictionary())
_PAPER_MONTHS: weakref.WeakKeyDictionary[Any, dict[str | None, dict[str, str]]] = weakref.WeakKeyDictionary()


def _view_memo(memos: weakref.WeakKeyDictionary[Any, dict[Any, Any]], view: KBViewLike) -> dict[Any, Any]:
    """``view``'s memo in ``memos`` (kept while the view lives); a fresh one, so the answer is computed
    every time, for a view that cannot be weakly referenced."""
    try:
        return memos.setdefault(view, {})
    except TypeError:
        return {}


def category_months(view: KBViewLike, first: str, wanted: set[str]) -> Counter[str]:
    """Papers per month from ``first`` on whose primary category is in ``wanted``; counted once per view
    (a round's opening asks for it once per baseline answer: ~40 passes over every paper otherwise)."""
    memo = _view_memo(_CATEGORY_MONTHS, view)
    key = (first, frozenset(wanted))
    found = memo.get(key)
    if found is None:
        found = Counter()
        for paper in view.papers(None):
            month = month_of(paper.announced)
            if month >= first and paper.primary_category in wanted:
                found[month] += 1
        memo[key] = found
    return Counter(found)


def paper_months(view: KBViewLike, domain: str | None) -> dict[str, str]:
    """Paper id -> 'YYYY-MM' of the view's papers of ``domain``, read once per view and domain (shared:
    read it, do not change it)."""
    memo = _view_memo(_PAPER_MONTHS, view)
    found = memo.get(domain)
    if found is None:
        found = memo[domain] = {paper.paper_id: month_of(paper.announced) for paper in view.papers(domain)}
    return found


def stable_reference(
    view: KBViewLike, domain: str | None, months: list[str], categories: list[str]
) -> Reference:
    """Monthly counts of papers in ``categories`` when they cover every month, else the domain's counts."""
    wanted = set(categories)
    counts = category_months(view, months[0], wanted)
    if categories and all(counts.get(month, 0) > 0 for month in months):
        return Reference(
            {month: counts[month] for month in months},
            f"all papers with primary category in {sorted(wanted)} per month (a stable reference)",
        )
    domain_counts = view.monthly_counts(domain)
    return Reference(
        {month: domain_counts.get(month, 0) for month in months},
        f"all papers of domain {domain or 'all'} per month (reference categories "
        f"{sorted(wanted)} do not cover every month)",
    )


@dataclass
class CandidateSeries:
    """One candidate's pre-cutoff monthly papers and shares."""

    option_id: str
    counts: list[int]
    shares: list[float]
    paper_ids_by_half: tuple[list[str], list[str]] = field(default_factory=lambda: ([], []))
    totals: list[int] = field(default_factory=list)
    history: list[str] = field(default_factory=list)
    """Every paper id of the option up to the cutoff, not only the months read (entry reads who wrote
    before; empty: the months read are all there is)."""

    @property
    def volume(self) -> int:
        """Papers over all months read."""
        return sum(self.counts)

    @property
    def latest(self) -> int:
        """Papers in the last half of the months read."""
        return sum(self.counts[len(self.counts) // 2 :])

    def growth_ratio(self) -> float:
        """Mean share of the recent half / mean share of the earlier half (smoothed)."""
        half = len(self.shares) // 2
        earlier = float(np.mean(self.shares[:half])) if half else 0.0
        recent = float(np.mean(self.shares[half:]))
        per_paper = sum(self.shares) / sum(self.counts) if sum(self.counts) else 1e-6
        smoothing = 0.5 * per_paper  # half a paper per month, so empty months do not divide by zero
        return (recent + smoothing) / (earlier + smoothing)

    def log_slope(self) -> float:
        """Monthly slope of log share; 0.1 = +10 %/month (Poisson fit, :func:`poisson_log_slope`)."""
        return self.share_trend()[0]

    def share_trend(self) -> tuple[float, float]:
        """(monthly log-share slope, its standard error) of the Poisson fit against the reference totals,
        from the option's first paper on.

        Months before an option's first paper are not read as zero papers: a taxonomy node created
        part-way through the history receives papers only from its creation (earlier ones were routed to
        the nodes of that time), and a series ``[0, 0, 0, 6, 6, 2, 5, 3, 4, 4, 4, 4]`` fitted from month 0
        reads as +9 %/month. Fewer than three months from the first paper: slope 0, infinite error.
        """
        totals = self.totals or [
            max(1, round(count / share)) if share else 1
            for count, share in zip(self.counts, self.shares, strict=True)
        ]
        first = next((month for month, count in enumerate(self.counts) if count > 0), len(self.counts))
        if len(self.counts) - first < 3:
            return 0.0, math.inf
        return poisson_log_slope(self.counts[first:], totals[first:])

    def recent_rate(self, months: int = 3) -> float:
        """Mean papers per month over the last ``months`` months."""
        return float(np.mean(self.counts[-months:])) if self.counts else 0.0

    def slope(self) -> float:
        """Least-squares slope of the share per month, relative to the mean share."""
        mean = float(np.mean(self.shares))
        return _absolute_slope(self.shares) / mean if mean > 0 else 0.0

    def acceleration(self) -> float:
        """Slope of the recent half minus slope of the earlier half, relative to the mean share."""
        half = len(self.shares) // 2
        mean = float(np.mean(self.shares))
        if half < 2 or mean <= 0:
            return 0.0
        return (_absolute_slope(self.shares[half:]) - _absolute_slope(self.shares[:half])) / mean


def poisson_log_slope(counts: list[int], totals: list[int], iterations: int = 25) -> tuple[float, float]:
    """Maximum-likelihood slope ``b`` (and its standard error) of
    ``count_t ~ Poisson(total_t * exp(a + b t))``.

    The monthly growth of a share, estimated without the bias that ``log(count + 0.5)`` regression has
    at a few papers a month; months with a zero total are skipped. No papers at all: slope 0, infinite
    error.
    """
    rows = [(month, count, total) for month, (count, total) in enumerate(zip(counts, totals, strict=True))
            if total > 0]
    if len(rows) < 3 or sum(count for _, count, _ in rows) == 0:
        return 0.0, math.inf
    time = np.asarray([month for month, _, _ in rows], dtype=float)
    time -= time.mean()
    observed = np.asarray([count for _, count, _ in rows], dtype=float)
    exposure = np.log(np.asarray([total for _, _, total in rows], dtype=float))
    intercept, slope = math.log(observed.sum() / np.exp(exposure).sum()), 0.0
    information = np.eye(2)
    for _ in range(iterations):
        expected = np.exp(exposure + intercept + slope * time)
        gradient = np.array([np.sum(observed - expected), np.sum((observed - expected) * time)])
        information = np.array([[expected.sum(), np.sum(expected * time)],
                                [np.sum(expected * time), np.sum(expected * time * time)]])
        step = np.linalg.solve(information + 1e-9 * np.eye(2), gradient)
        intercept, slope = intercept + float(step[0]), max(-2.0, min(2.0, slope + float(step[1])))
        if abs(step[1]) < 1e-7:
            break
    covariance = np.linalg.pinv(information)
    return slope, math.sqrt(max(float(covariance[1, 1]), 0.0))


def _absolute_slope(values: list[float]) -> float:
    if len(values) < 2:
        return 0.0
    return float(np.polyfit(np.arange(len(values), dtype=float), np.asarray(values, dtype=float), 1)[0])


def assign_papers(papers: list[Paper], terms: dict[str, list[str]], min_hits: int = 2) -> dict[str, str]:
    """paper_id -> option_id of the candidate whose terms the paper mentions most (ties: none)."""
    assigned: dict[str, str] = {}
    for paper in papers:
        text = f"{paper.title} {paper.abstract}".lower()
        hits = {
            option: sum(1 for term in option_terms if term and term in text)
            for option, option_terms in terms.items()
        }
        best = max(hits.values(), default=0)
        winners = [option for option, count in hits.items() if count == best]
        needed = {option: min(min_hits, len(terms[option])) for option in terms}
        if best > 0 and len(winners) == 1 and best >= needed[winners[0]]:
            assigned[paper.paper_id] = winners[0]
    return assigned


def candidate_series(
    view: KBViewLike, task: Task, months: list[str], reference: Reference, min_hits: int = 2
) -> dict[str, CandidateSeries]:
    """Per candidate: monthly counts and shares over ``months`` (papers of the task's domain).

    Months before the KB has any reference papers are left out (they carry no information).
    """
    months = [month for month in months if reference.totals.get(month)] or months[-1:]
    first = months[0]
    papers = [
        paper
        for paper in view.papers(task.domain)
        if month_of(paper.announced) >= first and paper.announced <= view.cutoff
    ]
    terms = {candidate.option_id: candidate_terms(task, candidate) for candidate in task.candidates}
    assigned = assign_papers(papers, terms, min_hits)
    by_month: dict[str, Counter[str]] = {option: Counter() for option in terms}
    halves: dict[str, tuple[list[str], list[str]]] = {option: ([], []) for option in terms}
    middle = months[len(months) // 2]
    for paper in papers:
        option = assigned.get(paper.paper_id)
        if option is None:
            continue
        month = month_of(paper.announced)
        by_month[option][month] += 1
        halves[option][0 if month < middle else 1].append(paper.paper_id)
    result = {}
    for option in terms:
        counts = [by_month[option].get(month, 0) for month in months]
        shares = [
            count / reference.totals[month] if reference.totals.get(month) else 0.0
            for count, month in zip(counts, months, strict=True)
        ]
        totals = [reference.totals.get(month, 0) for month in months]
        result[option] = CandidateSeries(option, counts, shares, halves[option], totals)
    return result


def node_series(
    option_id: str, paper_ids: list[str], months: list[str], reference: Reference, announced: dict[str, str]
) -> CandidateSeries:
    """One option's series from the papers T(t) routed into its node's subtree (``paper_ids``).

    ``announced`` maps the visible papers' ids to their 'YYYY-MM' (papers missing from it are not read).
    """
    months = [month for month in months if reference.totals.get(month)] or months[-1:]
    middle = months[len(months) // 2]
    by_month: Counter[str] = Counter()
    halves: tuple[list[str], list[str]] = ([], [])
    for paper_id in paper_ids:
        month = announced.get(paper_id)
        if month is None or month < months[0]:
            continue
        by_month[month] += 1
        halves[0 if month < middle else 1].append(paper_id)
    counts = [by_month.get(month, 0) for month in months]
    totals = [reference.totals.get(month, 0) for month in months]
    shares = [count / total if total else 0.0 for count, total in zip(counts, totals, strict=True)]
    return CandidateSeries(option_id, counts, shares, halves, totals)


def cohesion(view: KBViewLike, paper_ids: list[str]) -> float | None:
    """Mean cosine similarity of papers to their centroid (None when under 3 papers or no vectors)."""
    if len(paper_ids) < 3:
        return None
    vectors: Any = np.asarray(view.embeddings(paper_ids), dtype=float)
    if vectors.ndim != 2 or not len(vectors):
        return None
    centroid = vectors.mean(axis=0)
    norm = float(np.linalg.norm(centroid))
    if norm == 0:
        return None
    return float(np.mean(vectors @ (centroid / norm)))
