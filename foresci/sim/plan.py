"""Plan a world before any text: domains, directions, labels, rates, counts, chains, relations, venues.

Every random choice draws from a generator seeded by (seed, purpose, key), so the vocabulary does not
depend on the dynamics: a counterfactual shift changes who grows, never what things are called.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from foresci.kb.models import VENUE_FAMILIES
from foresci.sim import dynamics
from foresci.sim.knobs import WorldConfig
from foresci.sim.text import relation_cue
from foresci.sim.truth import BottleneckTruth, EvolutionRelation, MethodRelationTruth, TrajectoryLabel
from foresci.sim.vocab import (
    Vocabulary,
    WordMint,
    bottleneck_phrase,
    direction_vocabulary,
    opportunity_phrase,
    person_name,
    seeded_random,
)

DOMAIN_CATEGORIES = ("cs.XA", "cs.XB", "cs.XC", "cs.XD", "cs.XE", "cs.XF", "cs.XG", "cs.XH")
BACKGROUND_CATEGORY = "cs.XZ"
VENUE_RANK_WEIGHTS = (0.45, 0.25, 0.15, 0.10, 0.05)
RELATION_CYCLE: tuple[EvolutionRelation, ...] = ("extension", "replacement", "component_reuse")
BASE_RATE_SPREAD = (0.6, 1.4)
TREND_STRENGTH_SPREAD = (0.75, 1.25)
HISTORIC_RESOLUTION_LEAD = 4
REPORTING_LEAD = 4
"""Months before its resolution from which papers report a bottleneck (never before the first month): the
field turns to a limitation as its fix nears, so the share of papers naming the upcoming chain's bottleneck
rises into the window, which is what a bottleneck-opportunity task reads. Reported from the first month, its
share fell after the cutoff and a one-domain tutorial world gave no bottleneck task."""
AUTHORS_PER_DIRECTION = 10


@dataclass
class ChildPlan:
    """An emergent sub-direction of a fragmenting direction."""

    child_id: str
    vocabulary: Vocabulary
    emerges: int
    rates: list[float]
    counts: list[int]


@dataclass
class ChainPlan:
    """A bottleneck → opportunity chain and the month index it is resolved in."""

    truth: BottleneckTruth
    resolved_index: int
    reported_index: int = 0

    def reported(self, month: int) -> bool:
        """Whether papers of month index ``month`` may name the bottleneck as a limitation."""
        return month >= self.reported_index


@dataclass
class DirectionPlan:
    """A planted direction with its rates and counts (own papers; children separate)."""

    direction_id: str
    domain: str
    vocabulary: Vocabulary
    label: TrajectoryLabel
    base_rate: float
    trend_strength: float
    rates: list[float]
    counts: list[int]
    children: list[ChildPlan] = field(default_factory=list)
    chains: list[ChainPlan] = field(default_factory=list)
    venue_ranking: list[str] = field(default_factory=list)
    authors: list[str] = field(default_factory=list)


@dataclass
class RelationPlan:
    """A method-evolution relation; its cue appears in the target's papers from ``first_index`` on."""

    truth: MethodRelationTruth
    first_index: int


@dataclass
class DomainPlan:
    """An invented domain and its directions."""

    slug: str
    name: str
    category: str
    description_terms: list[str]
    directions: list[DirectionPlan]


@dataclass
class WorldPlan:
    """The whole planned world."""

    config: WorldConfig
    months: list[str]
    cutoff_index: int
    domains: list[DomainPlan]
    relations: list[RelationPlan]
    background: list[Vocabulary]
    background_name: str
    background_counts: list[int]
    background_authors: list[str]

    @property
    def directions(self) -> list[DirectionPlan]:
        """Every direction, domain by domain."""
        return [direction for domain in self.domains for direction in domain.directions]

    def vocabulary_of(self, key: str) -> Vocabulary:
        """The vocabulary of a direction or child id."""
        for direction in self.directions:
            if direction.direction_id == key:
                return direction.vocabulary
            for child in direction.children:
                if child.child_id == key:
                    return child.vocabulary
        raise KeyError(f"no direction or child {key!r} in this world")


def _draw_counts(config: WorldConfig, key: str, rates: list[float]) -> list[int]:
    rng = seeded_random(config.seed, "counts", key)
    return [dynamics.poisson(rng, rate) for rate in rates]


