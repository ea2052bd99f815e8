"""Headroom in the signal benchmark: the rules that read only the public task are scored per task and the
best of them (with persistence) is set against trend, worlds resampled."""

from __future__ import annotations

from datetime import date

from foresci.app.signal import world_of
from foresci.app.signal_headroom import add_public_rules, headroom, rule_top1
from foresci.evaluation.quality import FamilyQuality
from foresci.tasks.families.direction_forecasting.target import DirectionTarget
from foresci.tasks.models import Candidate, Task

CUTOFF = date(2025, 6, 30)


def _task(task_id: str, counts: dict[str, tuple[int, int]], top: str) -> tuple[Task, DirectionTarget]:
    task = Task(task_id=task_id, family="direction_forecasting", domain="d", cutoff=CUTOFF, horizon="3m",
                window_start=CUTOFF, window_end=CUTOFF, title=task_id, question=f"which {task_id}",
                candidates=[Candidate(option_id=option, name=f"topic {option}") for option in counts],
                context={"candidates": {option: {"pre_cutoff_papers": pre, "recent_papers": recent}
                                        for option, (pre, recent) in counts.items()}})
    return task, DirectionTarget(task_id=task_id, primary_direction=top, ranking=[top])


def test_rules_read_the_public_counts_with_ties_shared() -> None:
    task, target = _task("t", {"A": (100, 20), "B": (10, 8), "C": (100, 5)}, "B")
    assert rule_top1(task, target) == {"rule:recency": 1.0, "rule:largest": 0.0, "rule:smallest": 1.0}
    tied, target = _task("u", {"A": (100, 20), "B": (10, 8), "C": (100, 5)}, "A")
    # A and C tie on size
    assert rule_top1(tied, target) == {"rule:recency": 0.0, "rule:largest": 0.5, "rule:smallest": 0.0}
    sized = task.model_copy(update={"context": {"candidates": {"A": {"pre_cutoff_papers": 100},
                                                               "B": {"pre_cutoff_papers": 10}}}})
    assert rule_top1(sized, target) == {"rule:largest": 1.0, "rule:smallest": 0.0}  # no recency rule


def test_headroom_names_the_best_public_rule_and_trends_margin() -> None:
    quality = FamilyQuality("direction_forecasting")
    tasks, hidden = {}, {}
    for world in range(12):
        for index in range(3):
            key = f"s{world}:t{index}"
            # the recent riser B wins in every world; trend finds it in 2 of 3 tasks, persistence never
            task, target = _task(key, {"A": (100, 10), "B": (20, 15), "C": (60, 6)}, "B")
            tasks[key], hidden[key] = task, target
            quality.top1.setdefault("trend", {})[key] = 1.0 if index else 0.0
            quality.top1.setdefault("persistence", {})[key] = 0.0
    add_public_rules({"direction_forecasting": quality}, tasks, hidden)
    assert set(quality.top1["rule:recency"].values()) == {1.0}
    assert set(quality.top1["rule:largest"].values()) == {0.0}
    room = headroom(quality, world_of, samples=200)
    assert room is not None and room.rule == "rule:recency"
    assert abs(room.margin.mean - (2 / 3 - 1)) < 1e-9 and not room.reading_pays
    assert "best public rule rule:recency 1.000" in room.line() and room.line().endswith("NO")


def test_venue_headroom_is_printed_as_a_persistence_family() -> None:
    quality = FamilyQuality("venue_positioning")
    for world in range(6):
        for index in range(2):
            key = f"s{world}:t{index}"
            quality.top1.setdefault("trend", {})[key] = float(index)
            quality.top1.setdefault("persistence", {})[key] = 1.0
    room = headroom(quality, world_of, samples=200)
    assert room is not None and room.rule == "persistence" and not room.reading_pays
    assert room.line().endswith("NO (a persistence family, not a headline one)")
