"""Turn a planned world into papers: roles, wording, venues, observation noise, arXiv ids and day files.

Every paper draws from generators keyed by its own planned identity, so papers never shift each
other's randomness: one paper more in one month does not reword the rest of the world.
"""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

from foresci.kb.models import VENUE_FAMILIES
from foresci.sim.knobs import WorldConfig, weekdays
from foresci.sim.plan import (
    BACKGROUND_CATEGORY,
    ChainPlan,
    DirectionPlan,
    DomainPlan,
    RelationPlan,
    WorldPlan,
    venue_weights,
)
from foresci.sim.text import PaperContext, compose_abstract, compose_title
from foresci.sim.vocab import WordMint, seeded_random

LIMITATION_RATE = 0.4
FUTURE_WORK_RATE = 0.25
OPPORTUNITY_HINT_RATE = 0.3
OPPORTUNITY_HINT_MONTHS = 3
RESOLUTION_RATE = 0.3
FOLLOWUP_RATE = 0.25
RELATION_RATE = 0.3
CHILD_RELATION_RATE = 0.5
MISLABEL_RATE = 0.15
DROP_RATE = 0.2
DELAY_RATE = 0.25
REPEAT_RATE = 0.1
STRINGIFY_RATE = 0.05
CROSS_LIST_RATE = 0.3
PAGES_COMMENT_RATE = 0.25
VENUE_FORMATS = (
    "Accepted to {venue} {year}",
    "Accepted at {venue} {year}",
    "Accepted by {venue} {year}",
    "{venue} {year}",
    "Accepted to {venue} {year} (poster)",
)


@dataclass
class Draft:
    """One planned paper, before ids are assigned."""

    key: str
    order: int
    month_index: int
    planned_day: date
    domain: str | None
    direction_id: str | None
    child_id: str | None
    written_as: str | None
    roles: list[str]
    title: str
    summary: str
    authors: list[str]
    categories: list[str]
    comment: str | None
    keystone: bool = False
    resolves: str | None = None
    dropped: bool = False
    delayed_days: int = 0
    repeat_days: list[int] = field(default_factory=list)
    stringify_authors: bool = False
    stringify_categories: bool = False
    paper_id: str = ""

    @property
    def announced(self) -> date:
        """First announcement date (after any delay)."""
        return self.planned_day + timedelta(days=self.delayed_days)


class ChainState:
    """Which chains of a direction already have their first resolution paper."""

    def __init__(self) -> None:
        self.resolved: set[str] = set()


def _next_weekday(day: date) -> date:
    while day.weekday() >= 5:
        day += timedelta(days=1)
    return day


def _comment(rng: random.Random, config: WorldConfig, ranking: list[str], day: date) -> str | None:
    if rng.random() < config.venue_comment_rate:
        weights = venue_weights(ranking)
        family = rng.choices(list(weights), weights=list(weights.values()))[0]
        venue = rng.choice(family.split("/"))
        return rng.choice(VENUE_FORMATS).format(venue=venue, year=day.year)
    if rng.random() < PAGES_COMMENT_RATE:
        return f"{rng.randint(8, 30)} pages, {rng.randint(2, 12)} figures"
    return None


def _chain_roles(
    rng: random.Random,
    config: WorldConfig,
    month: int,
    chains: list[ChainPlan],
    state: ChainState,
    context: PaperContext,
    roles: list[str],
) -> bool:
    """Fill bottleneck/opportunity roles; return True when this paper is a chain's first resolution."""
    for chain in chains:
        truth = chain.truth
        if month >= chain.resolved_index and truth.bottleneck not in state.resolved:
            state.resolved.add(truth.bottleneck)
            context.resolution = (truth.bottleneck, truth.resolver, truth.opportunity)
            roles.append("resolution")
            return True
    unresolved = [chain for chain in chains if month < chain.resolved_index]
    resolved = [chain for chain in chains if month >= chain.resolved_index]
    for chain in resolved:
        truth = chain.truth
        if month <= chain.resolved_index + 1 and rng.random() < RESOLUTION_RATE:
            context.resolution = (
                rng.choice([truth.bottleneck, *truth.bottleneck_variants]),
                truth.resolver,
                truth.opportunity,
            )
            roles.append("resolution")
            break
        if month > chain.resolved_index and rng.random() < FOLLOWUP_RATE:
            context.opportunity_followup = (
                rng.choice([truth.opportunity, *truth.opportunity_variants]),
                truth.bottleneck,
            )
            roles.append("opportunity")
            break
    # The draws are made whether or not the chosen chain is reported yet (ChainPlan.reported), so the rest
    # of the paper (and every later one) draws as it would without the reporting lead.
    if unresolved and rng.random() < LIMITATION_RATE:
        chosen = rng.choice(unresolved)
        truth = chosen.truth
        phrase = rng.choice([truth.bottleneck, truth.bottleneck, *truth.bottleneck_variants])
        if chosen.reported(month):
            context.limitation = phrase
            roles.append("limitation")
    if unresolved and rng.random() < FUTURE_WORK_RATE:
        chosen = rng.choice(unresolved)
        truth = chosen.truth
        phrase = rng.choice([truth.bottleneck, *truth.bottleneck_variants])
        if chosen.reported(month):
            context.future_bottleneck = phrase
            roles.append("future_work")
    hint_rate = (1.0 - config.difficulty) * OPPORTUNITY_HINT_RATE
    for chain in unresolved:
        if chain.resolved_index - month <= OPPORTUNITY_HINT_MONTHS and rng.random() < hint_rate:
            context.future_opportunity = chain.truth.opportunity
            roles.append("opportunity_hint")
            break
    return False


