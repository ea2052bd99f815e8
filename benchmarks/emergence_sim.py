"""Concept emergence on synthetic worlds: does the learned baseline see announced pairs and nothing else?

For each seed it generates an emergence world (:mod:`foresci.sim.emergence`) at difficulty 0 (every
planted pair announced by pre-cutoff signals: shared community, growing degrees) and at difficulty 1 (none
announced: planted pairs drawn uniformly from the candidates at the cutoff), builds the emergence set at
the world's cutoff with its window, trains the learned baseline on the earlier cutoff and scores every
baseline (k = 1). Each world's AUC counts once; intervals resample worlds (percentile bootstrap, 2,000).

Goals (exit 1 when missed), over >= 10 worlds: at difficulty 0 the learned baseline's mean AUC has its 95 %
interval above 0.75 (well above chance); at difficulty 1 its interval contains 0.5.

Run: ``python benchmarks/emergence_sim.py [--seeds 10]`` (about a second a world).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from foresci.emergence.concepts import concept_papers
from foresci.emergence.config import load_emergence_settings
from foresci.emergence.evaluate import LEARNED, evaluate_window
from foresci.emergence.features import BASELINES
from foresci.sim.emergence import EmergenceWorldConfig, generate_emergence_world

EASY_FLOOR = 0.75


def world_aucs(seed: int, difficulty: float) -> dict[str, float]:
    """Method -> AUC (k = 1) on one world."""
    settings = load_emergence_settings()
    settings = settings.model_copy(update={
        "targets": settings.targets.model_copy(update={"positive_min_papers": [1]}),
        "scoring": settings.scoring.model_copy(update={"bootstrap_resamples": 0})})
    config = EmergenceWorldConfig(seed=seed, difficulty=difficulty)
    world = generate_emergence_world(config)
    result = evaluate_window(concept_papers(world.papers, settings.vocabulary), config.cutoff,
                             config.window_months, settings)[0]
    return {method: metrics["auc"].value for method, metrics in result.scores.items()}


def mean_interval(values: list[float], seed: int = 0) -> tuple[float, float, float]:
    """Mean and 95 % percentile-bootstrap interval over worlds."""
    array = np.asarray(values)
    rng = np.random.default_rng(seed)
    means = array[rng.integers(0, len(array), (2000, len(array)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(array.mean()), float(low), float(high)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10, help="worlds per difficulty (>= 10 for the goal)")
    args = parser.parse_args()
    started = time.perf_counter()
    failures = []
    for difficulty in (0.0, 1.0):
        per_method: dict[str, list[float]] = {}
        for seed in range(1, args.seeds + 1):
            for method, auc in world_aucs(seed, difficulty).items():
                per_method.setdefault(method, []).append(auc)
        print(f"difficulty {difficulty:.0f} ({args.seeds} worlds): mean AUC [95 % interval over worlds]")
        for method in (*BASELINES, LEARNED):
            mean, low, high = mean_interval(per_method[method])
            print(f"  {method:<24} {mean:.3f} [{low:.3f}, {high:.3f}]")
        mean, low, high = mean_interval(per_method[LEARNED])
        if difficulty == 0.0 and not low > EASY_FLOOR:
            failures.append(f"difficulty 0: learned AUC interval [{low:.3f}, {high:.3f}] "
                            f"not above {EASY_FLOOR}")
        if difficulty == 1.0 and not low <= 0.5 <= high:
            failures.append(f"difficulty 1: learned AUC interval [{low:.3f}, {high:.3f}] excludes 0.5")
    if args.seeds < 10:
        failures.append(f"only {args.seeds} worlds per difficulty; the goal needs >= 10")
    print(f"time {time.perf_counter() - started:.1f} s")
    for failure in failures:
        print(f"GOAL MISSED: {failure}")
    print("goals met" if not failures else "")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
