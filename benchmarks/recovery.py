"""Recovery curve: how well ``trend`` and ``persistence`` recover planted dynamics of synthetic worlds.

Over a grid difficulty x noise (several seeds each) it generates a world (foresci.sim.world), reads its
corpus into an in-memory cutoff-bounded view (papers after the cutoff are dropped before the forecasters
see anything; embeddings for cohesion are hashed bags of words, so no model is loaded), and scores:

- direction: the chosen candidate is the direction with the largest planted window growth factor or an
  acceptable neighbour within 0.25 log-growth of it, as the task builder defines them (chance =
  acceptable / candidates);
- trajectory: the label given to each direction equals the planted label (chance printed per cell);
- ranking: pairwise agreement of the planning ranking with the planted window growth factor, the order
  a team planning the window should prefer (pairs with equal factors skipped; chance 0.5).

Candidates carry the planted vocabulary's key terms (the forecasters' inputs), never the labels.
Goal (exit 1 when missed): trend beats chance clearly on easy worlds, and its accuracy falls toward chance
as difficulty rises.

Run: ``python benchmarks/recovery.py [--seeds 2] [--quick]``
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import zlib
from collections import Counter
from datetime import date
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from foresci.agents.baselines.forecasters import Forecaster
from foresci.agents.config import AgentSettings
from foresci.agents.tools import month_of
from foresci.core.io import iter_jsonl
from foresci.kb.formats import paper_from_daily
from foresci.kb.models import Paper, SearchHit
from foresci.sim.world import WorldConfig, generate_world, load_ground_truth
from foresci.tasks.models import Candidate, Task

NEIGHBOUR_TOLERANCE = 0.25


class InMemoryView:
    """A cutoff-bounded view over a world's corpus (the KBView interface the forecasters use)."""

    def __init__(self, papers: list[Paper], category_of: dict[str, str], cutoff: date) -> None:
        self._cutoff = cutoff
        self._papers = sorted(
            (paper for paper in papers if paper.announced <= cutoff),
            key=lambda paper: (paper.announced, paper.paper_id),
        )
        self._by_id = {paper.paper_id: paper for paper in self._papers}
        self._category_of = category_of

    @property
    def cutoff(self) -> date:
        return self._cutoff

    def papers(self, domain: str | None = None) -> list[Paper]:
        if domain is None:
            return list(self._papers)
        category = self._category_of[domain]
        return [paper for paper in self._papers if category in paper.categories]

    def monthly_counts(self, domain: str | None = None) -> dict[str, int]:
        return dict(Counter(month_of(paper.announced) for paper in self.papers(domain)))

    def get(self, paper_id: str) -> Paper | None:
        return self._by_id.get(paper_id)

    def search(self, query: str, k: int = 10, domain: str | None = None) -> list[SearchHit]:
        words = set(query.lower().split())
        scored = sorted(
            ((len(words & set(paper.text.lower().split())), paper) for paper in self.papers(domain)),
            key=lambda item: -item[0],
        )
        return [
            SearchHit(paper=paper, score=float(score), rank=rank)
            for rank, (score, paper) in enumerate(scored[:k], start=1)
            if score > 0
        ]

    def embeddings(self, paper_ids: list[str]) -> np.ndarray:
        vectors = np.zeros((len(paper_ids), 512), dtype=np.float32)
        for row, paper_id in enumerate(paper_ids):
            for word in self._by_id[paper_id].text.lower().split():
                vectors[row, zlib.crc32(word.encode()) % 512] += 1.0
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.maximum(norms, 1e-9)


def load_papers(corpus: Path) -> list[Paper]:
    """Papers of a world's daily files (first announcement kept)."""
    papers: dict[str, Paper] = {}
    for path in sorted(corpus.glob("*.jsonl*")):
        day = date.fromisoformat(path.name[:10])
        for row in iter_jsonl(path):
            paper = paper_from_daily(row, day)
            papers.setdefault(paper.paper_id, paper)
    return list(papers.values())


