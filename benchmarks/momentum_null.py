"""Does the direction target reward small or large options by itself? A replay on planned paper counts.

For each seed it plans the signal benchmark's world (:func:`foresci.app.signal.small_world`: one domain, six
directions, 40 papers a month) without writing papers, takes the planted directions as the nodes, and builds
every 4-option direction task the builder's gates keep (3- and 6-month windows; margin, lead over noise and
window papers as in :mod:`foresci.tasks.families.direction_forecasting.builder`).
The winner is the option whose share grows
most against its level, the level being either the observed level count ("raw", the old target) or its
empirical-Bayes estimate (:func:`foresci.tasks.evidence.level_estimates`, the target). Printed per
difficulty and level: tasks, how often the largest and the smallest option (by level) win, and trend's
top-1 (log-share slope over the 12 months up to the cutoff, options under the volume floor last).

Goal (exit 1 when missed): at difficulty 1 (nothing planted before the cutoff) neither the largest nor the
smallest option wins more than 0.30 or less than 0.20 of the tasks with the estimated level; by chance
each wins 0.25. With the raw level the largest won 0.186 and the smallest 0.332 (regression to the
mean); with the estimate 0.244 and 0.259 (290 seeds).

Run: ``python benchmarks/momentum_null.py [--seeds 290] [--difficulties 0,0.6,1]`` (seconds: no pipeline).
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from collections.abc import Callable, Mapping

from foresci.agents.baselines.measure import poisson_log_slope
from foresci.agents.config import AgentSettings
from foresci.app.signal import small_world
from foresci.sim.plan import plan_world, total_counts
from foresci.tasks.config import TaskSettings
from foresci.tasks.evidence import LEVEL_MONTHS, level_estimates, smoothed_growth

OPTIONS = 4
HORIZONS = (3, 6)
GOAL = (0.20, 0.30)
Levels = Callable[[Mapping[str, int]], Mapping[str, float]]
LEVELS: dict[str, Levels] = {"raw": lambda levels: {key: float(value) for key, value in levels.items()},
                             "estimated": level_estimates}


def world_tasks(seed: int, difficulty: float, levels_of: Levels, settings: TaskSettings,
                floor: int) -> list[tuple[bool, bool, bool]]:
    """(largest wins, smallest wins, trend right) for each gated 4-option task of one planned world."""
    config = small_world(seed, difficulty, 40.0)
    cutoff = config.cutoff_index
    counts = {direction.direction_id: total_counts(direction)
              for domain in plan_world(config).domains for direction in domain.directions}
    months = len(next(iter(counts.values())))
    totals = [sum(series[month] for series in counts.values()) for month in range(months)]
    first = max(0, cutoff + 1 - LEVEL_MONTHS)
    level = {key: sum(series[first:cutoff + 1]) for key, series in counts.items()}
    estimate = levels_of(level)
    slope = {key: poisson_log_slope(series[first:cutoff + 1], totals[first:cutoff + 1])[0]
             for key, series in counts.items()}
    outcomes = []
    for horizon in HORIZONS:
        window = {key: sum(series[cutoff + 1:cutoff + 1 + horizon]) for key, series in counts.items()}
        window_total = sum(totals[cutoff + 1:cutoff + 1 + horizon])
        level_total = sum(totals[first:cutoff + 1])
        growth = {key: smoothed_growth(estimate[key], level_total, window[key], window_total)
                  for key in counts}
        for options in itertools.combinations(sorted(counts), OPTIONS):
            winner, runner_up = sorted(options, key=lambda key: -growth[key])[:2]
            lead = growth[winner] - growth[runner_up]
            noise = math.sqrt(sum(1.0 / (count + 1) for count in (window[winner], level[winner],
                                                                   window[runner_up], level[runner_up])))
            if (lead < settings.min_margin or window[winner] < settings.min_window_papers
                    or lead < settings.min_lead_z * noise):
                continue
            above = [key for key in options if level[key] >= floor] or list(options)
            trend = max(above, key=lambda key: (slope[key], level[key]))
            outcomes.append((winner == max(options, key=lambda key: level[key]),
                             winner == min(options, key=lambda key: level[key]), trend == winner))
    return outcomes


def main() -> int:
    """Print the rates per difficulty and level; 1 when the goal is missed at difficulty 1."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=290, help="planned worlds per difficulty (seeds 0..N-1)")
    parser.add_argument("--difficulties", default="0,0.6,1", help="comma-separated difficulties")
    args = parser.parse_args()
    settings = TaskSettings()
    floor = math.ceil(AgentSettings().trend_min_monthly_papers * LEVEL_MONTHS)
    failures = []
    print(f"{'difficulty':>10} {'level':<10} {'tasks':>6} {'largest wins':>13} {'smallest wins':>14} "
          f"{'trend top-1':>12}")
    for difficulty in (float(value) for value in args.difficulties.split(",") if value.strip()):
        for name, levels_of in LEVELS.items():
            rows = [row for seed in range(args.seeds)
                    for row in world_tasks(seed, difficulty, levels_of, settings, floor)]
            largest, smallest, trend = (sum(row[index] for row in rows) / max(1, len(rows))
                                        for index in range(3))
            print(f"{difficulty:>10g} {name:<10} {len(rows):>6} {largest:>13.3f} {smallest:>14.3f} "
                  f"{trend:>12.3f}")
            if name == "estimated" and difficulty >= 1.0 and not all(GOAL[0] <= rate <= GOAL[1]
                                                                      for rate in (largest, smallest)):
                failures.append(f"difficulty {difficulty:g}: largest wins {largest:.3f}, smallest "
                                f"{smallest:.3f} (goal: both within {GOAL[0]:.2f}..{GOAL[1]:.2f})")
    for failure in failures:
        print(f"MISSED: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