class Drafter:
    """Drafts every paper of a planned world in a fixed order."""

    def __init__(self, plan: WorldPlan) -> None:
        self.plan = plan
        self.config = plan.config
        self.drafts: list[Draft] = []
        self.reserved: set[str] = set()
        for direction in plan.directions:
            self.reserved.update(direction.vocabulary.key_terms)
        self.relations_by_target: dict[str, list[RelationPlan]] = {}
        for relation in plan.relations:
            self.relations_by_target.setdefault(relation.truth.target, []).append(relation)

    def _coined(self, key: str) -> str:
        """The paper's own system name, drawn from its key and never a direction's term."""
        mint = WordMint(seeded_random(self.config.seed, "coined", key))
        mint.used = set(self.reserved)
        return mint.proper()

    def _add(
        self,
        key: str,
        month: int,
        domain: DomainPlan | None,
        direction: DirectionPlan | None,
        child_id: str | None,
        written_as: str | None,
        context: PaperContext,
        roles: list[str],
        authors_pool: list[str],
        ranking: list[str],
        category: str,
        keystone: bool = False,
    ) -> None:
        rng = seeded_random(self.config.seed, "paper", key)
        day = rng.choice(weekdays(self.plan.months[month]))
        categories = [category] + (["cs.LG"] if rng.random() < CROSS_LIST_RATE else [])
        self.drafts.append(
            Draft(
                key=key,
                order=len(self.drafts),
                month_index=month,
                planned_day=day,
                domain=domain.slug if domain else None,
                direction_id=direction.direction_id if direction else None,
                child_id=child_id,
                written_as=written_as,
                roles=roles,
                title=compose_title(rng, context),
                summary=compose_abstract(rng, context),
                authors=rng.sample(authors_pool, rng.randint(2, 6)),
                categories=categories,
                comment=_comment(rng, self.config, ranking, day),
                keystone=keystone,
                resolves=context.resolution[0] if keystone and context.resolution else None,
            )
        )

    def _relation_cue(
        self, rng: random.Random, target_id: str, month: int, rate: float, roles: list[str]
    ) -> str | None:
        active = [
            relation
            for relation in self.relations_by_target.get(target_id, [])
            if relation.first_index <= month
        ]
        if active and rng.random() < rate:
            relation = rng.choice(active)
            roles.append(f"relation:{relation.truth.relation}")
            return relation.truth.cue
        return None

    def _direction_paper(
        self, domain: DomainPlan, direction: DirectionPlan, month: int, number: int, state: ChainState
    ) -> None:
        key = f"{direction.direction_id}@{self.plan.months[month]}#{number}"
        rng = seeded_random(self.config.seed, "roles", key)
        written = direction
        keystone = False
        roles: list[str] = []
        mislabelled = (
            len(domain.directions) > 1
            and seeded_random(self.config.seed, "mislabel", key).random() < MISLABEL_RATE * self.config.noise
        )
        if mislabelled:
            written = rng.choice([other for other in domain.directions if other is not direction])
            roles.append("mislabelled")
            context = PaperContext(domain.name, written.vocabulary, self._coined(key))
        else:
            context = PaperContext(domain.name, direction.vocabulary, self._coined(key))
            keystone = _chain_roles(rng, self.config, month, direction.chains, state, context, roles)
            context.relation_cue = self._relation_cue(
                rng, direction.direction_id, month, RELATION_RATE, roles
            )
        self._add(
            key,
            month,
            domain,
            direction,
            None,
            written.direction_id,
            context,
            roles,
            written.authors,
            written.venue_ranking,
            domain.category,
            keystone,
        )

    def _child_paper(
        self, domain: DomainPlan, direction: DirectionPlan, child_index: int, month: int, number: int
    ) -> None:
        child = direction.children[child_index]
        key = f"{child.child_id}@{self.plan.months[month]}#{number}"
        rng = seeded_random(self.config.seed, "roles", key)
        roles: list[str] = ["child"]
        context = PaperContext(domain.name, child.vocabulary, self._coined(key), parent=direction.vocabulary)
        context.relation_cue = self._relation_cue(rng, child.child_id, month, CHILD_RELATION_RATE, roles)
        unresolved = [chain for chain in direction.chains if month < chain.resolved_index]
        if unresolved and rng.random() < LIMITATION_RATE / 2:
            chosen = rng.choice(unresolved)
            if chosen.reported(month):
                context.limitation = chosen.truth.bottleneck
                roles.append("limitation")
        self._add(
            key,
            month,
            domain,
            direction,
            child.child_id,
            child.child_id,
            context,
            roles,
            direction.authors,
            direction.venue_ranking,
            domain.category,
        )

    def _background_paper(self, month: int, number: int) -> None:
        key = f"background@{self.plan.months[month]}#{number}"
        rng = seeded_random(self.config.seed, "roles", key)
        vocabulary = rng.choice(self.plan.background)
        context = PaperContext(self.plan.background_name, vocabulary, self._coined(key))
        ranking = rng.sample(list(VENUE_FAMILIES), len(VENUE_FAMILIES))
        self._add(
            key,
            month,
            None,
            None,
            None,
            None,
            context,
            ["background"],
            self.plan.background_authors,
            ranking,
            BACKGROUND_CATEGORY,
        )

    def draft_all(self, advance: Callable[[], None] | None = None) -> list[Draft]:
        """Draft every paper, month by month; ``advance`` is called once per month (progress bars)."""
        states = {direction.direction_id: ChainState() for direction in self.plan.directions}
        for month in range(len(self.plan.months)):
            for domain in self.plan.domains:
                for direction in domain.directions:
                    for number in range(direction.counts[month]):
                        self._direction_paper(
                            domain, direction, month, number, states[direction.direction_id]
                        )
                    for child_index, child in enumerate(direction.children):
                        for number in range(child.counts[month]):
                            self._child_paper(domain, direction, child_index, month, number)
            for number in range(self.plan.background_counts[month]):
                self._background_paper(month, number)
            if advance:
                advance()
        return self.drafts


