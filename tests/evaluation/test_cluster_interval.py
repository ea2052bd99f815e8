"""Intervals over tasks that come in clusters (the worlds of the signal benchmark) resample clusters."""

from __future__ import annotations

from foresci.evaluation.quality import FamilyQuality
from foresci.evaluation.stats import bootstrap_mean, cluster_bootstrap_mean
from foresci.signal import world_of


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
