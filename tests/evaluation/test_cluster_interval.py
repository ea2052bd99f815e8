"""Intervals over tasks that come in clusters (the worlds of the signal benchmark) resample clusters."""

from __future__ import annotations

from foresci.app.signal import world_of
from foresci.evaluation.quality import FamilyQuality
from foresci.evaluation.stats import bootstrap_mean, cluster_bootstrap_mean


def test_a_world_whose_tasks_stand_or_fall_together_widens_the_interval() -> None:
    # ten worlds; in each, one reading decides all its tasks: 3 worlds right on all 10, 7 wrong on all 10
    clusters = [[1.0] * 10 if world < 3 else [0.0] * 10 for world in range(10)]
    flat = [value for cluster in clusters for value in cluster]
    per_task, per_world = bootstrap_mean(flat), cluster_bootstrap_mean(clusters)
    assert per_task.mean == per_world.mean == 0.3 and per_world.n == 100
    assert per_world.low < 0.1 < per_task.low and per_world.high > 0.55 > per_task.high


def test_family_quality_resamples_the_worlds_named_by_the_task_keys() -> None:
    quality = FamilyQuality("direction_forecasting")
    quality.top1["trend"] = {f"s{world}:t{task}": float(world < 3)
                             for world in range(10) for task in range(10)}
    quality.top1["persistence"] = {key: 0.0 for key in quality.top1["trend"]}
    clustered = quality.interval("top1", "trend", cluster_of=world_of)
    naive = quality.interval("top1", "trend")
    lead = quality.paired_difference("top1", "trend", "persistence", cluster_of=world_of)
    assert clustered is not None and naive is not None and lead is not None
    assert clustered.low < 0.1 < naive.low
    assert lead.mean == 0.3 and lead.low < 0.1


def test_equal_cluster_weights_count_each_world_once_however_many_tasks_it_has() -> None:
    # one world with 17 tasks all wrong, nine worlds with 2 tasks each, right on one of the two
    clusters = [[0.0] * 17] + [[1.0, 0.0] for _ in range(9)]
    pooled = cluster_bootstrap_mean(clusters)
    weighted = cluster_bootstrap_mean(clusters, equal_weights=True)
    assert abs(pooled.mean - 9 / 35) < 1e-12 and abs(weighted.mean - 0.45) < 1e-12
    assert pooled.n == weighted.n == 35
    assert weighted.low < 0.45 < weighted.high <= 0.5


def test_the_signal_goals_read_world_weighted_top1() -> None:
    from foresci.app.signal import DIRECTION, DifficultyPool, WorldOutcome, signal_failures
    from foresci.evaluation.quality import CHANCE, FamilyQuality

    # direction tasks and trend hits of the ten difficulty-1 worlds (seeds 0-9) as last stop measured them
    worlds = [(2, 1), (17, 0), (1, 0), (4, 0), (8, 0), (4, 0), (4, 0), (16, 0), (2, 1), (4, 2)]
    pool = DifficultyPool(1.0)
    for seed, (tasks, hits) in enumerate(worlds):
        quality = FamilyQuality(DIRECTION)
        quality.top1["trend"] = {f"t{task}": float(task < hits) for task in range(tasks)}
        quality.top1["persistence"] = {f"t{task}": 0.0 for task in range(tasks)}
        quality.top1[CHANCE] = {f"t{task}": 0.25 for task in range(tasks)}
        pool.worlds.append(WorldOutcome(1.0, seed, {DIRECTION: quality}, 0.0, 0))
    pooled = pool.family(DIRECTION).interval("top1", "trend", cluster_of=world_of)
    assert pooled is not None and pooled.high < 0.25  # 4 / 62: the two 16-17-task worlds decide it
    assert signal_failures(pool) == []  # by world: 0.15, its interval holds chance
    pool.difficulty = 0.6  # where trends are visible, the same worlds miss the goal
    assert any("not above chance" in failure for failure in signal_failures(pool))