def apply_noise(drafts: list[Draft], config: WorldConfig, last_day: date) -> None:
    """Observation noise: drop papers, delay and repeat announcements, stringify list fields."""
    level = config.noise
    for draft in drafts:
        rng = seeded_random(config.seed, "noise", draft.key)
        draft.dropped = not draft.keystone and rng.random() < DROP_RATE * level
        if rng.random() < DELAY_RATE * level:
            delayed = _next_weekday(draft.planned_day + timedelta(days=rng.randint(1, 30)))
            if delayed <= last_day:
                draft.delayed_days = (delayed - draft.planned_day).days
        if rng.random() < REPEAT_RATE * level:
            repeat = _next_weekday(draft.announced + timedelta(days=rng.randint(3, 45)))
            if repeat <= last_day:
                draft.repeat_days = [(repeat - draft.announced).days]
        draft.stringify_authors = rng.random() < STRINGIFY_RATE * level
        draft.stringify_categories = rng.random() < STRINGIFY_RATE * level


def assign_ids(drafts: list[Draft]) -> None:
    """Give kept papers sequential arXiv ids (YYMM.NNNNN) by planned day, month by month."""
    kept = sorted(
        (draft for draft in drafts if not draft.dropped), key=lambda item: (item.planned_day, item.order)
    )
    counters: dict[str, int] = {}
    for draft in kept:
        prefix = f"{draft.planned_day.year % 100:02d}{draft.planned_day.month:02d}"
        counters[prefix] = counters.get(prefix, 0) + 1
        draft.paper_id = f"{prefix}.{counters[prefix]:05d}"


def corpus_row(draft: Draft) -> dict[str, object]:
    """A row in the daily-arXiv JSONL format (same keys and order as the real corpus)."""
    authors: object = str(draft.authors) if draft.stringify_authors else draft.authors
    categories: object = str(draft.categories) if draft.stringify_categories else draft.categories
    return {
        "id": draft.paper_id,
        "pdf": f"https://arxiv.org/pdf/{draft.paper_id}",
        "abs": f"https://arxiv.org/abs/{draft.paper_id}",
        "authors": authors,
        "title": draft.title,
        "categories": categories,
        "comment": draft.comment,
        "summary": draft.summary,
    }


def rows_by_day(drafts: list[Draft]) -> dict[date, list[dict[str, object]]]:
    """Corpus rows grouped by announcement day: new papers by id, then repeats by id."""
    days: dict[date, list[tuple[int, str, dict[str, object]]]] = {}
    for draft in drafts:
        if draft.dropped:
            continue
        row = corpus_row(draft)
        days.setdefault(draft.announced, []).append((0, draft.paper_id, row))
        for offset in draft.repeat_days:
            days.setdefault(draft.announced + timedelta(days=offset), []).append((1, draft.paper_id, row))
    return {
        day: [row for _, _, row in sorted(entries, key=lambda item: (item[0], item[1]))]
        for day, entries in sorted(days.items())
    }


def write_day_files(folder: Path, days: dict[date, list[dict[str, object]]], compress: bool) -> list[Path]:
    """Write one JSONL file per announcement day (gzip with a fixed mtime when asked); return the paths."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for day, rows in days.items():
        payload = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode("utf-8")
        name = f"{day.isoformat()}.jsonl"
        if compress:
            path = folder / f"{name}.gz"
            with (
                path.open("wb") as raw,
                gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as handle,
            ):
                handle.write(payload)
        else:
            path = folder / name
            path.write_bytes(payload)
        paths.append(path)
    return paths
