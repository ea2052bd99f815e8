"""The signal benchmark's worlds select tasks without reading who wins them (#29).

A release's selection caps each read a task's outcome (the winner's label, whether persistence's pick or
the largest option wins). Inside one small benchmark world they chose its few tasks by who wins: the
persistence trim removed every task of a world whose largest node won them all, and the label cap filled
half of a world with sets no accelerating direction wins. ``foresci.app.signal.pooled_settings`` lifts
them; these tests catch a cap that comes back.
"""

from __future__ import annotations

import random

from foresci.app.signal import pooled_settings
from foresci.tasks.builders.common import Built, select_balanced
from foresci.tasks.config import TaskSettings
from tests.tasks.test_audit import _item


def _pool(size: int, persistent: bool, labels: tuple[str, ...]) -> list[Built]:
    return [_item(index, labels[index % len(labels)], persistent) for index in range(size)]


def test_release_selection_drops_a_family_persistence_wins_throughout() -> None:
    """The release's behaviour the benchmark must not inherit: all persistence matches -> nothing kept."""
    assert select_balanced(_pool(8, True, ("accelerating", "cooling")), 40, TaskSettings()) == []


def test_benchmark_selection_keeps_every_decisive_set_whoever_wins() -> None:
    settings = pooled_settings().tasks
    assert not settings.enforce_gates
    for persistent in (True, False):
        pool = _pool(12, persistent, ("accelerating",))
        chosen = select_balanced(pool, 40, settings, group_of=lambda item: item.task.horizon)
        assert chosen == pool


def test_benchmark_selection_truncates_in_sampled_order_not_by_label() -> None:
    """When a world has more sets than wanted, which ones are kept does not depend on their outcome."""
    settings = pooled_settings().tasks
    pool = _pool(30, False, ("accelerating", "cooling", "steady"))
    random.Random(3).shuffle(pool)
    chosen = select_balanced(pool, 10, settings)
    assert chosen == pool[:10]
    relabelled = [_item(int(item.task.task_id[1:]), "cooling", not item.persistence_match) for item in pool]
    again = select_balanced(relabelled, 10, settings)
    assert [item.task.task_id for item in again] == [item.task.task_id for item in chosen]