def _counts_with_resolutions(counts: list[int], chains: list[ChainPlan]) -> list[int]:
    """At least one paper in each chain's resolution month, so the planted resolution is written."""
    for chain in chains:
        counts[chain.resolved_index] = max(1, counts[chain.resolved_index])
    return counts


def _plan_children(
    config: WorldConfig, direction_id: str, base: float, mint: WordMint, cutoff_index: int
) -> list[ChildPlan]:
    children = []
    for number in range(config.children_per_split):
        child_id = f"{direction_id}/{number}"
        emerges = min(
            config.months - 1, dynamics.child_emergence(cutoff_index, config.difficulty, stagger=number % 2)
        )
        rates = dynamics.child_rates(base, emerges, config.months)
        children.append(
            ChildPlan(
                child_id=child_id,
                vocabulary=direction_vocabulary(mint),
                emerges=emerges,
                rates=rates,
                counts=_draw_counts(config, child_id, rates),
            )
        )
    return children


def _plan_chains(
    config: WorldConfig,
    direction_id: str,
    vocabulary: Vocabulary,
    mint: WordMint,
    months: list[str],
    cutoff_index: int,
) -> list[ChainPlan]:
    rng = seeded_random(config.seed, "chains", direction_id)
    historic = max(1, cutoff_index - HISTORIC_RESOLUTION_LEAD)
    upcoming = min(config.months - 1, cutoff_index + 1 + rng.randint(0, 2))
    chains = []
    for resolved_index in (historic, upcoming):
        reported_index = max(0, resolved_index - REPORTING_LEAD)
        bottleneck, bottleneck_variants = bottleneck_phrase(mint)
        opportunity, opportunity_variants = opportunity_phrase(mint)
        resolver = f"{mint.adjective()} {mint.noun()} {rng.choice(('module', 'objective', 'cache', 'prior'))}"
        mechanism = (
            f"a {resolver} reduces {bottleneck} in {vocabulary.method}, which makes {opportunity} feasible"
        )
        truth = BottleneckTruth(
            bottleneck=bottleneck,
            bottleneck_variants=bottleneck_variants,
            resolver=resolver,
            opportunity=opportunity,
            opportunity_variants=opportunity_variants,
            mechanism=mechanism,
            reported_from=months[reported_index],
            resolved=months[resolved_index],
            after_cutoff=resolved_index > cutoff_index,
        )
        chains.append(ChainPlan(truth=truth, resolved_index=resolved_index, reported_index=reported_index))
    return chains


def _plan_domain(config: WorldConfig, number: int, months: list[str], cutoff_index: int) -> DomainPlan:
    mint = WordMint(seeded_random(config.seed, "vocab", number))
    name = f"{mint.adjective()} {mint.noun()}"
    slug = "_".join(name.split())
    label_rng = seeded_random(config.seed, "labels", number)
    labels = dynamics.assign_labels(config.directions_per_domain, label_rng)
    labels = dynamics.apply_counterfactual(
        labels, config.counterfactual, seeded_random(config.seed, "counterfactual", number)
    )
    share = (
        config.papers_per_month
        * (1 - config.background_share)
        / (config.n_domains * config.directions_per_domain)
    )
    directions = []
    for index, label in enumerate(labels):
        direction_id = f"{slug}/{index}"
        rng = seeded_random(config.seed, "direction", direction_id)
        vocabulary = direction_vocabulary(mint)
        base = share * rng.uniform(*BASE_RATE_SPREAD)
        strength = config.trend_strength * rng.uniform(*TREND_STRENGTH_SPREAD)
        rates = dynamics.parent_rates(
            base, label, config.months, cutoff_index, config.trend_strength, config.difficulty, strength
        )
        children_mint = WordMint(seeded_random(config.seed, "child-vocab", direction_id))
        children_mint.used = mint.used
        children = _plan_children(config, direction_id, base, children_mint, cutoff_index)
        if label != "fragmenting":
            children = []  # drawn anyway, so a counterfactual shift never changes later vocabulary
        chains = _plan_chains(config, direction_id, vocabulary, mint, months, cutoff_index)
        ranking = seeded_random(config.seed, "venues", direction_id).sample(
            list(VENUE_FAMILIES), len(VENUE_FAMILIES)
        )
        authors = [person_name(mint) for _ in range(AUTHORS_PER_DIRECTION)]
        directions.append(
            DirectionPlan(
                direction_id=direction_id,
                domain=slug,
                vocabulary=vocabulary,
                label=label,
                base_rate=base,
                trend_strength=strength,
                rates=rates,
                counts=_counts_with_resolutions(_draw_counts(config, direction_id, rates), chains),
                children=children,
                chains=chains,
                venue_ranking=ranking,
                authors=authors,
            )
        )
    return DomainPlan(
        slug=slug,
        name=name,
        category=DOMAIN_CATEGORIES[number],
        description_terms=name.split(),
        directions=directions,
    )