def world_scores(difficulty: float, noise: float, seed: int, folder: Path) -> dict[str, dict[str, float]]:
    """Accuracies of trend and persistence on one world, with the chance levels."""
    paths = generate_world(WorldConfig(seed=seed, difficulty=difficulty, noise=noise, n_domains=2), folder)
    truth = load_ground_truth(paths.root)
    view = InMemoryView(
        load_papers(paths.corpus), {domain.slug: domain.category for domain in truth.domains}, truth.cutoff
    )
    scores: dict[str, dict[str, list[float]]] = {
        kind: {"direction": [], "trajectory": [], "ranking": []} for kind in ("trend", "persistence")
    }
    chance: dict[str, list[float]] = {"direction": [], "trajectory": [], "ranking": []}
    for domain in truth.domains:
        directions = [truth.direction(key) for key in domain.direction_ids]
        options = {f"O{index}": direction for index, direction in enumerate(directions, start=1)}
        task = Task(
            task_id=f"rec-{domain.slug}",
            family="direction_forecasting",
            domain=domain.slug,
            cutoff=truth.cutoff,
            horizon="6m",
            window_start=truth.cutoff,
            window_end=truth.cutoff,
            title="recovery",
            question="which direction gains momentum?",
            candidates=[
                Candidate(option_id=option, name=direction.name) for option, direction in options.items()
            ],
            context={
                "candidates": {
                    option: {"key_terms": direction.vocabulary.key_terms}
                    for option, direction in options.items()
                }
            },
        )
        best = max(direction.planted_factor for direction in directions)
        # the winner and its acceptable neighbours (within NEIGHBOUR_TOLERANCE log-growth), as in tasks
        winners = {
            option
            for option, direction in options.items()
            if math.log(direction.planted_factor) >= math.log(best) - NEIGHBOUR_TOLERANCE
        }
        growth = {option: direction.planted_factor for option, direction in options.items()}
        labels = Counter(direction.trajectory for direction in directions)
        chance["direction"].append(len(winners) / len(options))
        chance["trajectory"].append(max(labels.values()) / len(directions))
        chance["ranking"].append(0.5)
        for kind in ("trend", "persistence"):
            forecaster = Forecaster(kind, view, AgentSettings())  # type: ignore[arg-type]
            answer, _ = forecaster.direction(task)
            scores[kind]["direction"].append(float(answer.direction in winners))
            if kind == "trend":
                series = forecaster.series(task)
                hits = [
                    forecaster.trajectory(series[option]) == direction.trajectory
                    for option, direction in options.items()
                ]
            else:
                hits = [direction.trajectory == "steady" for direction in directions]
            scores[kind]["trajectory"].append(float(np.mean(hits)))
            plan, _ = forecaster.planning(task.model_copy(update={"family": "strategic_planning"}))
            order = [item.option_id for item in plan.ranking]
            pairs = [(left, right) for left, right in combinations(order, 2) if growth[left] != growth[right]]
            agree = [growth[left] > growth[right] for left, right in pairs]
            scores[kind]["ranking"].append(float(np.mean(agree)) if agree else 0.5)
    result = {
        kind: {metric: float(np.mean(values)) for metric, values in metrics.items()}
        for kind, metrics in scores.items()
    }
    result["chance"] = {metric: float(np.mean(values)) for metric, values in chance.items()}
    return result


def main() -> int:
    """Print the recovery table; exit 1 when the curve does not fall toward chance."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="difficulty {0, 1} x noise {0} only")
    parser.add_argument("--json", type=Path, help="also write the table as JSON")
    args = parser.parse_args()
    difficulties = [0.0, 1.0] if args.quick else [0.0, 0.25, 0.5, 0.75, 1.0]
    noises = [0.0] if args.quick else [0.0, 0.3, 0.6]
    rows: list[dict[str, Any]] = []
    print(
        f"{'difficulty':>10} {'noise':>5} | {'trend dir':>9} {'traj':>5} {'rank':>5} | "
        f"{'pers dir':>8} {'traj':>5} {'rank':>5} | {'chance dir':>10} {'traj':>5} {'rank':>5}"
    )
    with tempfile.TemporaryDirectory() as scratch:
        for difficulty in difficulties:
            for noise in noises:
                cells = [
                    world_scores(difficulty, noise, seed, Path(scratch) / f"w{difficulty}-{noise}-{seed}")
                    for seed in range(1, args.seeds + 1)
                ]
                cell = {
                    kind: {
                        metric: float(np.mean([item[kind][metric] for item in cells]))
                        for metric in ("direction", "trajectory", "ranking")
                    }
                    for kind in ("trend", "persistence", "chance")
                }
                rows.append({"difficulty": difficulty, "noise": noise, **cell})
                t, p, c = cell["trend"], cell["persistence"], cell["chance"]
                print(
                    f"{difficulty:>10.2f} {noise:>5.1f} | {t['direction']:>9.2f} {t['trajectory']:>5.2f} "
                    f"{t['ranking']:>5.2f} | {p['direction']:>8.2f} {p['trajectory']:>5.2f} "
                    f"{p['ranking']:>5.2f} | {c['direction']:>10.2f} {c['trajectory']:>5.2f} "
                    f"{c['ranking']:>5.2f}",
                    flush=True,
                )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    easy = [row for row in rows if row["difficulty"] == difficulties[0]]
    hard = [row for row in rows if row["difficulty"] == difficulties[-1]]

    def mean(items: list[dict[str, Any]], kind: str, metric: str) -> float:
        return float(np.mean([item[kind][metric] for item in items]))

    failures = []
    for metric in ("direction", "ranking"):
        easy_trend, hard_trend = mean(easy, "trend", metric), mean(hard, "trend", metric)
        easy_chance, hard_chance = mean(easy, "chance", metric), mean(hard, "chance", metric)
        if easy_trend < easy_chance + 0.2:
            failures.append(
                f"trend {metric} on easy worlds {easy_trend:.2f} is not clearly above chance "
                f"{easy_chance:.2f}"
            )
        if hard_trend - hard_chance >= easy_trend - easy_chance:
            failures.append(
                f"trend {metric} does not fall toward chance: lift {easy_trend - easy_chance:.2f} "
                f"(easy) vs {hard_trend - hard_chance:.2f} (hard)"
            )
    for failure in failures:
        print(f"MISSED: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
