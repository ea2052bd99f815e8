"""The demo's claim, checked on worlds no one tuned to: ``foresci demo`` on random seeds.

The docs say of the demo (docs/concepts/forecasters.md): trend beats persistence and chance on direction
forecasting, and persistence sits at chance, since a world's planted labels say nothing about a
direction's size before the cutoff. One demo world cannot show the second half: its 40 direction tasks
are option sets over the same ten directions, so persistence's one reading of them decides every task at
once (on five random seeds its top-1 read 0.125-0.450). This script runs the demo pipeline
(:func:`foresci.app.signal.run_world` with the demo's own settings, gates on) on ``--worlds`` seeds drawn
at random (the offset is printed; ``--first-seed`` repeats a run) and checks, with intervals that resample
whole worlds (each world counting once; the estimator was fixed before any of these seeds was read):

- trend - persistence (paired, direction top-1): lower bound above 0;
- trend's top-1: lower bound above chance;
- chance lies inside persistence's interval (persistence reads chance, as the generator intends).

Exit 1 when one is missed. Cost: one demo world each (about 2 minutes with one thread on a quiet core).

Run: ``OMP_NUM_THREADS=1 python benchmarks/demo_claim.py [--worlds 5] [--first-seed S] [--keep DIR]``
(``--rescore DIR`` reads the worlds kept under DIR again without running anything).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

from foresci.app.signal import DIRECTION, DifficultyPool, WorldOutcome, kept_world, run_world, world_of
from foresci.core.settings import Settings
from foresci.evaluation.quality import chance_level
from foresci.sim.world import default_world_config


def claim_failures(pool: DifficultyPool, samples: int = 2000) -> tuple[list[str], list[str]]:
    """(lines to print, failures) of the demo's claim over the pooled worlds."""
    quality = pool.family(DIRECTION)
    trend = quality.interval("top1", "trend", samples, cluster_of=world_of, equal_clusters=True)
    persistence = quality.interval("top1", "persistence", samples, cluster_of=world_of, equal_clusters=True)
    difference = quality.paired_difference("top1", "trend", "persistence", samples, cluster_of=world_of)
    chance = chance_level(quality)
    if trend is None or persistence is None or difference is None or chance is None:
        return [], ["no scored direction tasks"]
    lines = [
        f"direction top-1 over {len(pool.worlds)} worlds (each world once, worlds resampled):",
        f"  trend        {trend.mean:.3f} [{trend.low:.3f}, {trend.high:.3f}]",
        f"  persistence  {persistence.mean:.3f} [{persistence.low:.3f}, {persistence.high:.3f}]",
        f"  chance       {chance:.3f}",
        f"  trend - persistence {difference.mean:+.3f} [{difference.low:+.3f}, {difference.high:+.3f}]",
    ]
    failures = []
    if difference.low <= 0:
        failures.append(f"trend - persistence lower bound {difference.low:+.3f} is not above 0")
    if trend.low <= chance:
        failures.append(f"trend lower bound {trend.low:.3f} is not above chance {chance:.3f}")
    if not persistence.low <= chance <= persistence.high:
        failures.append(f"chance {chance:.3f} is outside persistence's interval "
                        f"[{persistence.low:.3f}, {persistence.high:.3f}]")
    return lines, failures


def world_line(world: WorldOutcome) -> str:
    """One world's direction tasks and each forecaster's strict top-1."""
    part = world.quality.get(DIRECTION)
    if part is None:
        return f"  seed {world.seed}: no direction tasks"
    cells = []
    for method in ("trend", "persistence"):
        values = part.top1.get(method, {})
        cells.append(f"{method} {sum(values.values()) / max(len(values), 1):.3f}")
    return f"  seed {world.seed}: {len(part.top1.get('trend', {}))} direction tasks, " + ", ".join(cells)


def main() -> int:
    """Run the worlds, print the figures, return 1 when the claim fails."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worlds", type=int, default=5, help="demo worlds to run")
    parser.add_argument("--first-seed", type=int, default=None,
                        help="first seed (default: a random offset, printed); seeds are consecutive")
    parser.add_argument("--keep", type=Path, default=None, help="keep every world's artifacts here")
    parser.add_argument("--rescore", type=Path, default=None, metavar="DIR",
                        help="no run: read the worlds kept under DIR (s<seed> folders)")
    args = parser.parse_args()
    pool = DifficultyPool(difficulty=default_world_config().difficulty)
    if args.rescore is not None:
        for folder in sorted(args.rescore.glob("s*")):
            world = kept_world(folder, pool.difficulty, int(folder.name[1:]))
            if world is not None:
                pool.worlds.append(world)
                print(world_line(world))
    else:
        first = args.first_seed
        if first is None:
            first = random.SystemRandom().randrange(10_000, 90_000)
        print(f"seeds {first}..{first + args.worlds - 1} (repeat with --first-seed {first})", flush=True)
        root = args.keep or Path(tempfile.mkdtemp(prefix="foresci-demo-claim-"))
        for seed in range(first, first + args.worlds):
            config = default_world_config().model_copy(update={"seed": seed})
            world = run_world(config, root / f"s{seed}", keep=args.keep is not None, settings=Settings())
            pool.worlds.append(world)
            print(world_line(world) + f" ({world.seconds:.0f} s)", flush=True)
    lines, failures = claim_failures(pool)
    print("\n".join(lines))
    for failure in failures:
        print(f"MISS: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
