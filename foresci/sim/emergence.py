"""Synthetic concept-emergence worlds: concept pairs planted to begin co-occurring after the cutoff.

A world has invented two-word concepts in latent communities. Before the cutoff each paper names 2–4
concepts of one community (sometimes one from another), weighted by popularity. After the cutoff the
background papers repeat concept sets already seen, so the only new links in the window are the planted
pairs, each written by ``papers_per_pair`` papers that name just the pair.

``difficulty`` decides how many planted pairs pre-cutoff signals announce. An announced pair is drawn
from the unconnected pairs of one community (shared neighbours) when the signal months begin, its two
concepts grow more popular during them (growing degrees), and it is kept apart until the cutoff. The
others are drawn uniformly from the pairs still unconnected at the cutoff, so nothing before it tells
them from any other candidate. At difficulty 0 every pair is announced; at 1 none is.
This module only adds a generator: the worlds of :mod:`foresci.sim.world` are untouched.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from foresci.core.io import write_json
from foresci.kb.models import Paper
from foresci.sim.corpus import write_day_files
from foresci.sim.knobs import parse_month, weekdays

_CONSONANTS = "bdfgklmnprtvz"
_VOWELS = "aeiou"


class EmergenceWorldConfig(BaseModel):
    """Knobs of an emergence world; the same config gives the same papers."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int = Field(default=1, description="world seed")
    difficulty: float = Field(default=0.0, ge=0.0, le=1.0,
                              description="share of planted pairs no pre-cutoff signal announces")
    concepts: int = Field(default=120, ge=10, description="invented concepts")
    communities: int = Field(default=6, ge=2, description="latent concept communities")
    start: str = Field(default="2024-01", description="first month 'YYYY-MM'")
    months_before: int = Field(default=9, ge=4, description="months up to the cutoff (its last day)")
    window_months: int = Field(default=3, ge=1, description="months after the cutoff")
    signal_months: int = Field(default=3, ge=1, description="months before the cutoff in which announced "
                                                           "pairs' concepts grow")
    papers_per_month: int = Field(default=150, ge=10, description="background papers a month")
    cross_community: float = Field(default=0.1, ge=0.0, le=1.0,
                                   description="chance a paper names one concept of another community")
    planted_pairs: int = Field(default=30, ge=1, description="pairs planted to emerge in the window")
    papers_per_pair: int = Field(default=3, ge=1, description="window papers naming each planted pair (the "
                                                              "most, with min_papers_per_pair)")
    min_papers_per_pair: int | None = Field(default=None, ge=1,
                                            description="when set, each pair draws its window papers "
                                                        "uniformly from this to papers_per_pair")
    growth: float = Field(default=3.0, ge=1.0, description="popularity factor of an announced pair's "
                                                           "concepts during the signal months")

    @property
    def month_keys(self) -> list[str]:
        """'YYYY-MM' of every month, the window included."""
        year, month = parse_month(self.start, "start")
        first = year * 12 + month - 1
        return [f"{(first + offset) // 12:04d}-{(first + offset) % 12 + 1:02d}"
                for offset in range(self.months_before + self.window_months)]

    @property
    def cutoff(self) -> date:
        """Last day of the last month before the window."""
        year, month = parse_month(self.month_keys[self.months_before - 1], "start")
        return date(year, month, calendar.monthrange(year, month)[1])

    @property
    def window_end(self) -> date:
        """Last day of the window."""
        year, month = parse_month(self.month_keys[-1], "start")
        return date(year, month, calendar.monthrange(year, month)[1])


