"""Foresight signal over many synthetic worlds: the demo pipeline per world, quality pooled per difficulty.

Each world runs the whole path a user runs (world -> KB with the configured embedder -> taxonomy ->
release -> trend / persistence -> evaluation, :func:`foresci.app.demo.run_demo`); strict top-1 and FTA are
pooled over the worlds of one difficulty and compared with chance. The check
(:func:`signal_failures`): where trends are visible before the cutoff (difficulty <= ``visible_up_to``),
trend's direction top-1 must clear both persistence's and chance's mean with its 95 % lower bound; where
the change happens only after the cutoff (difficulty 1.0), chance must lie inside trend's interval.

Intervals resample whole worlds (:func:`world_of`), not tasks: a small world's direction tasks are option
sets drawn from the same five or six nodes, and a forecaster reads each node the same way in every task,
so one world's tasks stand or fall together (on worlds with no pre-cutoff signal, trend's one noise
favourite decides all 20 tasks of a world at once). Resampling tasks one by one would give intervals a
fraction of the honest width.

The goals read the world-weighted mean (each world's own top-1, averaged over the worlds, every world
counting once), printed beside the task-pooled one. A world is the replicate; how many of its option sets
pass the task gates (1 to 40 at 40 papers a month) says how many ways its few nodes can be combined, not
how much it tells: pooling tasks let the one or two worlds with 16-17 tasks decide a difficulty (at
difficulty 1, seeds 0-9: 33 of 62 tasks came from two worlds whose noise favourites were both wrong,
task-pooled trend 0.081, world-weighted 0.175).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from foresci.app.signal_purity import mixed_direction_tasks, signal_family
from foresci.core.errors import UserError
from foresci.core.settings import Settings
from foresci.evaluation.quality import CHANCE, FamilyQuality, chance_level, family_quality
from foresci.sim.knobs import WorldConfig


def __getattr__(name: str) -> Any:
    if name == "DIRECTION":  # the family the benchmark reads (``TaskFamily.signal_benchmark``)
        return signal_family()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


SPARE_SEEDS = 5
"""Seeds past a set's ``count`` a run may use: a world whose last weekdays drew no paper cannot close its
window and is replaced by the next seed; disjoint seed sets start ``count + SPARE_SEEDS`` apart."""


@dataclass
class WorldOutcome:
    """Quality of one world's release and the seconds its pipeline took."""

    difficulty: float
    seed: int
    quality: dict[str, FamilyQuality]
    seconds: float
    papers: int
    timings: dict[str, float] = field(default_factory=dict)
    mixed_tasks: int | None = None
    """Direction tasks offering a node of two planted directions (:mod:`foresci.app.signal_purity`)."""


@dataclass
class DifficultyPool:
    """Quality of every world of one difficulty, task ids prefixed by the world's seed."""

    difficulty: float
    worlds: list[WorldOutcome] = field(default_factory=list)

    def family(self, family: str) -> FamilyQuality:
        """One family's values pooled over the worlds."""
        pooled = FamilyQuality(family)
        for world in self.worlds:
            part = world.quality.get(family)
            if part is None:
                continue
            for metric in ("top1", "fta"):
                target = getattr(pooled, metric)
                for method, values in getattr(part, metric).items():
                    target.setdefault(method, {}).update(
                        {f"s{world.seed}:{task}": value for task, value in values.items()}
                    )
        return pooled

    def families(self) -> list[str]:
        """Families seen in any world, the signal family (direction) first."""
        names = {name for world in self.worlds for name in world.quality}
        first = signal_family()
        return sorted(names, key=lambda name: (name != first, name))


def world_of(task_key: str) -> str:
    """The world (``s<seed>``) a pooled task key ``s<seed>:<task id>`` comes from."""
    return task_key.split(":", 1)[0]


def small_world(seed: int, difficulty: float, papers_per_month: float = 20.0,
                directions: int = 6) -> WorldConfig:
    """The benchmark's world: one invented domain, ``directions`` planted directions, 18 months."""
    return WorldConfig(seed=seed, difficulty=difficulty, n_domains=1, directions_per_domain=directions,
                       papers_per_month=papers_per_month)


OUTCOME_BLIND = {"enforce_gates": False, "max_label_share": 1.0, "max_persistence_share": 1.0,
                 "max_baseline_share": 1.0}
"""Task settings of a benchmark world: no release gate, and no selection cap that reads who wins."""


