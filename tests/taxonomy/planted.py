"""A small planted world for taxonomy tests: topics with their own words, centres and growth curves."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

import numpy as np

from foresci.kb.models import Paper


@dataclass(frozen=True)
class PlantedTopic:
    """One planted direction: its words, monthly paper counts and (optionally) the topic it splits from."""

    name: str
    words: tuple[str, ...]
    monthly: tuple[int, ...]
    parent: str | None = None


DEFAULT_TOPICS: tuple[PlantedTopic, ...] = (
    PlantedTopic("zorblax", ("zorblax", "quennet", "tiravel", "mossing"), (20, 25, 25, 30, 37, 45)),
    PlantedTopic("vellium", ("vellium", "draskor", "pellune", "hortig"), (40, 35, 30, 20, 12, 8)),
    PlantedTopic("crandor", ("crandor", "ulvet", "snirrel", "beskow"), (5, 8, 14, 24, 40, 60)),
    PlantedTopic("fimbral", ("fimbral", "gostrin", "yarrow", "plenth"), (0, 0, 0, 20, 25, 30)),
)


def planted_world(topics: tuple[PlantedTopic, ...] = DEFAULT_TOPICS, start: date = date(2025, 1, 1),
                  dimension: int = 32, noise: float = 0.35, seed: int = 3) -> tuple[list[Paper], np.ndarray]:
    """Papers (announcement order) and matching unit embeddings; topic name is the paper id's prefix."""
    rng = np.random.default_rng(seed)
    centres = {topic.name: rng.normal(size=dimension) for topic in topics}
    papers: list[Paper] = []
    vectors: list[np.ndarray] = []
    for topic in topics:
        for month_index, count in enumerate(topic.monthly):
            month_start = _add_months(start, month_index)
            for number in range(count):
                day = month_start + timedelta(days=int(rng.integers(0, 28)))
                words = " ".join(rng.choice(topic.words, size=3))
                papers.append(Paper(
                    paper_id=f"{topic.name}-{month_index:02d}-{number:03d}",
                    title=f"{topic.words[0].title()} study {number} with {words}",
                    abstract=f"We study {words} and {topic.words[1]} {topic.words[2]}. However, "
                             f"{topic.words[3]} remains costly. Future work will scale {topic.words[0]}.",
                    announced=day, categories=["cs.CL"]))
                vector = centres[topic.name] / np.linalg.norm(centres[topic.name]) + noise * rng.normal(
                    size=dimension) / np.sqrt(dimension)
                vectors.append(vector / np.linalg.norm(vector))
    order = sorted(range(len(papers)), key=lambda index: (papers[index].announced, papers[index].paper_id))
    return [papers[index] for index in order], np.asarray(vectors, dtype=np.float32)[order]


def _add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)