def _plan_relations(config: WorldConfig, domain: DomainPlan, months: list[str]) -> list[RelationPlan]:
    rng = seeded_random(config.seed, "relations", domain.slug)
    relations = []
    for index, target in enumerate(domain.directions[1:], start=1):
        source = domain.directions[rng.randrange(index)]
        relation = RELATION_CYCLE[index % len(RELATION_CYCLE)]
        first_index = rng.randint(1, config.months - 2)
        source_component, target_component = (
            rng.choice(source.vocabulary.components),
            rng.choice(target.vocabulary.components),
        )
        cue = relation_cue(relation, source.vocabulary, target.vocabulary, source_component, target_component)
        relations.append(
            RelationPlan(
                MethodRelationTruth(
                    source=source.direction_id,
                    target=target.direction_id,
                    relation=relation,
                    source_method=source.vocabulary.method,
                    target_method=target.vocabulary.method,
                    cue=cue,
                    first_month=months[first_index],
                ),
                first_index,
            )
        )
    for direction in domain.directions:
        for child in direction.children:
            cue = relation_cue(
                "extension",
                direction.vocabulary,
                child.vocabulary,
                direction.vocabulary.components[0],
                child.vocabulary.components[0],
            )
            relations.append(
                RelationPlan(
                    MethodRelationTruth(
                        source=direction.direction_id,
                        target=child.child_id,
                        relation="extension",
                        source_method=direction.vocabulary.method,
                        target_method=child.vocabulary.method,
                        cue=cue,
                        first_month=months[child.emerges],
                    ),
                    child.emerges,
                )
            )
    return relations


def plan_world(config: WorldConfig) -> WorldPlan:
    """Plan every domain, direction, rate, count, chain, relation and venue preference of a world."""
    months = config.month_keys
    cutoff_index = config.cutoff_index
    domains = [_plan_domain(config, number, months, cutoff_index) for number in range(config.n_domains)]
    relations = [relation for domain in domains for relation in _plan_relations(config, domain, months)]
    outside = WordMint(seeded_random(config.seed, "background-vocab"))
    for domain in domains:
        for direction in domain.directions:
            outside.used.update(direction.vocabulary.key_terms)
    background = [direction_vocabulary(outside) for _ in range(3)]
    background_rate = config.papers_per_month * config.background_share
    return WorldPlan(
        config=config,
        months=months,
        cutoff_index=cutoff_index,
        domains=domains,
        relations=relations,
        background=background,
        background_name=f"{outside.adjective()} {outside.noun()}",
        background_counts=_draw_counts(config, "background", [background_rate] * config.months),
        background_authors=[person_name(outside) for _ in range(3 * AUTHORS_PER_DIRECTION)],
    )


def venue_weights(ranking: list[str]) -> dict[str, float]:
    """Probability of each venue family for a direction's accepted papers, by its preference rank."""
    return {family: weight for family, weight in zip(ranking, VENUE_RANK_WEIGHTS, strict=True)}


def total_rates(direction: DirectionPlan) -> list[float]:
    """Expected monthly papers of a direction, children included."""
    return [
        rate + sum(child.rates[month] for child in direction.children)
        for month, rate in enumerate(direction.rates)
    ]


def total_counts(direction: DirectionPlan) -> list[int]:
    """Planted monthly papers of a direction, children included."""
    return [
        count + sum(child.counts[month] for child in direction.children)
        for month, count in enumerate(direction.counts)
    ]


def rounded(value: float) -> float:
    """Round a rate for the ground-truth file (keeps it short and byte-stable)."""
    return 0.0 if math.isnan(value) else round(value, 4)