def pooled_settings() -> Settings:
    """The environment's settings with the release gates off and task selection blind to outcomes.

    One small world's release holds a handful of direction tasks, most won by its one accelerating
    direction, so the trajectory-label gate (meant for a whole release) would drop the family from most
    worlds. Pooled over worlds the labels balance, and persistence is measured next to trend anyway.

    The release's selection caps are lifted too (:data:`OUTCOME_BLIND`): each reads a task's outcome (the
    winner's trajectory label, whether persistence's pick wins, whether the largest or smallest option
    wins), so inside one small world (at most 30 decisive option sets) they chose its few tasks by who
    wins them: the label cap filled half of them with sets no accelerating direction wins, the persistence
    trim removed every task of a world whose largest node was its top grower (the world then dropped out
    of the pool), and the blind-rule caps swapped out sets the largest option wins (#29). With the caps
    at 1 the selection keeps every decisive, non-duplicate option set of the world (``per_family`` 40 is
    above the 30 a six-direction world can have), whoever wins it.
    """
    settings = Settings()
    settings.tasks = settings.tasks.model_copy(update=OUTCOME_BLIND)
    return settings


def run_world(config: WorldConfig, folder: Path, keep: bool = False,
              settings: Settings | None = None) -> WorldOutcome:
    """Run the demo pipeline on one world under ``folder`` (with ``settings``, default
    :func:`pooled_settings`); return its quality (folder removed unless ``keep``)."""
    import time

    from foresci.app.demo import run_demo
    from foresci.core.io import read_models
    from foresci.evaluation.models import Score
    from foresci.sim.world import load_ground_truth
    from foresci.tasks.release import load_release

    started = time.perf_counter()
    result = run_demo(folder, config=config, quiet=True, report=False, settings=settings or pooled_settings())
    tasks = {task.task_id: task for task in load_release(result.release).tasks}
    quality = family_quality(read_models(result.runs[0] / "scores.jsonl", Score), tasks)
    _add_rules(quality, tasks, result.release)
    papers = load_ground_truth(result.world).paper_count
    mixed, _ = mixed_direction_tasks(result.world, result.taxonomies, result.release)
    if not keep:
        shutil.rmtree(folder, ignore_errors=True)
    return WorldOutcome(config.difficulty, config.seed, quality, time.perf_counter() - started, papers,
                        dict(result.timings), mixed)


def _add_rules(quality: dict[str, FamilyQuality], tasks: dict[str, Any], release: Path) -> None:
    """The public-reading rules' top-1 beside the methods (:mod:`foresci.app.signal_headroom`)."""
    from foresci.app.signal_headroom import add_public_rules
    from foresci.tasks.hidden_io import load_hidden

    add_public_rules(quality, tasks, load_hidden(release))


def kept_world(folder: Path, difficulty: float, seed: int) -> WorldOutcome | None:
    """The outcome of a world that :func:`run_world` kept under ``folder`` (None when it has no scores).

    Seconds are not kept, so they read 0; the quality is re-read from the world's scored rows.
    """
    from foresci.core.io import read_models
    from foresci.evaluation.models import Score
    from foresci.sim.world import load_ground_truth
    from foresci.tasks.release import load_release

    scores = folder / "runs" / "baselines" / "scores.jsonl"
    if not scores.is_file():
        return None
    tasks = {task.task_id: task for task in load_release(folder / "release").tasks}
    quality = family_quality(read_models(scores, Score), tasks)
    _add_rules(quality, tasks, folder / "release")
    taxonomies = sorted(path for path in (folder / "taxonomy").iterdir() if path.is_dir())
    mixed, _ = mixed_direction_tasks(folder / "world", taxonomies, folder / "release")
    return WorldOutcome(difficulty, seed, quality, 0.0, load_ground_truth(folder / "world").paper_count,
                        mixed_tasks=mixed)


def kept_pool(difficulty: float, start: int, count: int,
              folders_of: Callable[[int], list[Path]]) -> DifficultyPool:
    """The first ``count`` worlds kept with their scores from seed ``start`` on (at most
    :data:`SPARE_SEEDS` seeds past ``count``, as :func:`seed_pool` runs them), each re-read from the first
    of ``folders_of(seed)`` that holds it; nothing is run."""
    pool = DifficultyPool(difficulty)
    for seed in range(start, start + count + SPARE_SEEDS):
        if len(pool.worlds) == count:
            break
        found = (kept_world(folder, difficulty, seed) for folder in folders_of(seed))
        world = next((outcome for outcome in found if outcome is not None), None)
        if world is not None:
            pool.worlds.append(world)
    return pool


def seed_pool(difficulty: float, start: int, count: int, config_of: Callable[[int], WorldConfig],
              folder_of: Callable[[int], Path], line: Callable[[WorldOutcome, str], str], keep: bool = False,
              resume: bool = False, settings: Settings | None = None) -> DifficultyPool:
    """``count`` scored worlds from seed ``start`` on, each run by :func:`run_world` in ``folder_of(seed)``
    with ``config_of(seed)``, its ``line(world, how)`` printed as it ends.
    With ``resume`` (and ``keep``) a world kept there with its scores is re-read instead; a world whose
    window cannot close is skipped for the next seed (at most :data:`SPARE_SEEDS` of them)."""
    pool = DifficultyPool(difficulty)
    seed = start
    while len(pool.worlds) < count and seed < start + count + SPARE_SEEDS:
        config = config_of(seed)
        folder = folder_of(seed)
        seed += 1
        kept = kept_world(folder, difficulty, config.seed) if resume and keep else None
        if kept is not None:
            pool.worlds.append(kept)
            print(line(kept, "kept, re-read"), flush=True)
            continue
        try:
            outcome = run_world(config, folder, keep=keep, settings=settings)
        except (ValueError, UserError) as error:
            if "has not closed" not in str(error):
                raise
            print(f"  seed {config.seed:>3}: skipped, {error}", flush=True)
            continue
        pool.worlds.append(outcome)
        print(line(outcome, f"{outcome.seconds:.0f} s"), flush=True)
    return pool