class PlantedPair(BaseModel):
    """A concept pair planted to emerge in the window."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    first: str
    second: str
    announced: bool = Field(description="pre-cutoff signals announce it (shared community, growing degrees)")


@dataclass(frozen=True)
class EmergenceWorld:
    """The papers of a world (announcement order) and its planted pairs."""

    config: EmergenceWorldConfig
    concepts: tuple[str, ...]
    papers: tuple[Paper, ...]
    planted: tuple[PlantedPair, ...]


def _concept_names(rng: np.random.Generator, count: int) -> list[str]:
    """``count`` distinct invented two-word names (words of 2–3 consonant-vowel syllables, ending on 'n'
    or 'k' so no word reads as a plural or a known English word)."""
    names: set[str] = set()
    ordered: list[str] = []

    def word() -> str:
        syllables = int(rng.integers(2, 4))
        core = "".join(_CONSONANTS[rng.integers(len(_CONSONANTS))] + _VOWELS[rng.integers(len(_VOWELS))]
                       for _ in range(syllables))
        return core + "nk"[int(rng.integers(2))]

    while len(ordered) < count:
        name = f"{word()} {word()}"
        if name not in names:
            names.add(name)
            ordered.append(name)
    return ordered


class _Drafter:
    """Draws concept sets for papers."""

    def __init__(self, config: EmergenceWorldConfig, rng: np.random.Generator) -> None:
        self.config = config
        self.rng = rng
        self.community = np.arange(config.concepts) % config.communities
        self.popularity = np.exp(rng.normal(0.0, 0.6, config.concepts))
        self.members = [np.flatnonzero(self.community == group) for group in range(config.communities)]

    def concept_set(self, boost: dict[int, float], forbidden: set[tuple[int, int]]) -> list[int]:
        """2–4 concepts of one community (one maybe from another), no forbidden pair among them."""
        group = int(self.rng.integers(self.config.communities))
        members = self.members[group]
        weights = np.asarray([self.popularity[c] * boost.get(int(c), 1.0) for c in members])
        size = min(int(self.rng.integers(2, 5)), len(members))
        drawn = self.rng.choice(members, size=size, replace=False, p=weights / weights.sum())
        chosen = [int(c) for c in drawn]
        if self.rng.random() < self.config.cross_community:
            chosen[-1] = int(self.rng.integers(self.config.concepts))
        kept: list[int] = []
        for concept in dict.fromkeys(chosen):
            if all((min(concept, other), max(concept, other)) not in forbidden for other in kept):
                kept.append(concept)
        return kept


def _unconnected(sets: list[list[int]], concepts: int) -> np.ndarray:
    """(n, 2) pairs i < j of used concepts that no concept set joins."""
    joined = np.zeros((concepts, concepts), dtype=bool)
    used = np.zeros(concepts, dtype=bool)
    for chosen in sets:
        used[chosen] = True
        joined[np.ix_(chosen, chosen)] = True
    free = np.triu(~joined, k=1) & used[:, None] & used[None, :]
    return np.argwhere(free)


def generate_emergence_world(config: EmergenceWorldConfig) -> EmergenceWorld:
    """Generate the world of ``config`` (see the module docstring for what is planted)."""
    rng = np.random.default_rng(config.seed)
    names = _concept_names(rng, config.concepts)
    drafter = _Drafter(config, rng)
    months = config.month_keys
    quiet = config.months_before - config.signal_months
    by_month: list[list[list[int]]] = [[] for _ in months]
    for index in range(quiet):
        by_month[index] = [drafter.concept_set({}, set()) for _ in range(config.papers_per_month)]
    announced_count = int(round(config.planted_pairs * (1.0 - config.difficulty)))
    free = _unconnected([s for month in by_month[:quiet] for s in month], config.concepts)
    same = free[drafter.community[free[:, 0]] == drafter.community[free[:, 1]]]
    picks = rng.choice(len(same), size=min(announced_count, len(same)), replace=False)
    announced = [(int(same[i, 0]), int(same[i, 1])) for i in sorted(picks.tolist())]
    boost = {concept: config.growth for pair in announced for concept in pair}
    forbidden = set(announced)
    for index in range(quiet, config.months_before):
        by_month[index] = [drafter.concept_set(boost, forbidden) for _ in range(config.papers_per_month)]
    before = [s for month in by_month[: config.months_before] for s in month]
    still_free = [tuple(map(int, pair)) for pair in _unconnected(before, config.concepts)
                  if (int(pair[0]), int(pair[1])) not in forbidden]
    hidden_count = config.planted_pairs - len(announced)
    hidden_picks = rng.choice(len(still_free), size=min(hidden_count, len(still_free)), replace=False)
    hidden = [still_free[i] for i in sorted(hidden_picks.tolist())]
    for index in range(config.months_before, len(months)):
        drawn = rng.integers(len(before), size=config.papers_per_month)
        by_month[index] = [list(before[int(i)]) for i in drawn]
    for first, second in (*announced, *hidden):
        least = config.min_papers_per_pair
        most = config.papers_per_pair
        count = most if least is None else int(rng.integers(least, most + 1))
        for _ in range(count):
            by_month[config.months_before + int(rng.integers(config.window_months))].append([first, second])
    planted = [PlantedPair(first=names[a], second=names[b], announced=True) for a, b in announced] + \
              [PlantedPair(first=names[a], second=names[b], announced=False) for a, b in hidden]
    papers = _papers(config, months, by_month, names, rng)
    return EmergenceWorld(config=config, concepts=tuple(names), papers=tuple(papers), planted=tuple(planted))


def _papers(config: EmergenceWorldConfig, months: list[str], by_month: list[list[list[int]]],
            names: list[str], rng: np.random.Generator) -> list[Paper]:
    """Papers in announcement order: a month's concept sets spread over its weekdays."""
    papers: list[Paper] = []
    for month, sets in zip(months, by_month, strict=True):
        days = weekdays(month)
        placed = sorted((int(rng.integers(len(days))), order) for order in range(len(sets)))
        year, number = parse_month(month, "month")
        for serial, (day_index, order) in enumerate(placed, start=1):
            words = [names[concept] for concept in sets[order]]
            papers.append(Paper(
                paper_id=f"{year % 100:02d}{number:02d}.{serial:05d}",
                title=" and ".join(words[:2]),
                abstract="Concepts: " + "; ".join(words) + ".",
                authors=["Synthetic Author"], categories=["cs.SY"], announced=days[day_index],
                source="arxiv-daily",
            ))
    return papers


def write_emergence_world(world: EmergenceWorld, out: Path, until: date | None = None) -> list[Path]:
    """Write the world's papers (those announced up to ``until`` when given) as daily-arXiv JSONL files
    under ``out/corpus`` and its planted pairs to ``out/planted.json``; return the corpus files."""
    days: dict[date, list[dict[str, object]]] = {}
    for paper in world.papers:
        if until is None or paper.announced <= until:
            days.setdefault(paper.announced, []).append({
                "id": paper.paper_id, "title": paper.title, "summary": paper.abstract,
                "authors": paper.authors, "categories": paper.categories, "comment": None})
    write_json(out / "planted.json", [pair.model_dump() for pair in world.planted])
    return write_day_files(out / "corpus", dict(sorted(days.items())), compress=False)
