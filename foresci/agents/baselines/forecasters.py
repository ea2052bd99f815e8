"""The two non-LLM forecasters. ``persistence``: the past continues (the biggest recent direction wins,
trajectory 'steady', rankings by pre-cutoff volume). ``trend``: momentum of normalised shares,
fragmentation from falling cohesion, venue-share momentum, rising bottleneck recurrence.

Both read only the task's KB view (papers on or before the cutoff) and answer through the family schemas.
Direction and planning options are measured by the papers T(d, t) routes into each option's node
(:mod:`foresci.agents.baselines.routing`), normalised by the stable reference when the KB covers every
month read (else by the domain's papers); every answer says which normaliser and how many months it read.

Trend's volume floor: an option with fewer than ``trend_min_monthly_papers`` papers per month read has no
trustworthy slope (one paper more or less swings it), so options at or above the floor are ranked by
their log-share slope first. Fallback when no option reaches the floor: every option is ranked by its
slope shrunk toward zero by volume / (volume + floor), and the rationale says so.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel

from foresci.agents.baselines.entry import EntryRate, entry_rate
from foresci.agents.baselines.measure import (
    CandidateSeries,
    Reference,
    candidate_series,
    cohesion,
    months_before,
    months_read,
    node_series,
    paper_months,
    stable_reference,
)
from foresci.agents.baselines.routing import option_node, routed_taxonomy
from foresci.agents.baselines.strategies import baseline_answer
from foresci.agents.config import AgentSettings
from foresci.agents.signals import LIMITATION_CUES
from foresci.agents.tools import KBViewLike, month_of
from foresci.contracts import (
    BottleneckAnswer,
    DirectionAnswer,
    Evidence,
    PlanningAnswer,
    RankedOption,
    RetrievedItem,
    SupportArtifact,
    VenueAnswer,
)
from foresci.kb.models import Paper
from foresci.tasks.models import Task
from foresci.tasks.text import content_tokens, distinctive_ngrams
from foresci.taxonomy.models import Trajectory
from foresci.taxonomy.venues import accepted_venue_family

Kind = Literal["trend", "persistence"]
MIN_TREND_MENTIONS = 2  # statements a limitation needs before trend reads its momentum
VENUE_PRIOR = 1.0  # acceptances added to every venue family in each half (trend's venue momentum)
CUE_WORDS = frozenset(
    {
        "however",
        "limit",
        "limits",
        "limited",
        "limitation",
        "limitations",
        "remain",
        "remains",
        "bottleneck",
        "bottlenecks",
        "challenge",
        "challenges",
        "struggle",
        "struggles",
        "fail",
        "fails",
        "lack",
        "lacks",
        "costly",
        "expensive",
        "difficult",
        "open",
        "unclear",
    }
)


class Forecaster:
    """A non-LLM method over one KB view; ``answer(task)`` returns (family answer, support artifact)."""

    def __init__(self, kind: Kind, view: KBViewLike, settings: AgentSettings) -> None:
        self.kind = kind
        self.view = view
        self.settings = settings
        self._references: dict[tuple[str | None, str], Reference] = {}
        self._measured_by = "keywords of the options"

    # ---- shared measurement ---------------------------------------------------------------------

    def months(self) -> list[str]:
        """The months read before the cutoff (at most ``trend_months``, none before the KB's first paper)."""
        return months_read(self.view, self.settings.trend_months)

    def reference(self, domain: str | None) -> Reference:
        """The stable monthly reference of a domain (cached per view)."""
        months = self.months()
        key = (domain, months[0])
        if key not in self._references:
            self._references[key] = stable_reference(
                self.view, domain, months, self.settings.reference_categories
            )
        return self._references[key]

    def series(self, task: Task) -> dict[str, CandidateSeries]:
        """Per-candidate series of a task: through T(t) when every option has a node there, else keywords."""
        months, reference = self.months(), self.reference(task.domain)
        routed = routed_taxonomy(self.view, task.domain) if task.candidates else None
        snapshot = routed.snapshot if routed is not None else None
        found = {
            candidate.option_id: option_node(snapshot, candidate.node_id, candidate.name)
            for candidate in task.candidates
        }
        if routed is None or not found or any(item is None for item in found.values()):
            self._measured_by = "keywords of the options (not every option has a node in T(t))"
            return candidate_series(self.view, task, months, reference)
        announced = paper_months(self.view, task.domain)
        hows = sorted({item.how for item in found.values() if item is not None})
        self._measured_by = f"papers T(t) routes into {' / '.join(hows)}"
        measured = {}
        for option, item in found.items():
            if item is None:
                continue
            ids = routed.routed[item.node.node_id]
            measured[option] = node_series(option, ids, months, reference, announced)
            measured[option].history = list(ids)
        return measured

    def read_note(self, task: Task) -> str:
        """Which months were read, how options were measured and what shares are normalised by."""
        months = [month for month in self.months() if self.reference(task.domain).totals.get(month)]
        months = months or self.months()[-1:]
        return (
            f"{self.kind}: read {len(months)} months ({months[0]}…{months[-1]}) up to "
            f"{self.view.cutoff.isoformat()}; options measured by {self._measured_by}; shares normalised by "
            f"{self.reference(task.domain).description}"
        )

    def _artifact(self, task: Task, series: dict[str, CandidateSeries] | None = None) -> SupportArtifact:
        artifact = SupportArtifact()
        artifact.notes.append(self.read_note(task))
        for option, item in (series or {}).items():
            ids = item.paper_ids_by_half[0][-2:] + item.paper_ids_by_half[1][-3:]
            artifact.evidence.append(
                Evidence(
                    claim=f"{option}: {item.volume} papers ({item.counts} per month), "
                    f"log-share slope {item.log_slope():+.3f}/month, acceleration {item.acceleration():+.2f}",
                    paper_ids=ids,
                )
            )
            for paper_id in ids:
                paper = self.view.get(paper_id)
                if paper is not None:
                    artifact.retrieved.append(
                        RetrievedItem(paper_id=paper.paper_id, title=paper.title, announced=paper.announced)
                    )
        return artifact

    # ---- families -------------------------------------------------------------------------------

    def answer(self, task: Task) -> tuple[BaseModel, SupportArtifact]:
        """The family answer and its support artifact, by the baseline strategy the task's family names
        (:mod:`foresci.agents.baselines.strategies`; the shipped ones call :meth:`direction`,
        :meth:`planning`, :meth:`venue` or :meth:`bottleneck`), checked there.

        Direction and planning tasks must offer candidate options (ValueError otherwise, which the runner
        records as an error row): these forecasters rank fixed options, they do not invent them. A family
        without a baseline answer is an error too, never answered as another family.
        """
        return baseline_answer(self, task)

    def trajectory(self, item: CandidateSeries) -> Trajectory:
        """The trend label of one candidate: fragmenting, accelerating, cooling or steady."""
        slope = item.log_slope()
        earlier, recent = (cohesion(self.view, ids) for ids in item.paper_ids_by_half)
        if (
            earlier is not None
            and recent is not None
            and earlier - recent >= self.settings.fragmenting_drop
            and slope > self.settings.cooling_slope
        ):
            return "fragmenting"
        if slope >= self.settings.accelerating_slope:
            return "accelerating"
        if slope <= self.settings.cooling_slope:
            return "cooling"
        return "steady"

    def direction(self, task: Task) -> tuple[DirectionAnswer, SupportArtifact]:
        """The candidate that gains momentum and its trajectory."""
        series = self.series(task)
        order = [candidate.option_id for candidate in task.candidates]
        months = len(next(iter(series.values())).counts) if series else 0
        if self.kind == "persistence":
            chosen = max(
                order, key=lambda option: (series[option].volume, series[option].latest, -order.index(option))
            )
            label: Trajectory = "steady"
            rationale = (
                f"{chosen} had the most papers in the {months} months read "
                f"({series[chosen].volume}); the past is assumed to continue."
            )
        else:
            ranked, basis = self._by_momentum(series, order)
            chosen = ranked[0]
            label = self.trajectory(series[chosen])
            rationale = (
                f"{chosen} has the strongest momentum among {basis}: its share grows "
                f"{series[chosen].log_slope():+.1%} per month (log-linear fit over {months} months), "
                f"{series[chosen].growth_ratio():.2f}x from the earlier to the recent half."
            )
        rationale += " " + self.read_note(task) + "."
        signals = [
            f"{option}: {series[option].volume} papers, share slope {series[option].log_slope():+.1%}/month"
            for option in order
        ]
        confidence = (
            0.5 if self.kind == "persistence" else min(0.9, 0.5 + 2.0 * abs(series[chosen].log_slope()))
        )
        answer = DirectionAnswer(
            direction=chosen, trajectory=label, rationale=rationale, signals=signals, confidence=confidence
        )
        return answer, self._artifact(task, series)

    def _by_momentum(self, series: dict[str, CandidateSeries], order: list[str]) -> tuple[list[str], str]:
        """Options by log-share slope, those at or above the volume floor first; and what was compared.

        Fallback when no option reaches the floor: all options by slope x volume / (volume + floor).
        """
        months = len(next(iter(series.values())).counts) if series else 0
        floor = math.ceil(self.settings.trend_min_monthly_papers * months)
        above = [option for option in order if series[option].volume >= floor]
        below = [option for option in order if series[option].volume < floor]

        def shrunk(option: str) -> float:
            item = series[option]
            return item.log_slope() * item.volume / (item.volume + floor) if floor else item.log_slope()

        def key(option: str, value: float) -> tuple[float, int, int]:
            return (-value, -series[option].volume, order.index(option))

        if above:
            ranked = sorted(above, key=lambda option: key(option, series[option].log_slope()))
            ranked += sorted(below, key=lambda option: key(option, shrunk(option)))
            return ranked, f"the options with at least {floor} papers"
        ranked = sorted(order, key=lambda option: key(option, shrunk(option)))
        return ranked, f"all options (none reaches {floor} papers; slopes shrunk by volume)"

    def planning(self, task: Task) -> tuple[PlanningAnswer, SupportArtifact]:
        """Options ranked by recent volume (persistence) or by newcomer entry, the share of each option's
        papers of the last ``planning_entry_months`` months by authors new to it (trend,
        :mod:`foresci.agents.baselines.entry`: what the task's key measures; ties by momentum)."""
        series = self.series(task)
        order = [candidate.option_id for candidate in task.candidates]
        if self.kind == "persistence":
            ranked = sorted(
                order,
                key=lambda option: (-series[option].volume, -series[option].latest, order.index(option)),
            )
            reasons = {option: f"{series[option].volume} recent papers, share slope "
                       f"{series[option].log_slope():+.1%}/month" for option in order}
        else:
            by_momentum, _ = self._by_momentum(series, order)
            entries = {option: self.entry(series[option]) for option in order}
            ranked = sorted(order, key=lambda option: (-entries[option].rate, by_momentum.index(option)))
            reasons = {option: entries[option].reason() for option in order}
        ranking = [RankedOption(option_id=option, reason=reasons[option]) for option in ranked]
        answer = PlanningAnswer(
            ranking=ranking,
            milestones=[f"Start with {ranked[0]}: reproduce its strongest recent results"],
            risks=["past volume may not continue" if self.kind == "persistence"
                   else "the teams already in it may close it to newcomers"],
            go_no_go=(f"continue {ranked[0]} if its share keeps growing in the first months"
                      if self.kind == "persistence"
                      else f"continue {ranked[0]} if new teams keep publishing in it in the first months"),
        )
        return answer, self._artifact(task, series)

    def entry(self, item: CandidateSeries) -> EntryRate:
        """One option's newcomer :class:`EntryRate` over its papers up to the cutoff (every routed paper,
        else the months read)."""
        ids = item.history or [*item.paper_ids_by_half[0], *item.paper_ids_by_half[1]]
        papers = [paper for paper in (self.view.get(paper_id) for paper_id in ids) if paper is not None]
        return entry_rate(papers, self.view.cutoff, self.settings.planning_entry_months)

    def _domain_papers(self, task: Task) -> list[Paper]:
        """The domain's papers on or before the cutoff (the most recent 3,000)."""
        return [paper for paper in self.view.papers(task.domain) if paper.announced <= self.view.cutoff][
            -3000:
        ]

    def _neighbours(self, task: Task, key: str, k: int = 60, limit: int | None = 1000) -> list[Paper]:
        """Papers of the task's subject over the months read: those naming two of its key terms (one when
        that finds under 20; the ``limit`` most recent, all when None), else the top search hits."""
        terms = [str(term).lower() for term in task.context.get("key_terms", []) or [] if str(term).strip()]
        if terms:
            first = months_before(self.view.cutoff, self.settings.trend_months)[0]
            recent = [paper for paper in self._domain_papers(task) if month_of(paper.announced) >= first]
            hits = {
                paper.paper_id: sum(term in f"{paper.title} {paper.abstract}".lower() for term in terms)
                for paper in recent
            }
            for needed in (min(2, len(terms)), 1):
                named = [paper for paper in recent if hits[paper.paper_id] >= needed]
                if len(named) >= 20 or (needed == 1 and named):
                    return named if limit is None else named[-limit:]
        text = " ".join([str(task.context.get(key, "")), task.title]).strip()
        return [
            hit.paper
            for hit in self.view.search(text, k=k, domain=task.domain)
            if hit.paper.announced <= self.view.cutoff
        ]

    def venue(self, task: Task) -> tuple[VenueAnswer, SupportArtifact]:
        """Venue families ranked by their acceptances among related papers over the months read
        (persistence), or by their share projected one half-period ahead from its change between the
        earlier and the recent half of those months (trend, :func:`venue_momentum`)."""
        # trend reads a series, so every related paper of the months read (the 1,000 most recent can all
        # fall in the last months); persistence keeps its naive reading of the most recent ones
        papers = self._neighbours(task, "contribution", limit=None if self.kind == "trend" else 1000)
        accepted = {paper.paper_id: accepted_venue_family(paper) for paper in papers}
        months = self.months()
        recent_from = months[len(months) // 2] if len(months) > 1 else months[0]
        earlier: Counter[str] = Counter()
        recent: Counter[str] = Counter()
        for paper in papers:
            family = accepted[paper.paper_id]
            if family:
                (recent if month_of(paper.announced) >= recent_from else earlier)[family] += 1
        if self.kind == "persistence":
            weights = {family: float(earlier[family] + recent[family]) for family in earlier | recent}
        else:
            weights = venue_momentum(earlier, recent, [candidate.name for candidate in task.candidates])
        order = [candidate.option_id for candidate in task.candidates]
        name_of = {candidate.option_id: candidate.name for candidate in task.candidates}
        ranked = sorted(order, key=lambda option: (-weights.get(name_of[option], 0.0), order.index(option)))
        ranking = [
            RankedOption(
                option_id=option,
                reason=f"{_venue_reason(self.kind, weights.get(name_of[option], 0.0))}: "
                f"{earlier[name_of[option]]} acceptances among related papers before {recent_from}, "
                f"{recent[name_of[option]]} since",
            )
            for option in ranked
        ]
        artifact = self._artifact(task)
        artifact.queries.append(str(task.context.get("contribution", task.title)))
        venue_ids = [paper.paper_id for paper in papers if accepted[paper.paper_id] == name_of[ranked[0]]][:5]
        artifact.evidence.append(
            Evidence(claim=f"related papers accepted at {name_of[ranked[0]]}", paper_ids=venue_ids)
        )
        artifact.retrieved.extend(
            RetrievedItem(paper_id=paper.paper_id, title=paper.title, announced=paper.announced)
            for paper in papers[:20]
        )
        answer = VenueAnswer(
            ranking=ranking,
            framing=f"frame for the {name_of[ranked[0]]} community",
            reviewer_risks=["related work at the venue may be thin"],
            evidence_upgrades=["add comparisons to the venue's recent related papers"],
        )
        return answer, artifact

    def bottleneck(self, task: Task) -> tuple[BottleneckAnswer, SupportArtifact]:
        """The most recurrent (persistence) or fastest-rising (trend: :func:`limitation_momentum`, among
        limitations stated at least ``MIN_TREND_MENTIONS`` times when any is) limitation and its
        opportunity."""
        papers = self._neighbours(task, "subdirection", limit=None if self.kind == "trend" else 1000)
        background = self._domain_papers(task)[-1000:]
        middle = self.view.cutoff.toordinal() - 15 * self.settings.trend_months
        statements: list[tuple[Paper, str]] = []
        for paper in papers:
            sentences = list(paper.limitations) or [
                sentence for sentence in paper.abstract.split(". ") if LIMITATION_CUES.search(sentence)
            ]
            statements.extend((paper, sentence) for sentence in sentences)
        phrases = [str(item) for item in task.context.get("recurring_limitations_before_cutoff", []) or []]
        if not phrases:
            phrases = [
                gram
                for gram, _ in distinctive_ngrams(
                    [text for _, text in statements], [paper.abstract for paper in background], top=12
                )
                if set(content_tokens(gram)) - CUE_WORDS
            ]

        def support(phrase: str) -> tuple[list[Paper], list[Paper]]:
            words = set(content_tokens(phrase))
            matching = [
                paper
                for paper, text in statements
                if words and len(words & set(content_tokens(text))) >= max(1, math.ceil(0.6 * len(words)))
            ]
            recent = [paper for paper in matching if paper.announced.toordinal() >= middle]
            return matching, recent

        recent_papers = sum(paper.announced.toordinal() >= middle for paper in papers)
        # trend's reading only: persistence counts cue statements and never tokenises the related papers
        paper_words = ([(paper, set(content_tokens(paper.text))) for paper in papers]
                       if self.kind == "trend" else [])

        def mentioned(phrase: str) -> tuple[int, int]:
            """Related papers (earlier half, recent half) whose text holds most words of the phrase: cue
            sentences alone state a limitation too rarely (2-7 of 300-600 papers) for a share to move."""
            words = set(content_tokens(phrase))
            needed = max(1, math.ceil(0.6 * len(words)))
            hits = [paper for paper, held in paper_words if words and len(words & held) >= needed]
            recent = sum(paper.announced.toordinal() >= middle for paper in hits)
            return len(hits) - recent, recent

        def score(phrase: str) -> tuple[float, ...]:
            if self.kind == "persistence":
                return (float(len(support(phrase)[0])),)
            before, recent = mentioned(phrase)
            growth = limitation_momentum(before, recent, len(papers) - recent_papers, recent_papers)
            return (float(before + recent >= MIN_TREND_MENTIONS), growth, float(before + recent))

        chosen = (
            max(phrases, key=lambda phrase: (*score(phrase), -phrases.index(phrase)))
            if phrases
            else "unknown bottleneck"
        )
        matching, _ = support(chosen) if phrases else ([], [])
        bottleneck_words = set(content_tokens(chosen))
        grams = [
            gram
            for gram, _ in distinctive_ngrams(
                [paper.abstract for paper in matching or papers[:10]],
                [paper.abstract for paper in background],
                top=8,
            )
            if not set(content_tokens(gram)) <= bottleneck_words
        ]
        opportunity = grams[0] if grams else f"methods that no longer depend on {chosen}"
        artifact = self._artifact(task)
        artifact.evidence.append(
            Evidence(
                claim=f"recurring limitation: {chosen}", paper_ids=[paper.paper_id for paper in matching[:5]]
            )
        )
        artifact.retrieved.extend(
            RetrievedItem(paper_id=paper.paper_id, title=paper.title, announced=paper.announced)
            for paper in papers[:20]
        )
        answer = BottleneckAnswer(
            bottleneck=chosen,
            opportunity=opportunity,
            mechanism=f"reducing '{chosen}' removes the limitation {len(matching)} related "
            f"papers report, which opens '{opportunity}'",
            evidence_summary=f"{len(matching)} of {len(papers)} related papers state it",
        )
        return answer, artifact


def venue_momentum(earlier: Mapping[str, int], recent: Mapping[str, int],
                   families: list[str]) -> dict[str, float]:
    """Each venue family's acceptance share projected one half-period ahead: its recent share times its
    growth from the earlier to the recent half, ``recent_share ** 2 / earlier_share`` (log-linear), with
    ``VENUE_PRIOR`` acceptances added to every family in each half so that one paper does not swing it.
    A family rising from few acceptances can overtake the biggest one; persistence never reads the change."""
    names = list(dict.fromkeys([*families, *earlier, *recent]))
    earlier_total = sum(earlier.get(name, 0) for name in names) + VENUE_PRIOR * len(names)
    recent_total = sum(recent.get(name, 0) for name in names) + VENUE_PRIOR * len(names)
    projected: dict[str, float] = {}
    for name in names:
        before = (earlier.get(name, 0) + VENUE_PRIOR) / earlier_total
        now = (recent.get(name, 0) + VENUE_PRIOR) / recent_total
        projected[name] = now * now / before
    return projected


def limitation_momentum(before: int, recent: int, before_papers: int, recent_papers: int) -> float:
    """Log growth of a limitation's share of the related papers from the earlier to the recent half of the
    months read (half a mention added to each count): a limitation taking a growing share of the papers
    rises, one whose mentions only follow the volume of papers does not."""
    return math.log(((recent + 0.5) / (recent_papers + 1)) / ((before + 0.5) / (before_papers + 1)))


def _venue_reason(kind: Kind, weight: float) -> str:
    return f"{weight:.0f} acceptances" if kind == "persistence" else f"projected share {weight:.3f}"