def signal_failures(pool: DifficultyPool, visible_up_to: float = 0.6, flat_from: float = 1.0,
                    samples: int = 2000) -> list[str]:
    """What the pool misses of the signal check (empty when it holds)."""
    quality = pool.family(signal_family())
    trend = quality.interval("top1", "trend", samples, cluster_of=world_of, equal_clusters=True)
    persistence = quality.interval("top1", "persistence", samples, cluster_of=world_of, equal_clusters=True)
    chance = chance_level(quality)
    label = f"difficulty {pool.difficulty:g}"
    if trend is None or persistence is None or chance is None:
        return [f"{label}: no scored direction tasks"]
    failures = []
    if pool.difficulty <= visible_up_to:
        if trend.low <= persistence.mean:
            failures.append(f"{label}: trend top-1 lower bound {trend.low:.3f} is not above persistence "
                            f"{persistence.mean:.3f}")
        if trend.low <= chance:
            failures.append(f"{label}: trend top-1 lower bound {trend.low:.3f} is not above chance "
                            f"{chance:.3f}")
    if pool.difficulty >= flat_from and not trend.low <= chance <= trend.high:
        failures.append(f"{label}: chance {chance:.3f} is outside trend's interval "
                        f"[{trend.low:.3f}, {trend.high:.3f}]")
    return failures


def format_pool(pool: DifficultyPool, samples: int = 2000) -> list[str]:
    """Lines: per world (direction tasks, trend / persistence hits), then per family and method, top-1
    and FTA with 95 % intervals (worlds resampled)."""
    from foresci.app.signal_headroom import headroom
    from foresci.evaluation.quality import quality_rows

    lines = [f"== difficulty {pool.difficulty:g}: {len(pool.worlds)} worlds =="]
    for world in pool.worlds:
        part = world.quality.get(signal_family())
        hits = {method: (sum(part.top1.get(method, {}).values()), len(part.top1.get(method, {})))
                for method in ("trend", "persistence")} if part else {}
        chance = chance_level(part) if part else None
        lines.append(
            f"  seed {world.seed:>3}: {world.papers} papers, {world.seconds:5.1f} s; direction tasks "
            f"{hits.get('trend', (0, 0))[1]}, trend {hits.get('trend', (0, 0))[0]:.0f}, persistence "
            f"{hits.get('persistence', (0, 0))[0]:.0f} right"
            + (f" (chance {chance:.2f})" if chance is not None else "")
            + (f"; {world.mixed_tasks} offer a node of two planted directions" if world.mixed_tasks else "")
        )
    mixed_worlds = sum(1 for world in pool.worlds if world.mixed_tasks)
    lines.append(f"  worlds with a direction task offering a node of two planted directions: {mixed_worlds} "
                 f"of {len(pool.worlds)} (the biggest option of its sets, growing when either direction "
                 "does; not a goal)")
    for family in pool.families():
        quality = pool.family(family)
        lines.append(f"  {family}")
        lines.append(f"    {'method':<12} {'n':>4}  {'top-1 [95 % CI]':<26} FTA [95 % CI]   "
                     f"(intervals resample the {len(pool.worlds)} worlds)")
        for method, count, top, fta in quality_rows(quality, samples, cluster_of=world_of):
            lines.append(f"    {method:<12} {count:>4}  {top:<26} {fta}")
        difference = quality.paired_difference("top1", "trend", "persistence", samples, cluster_of=world_of)
        if difference is not None and CHANCE in quality.top1:
            lines.append(f"    trend - persistence top-1: {difference.mean:+.3f} "
                         f"[{difference.low:+.3f}, {difference.high:+.3f}]")
        weighted = [(method, quality.interval("top1", method, samples, cluster_of=world_of,
                                              equal_clusters=True)) for method in quality.methods()]
        cells = [f"{method} {item.mean:.3f} [{item.low:.3f}, {item.high:.3f}]" for method, item in weighted
                 if item is not None]
        if cells:
            lines.append("    world-weighted top-1 (each world once; the goals read these): "
                         + "; ".join(cells))
        room = headroom(quality, world_of, samples)
        if room is not None:
            lines.append(room.line())
    return lines
