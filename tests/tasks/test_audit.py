"""Triviality audit and rebalancing: concentration and persistence gates."""

from __future__ import annotations

from datetime import date

from foresci.tasks.audit import audit_tasks, render_audit
from foresci.tasks.builders.common import Built, select_balanced
from foresci.tasks.config import TaskSettings
from foresci.tasks.hidden import HiddenTarget, Slot
from foresci.tasks.models import Candidate, Task


def _item(index: int, label: str, persistent: bool, family: str = "direction_forecasting") -> Built:
    task = Task(task_id=f"t{index}", family=family, domain="toy", cutoff=date(2025, 12, 31),
                # type: ignore[arg-type]
                horizon="3m", window_start=date(2026, 1, 1), window_end=date(2026, 3, 31), title=f"t{index}",
                question="q", candidates=[Candidate(option_id=letter,
                                                    name=f"{letter}{index}") for letter in "AB"])
    hidden = HiddenTarget(task_id=task.task_id, family=family, primary_direction="A", trajectory=label,
                          # type: ignore[arg-type]
                          slots=[Slot(name="primary_direction", variants=[f"A{index}"])],
                          stats={"persistence_match": persistent})
    return Built(task=task, hidden=hidden, decision_key=(f"n{index}", f"m{index}"), label=label,
                 persistence_match=persistent)


def test_audit_rejects_a_persistence_trivial_family() -> None:
    items = [_item(index, ["accelerating", "cooling"][index % 2],
                   persistent=index != 0) for index in range(20)]
    report = audit_tasks([item.task for item in items], {item.hidden.task_id: item.hidden for item in items})
    family = report.families["direction_forecasting"]
    assert family.persistence_matches == 19 and family.persistence_rate == 0.95
    assert not family.passed and not report.passed
    assert "persistence" in render_audit(report)


def test_audit_rejects_label_concentration_and_passes_a_balanced_family() -> None:
    skewed = [_item(index, "fragmenting" if index < 9 else "steady", index % 2 == 0) for index in range(10)]
    report = audit_tasks([item.task for item in skewed],
                         {item.hidden.task_id: item.hidden for item in skewed})
    assert report.families["direction_forecasting"].labels == {"fragmenting": 9, "steady": 1}
    assert not report.families["direction_forecasting"].passed
    balanced = [_item(index, ["accelerating", "cooling", "steady"][index % 3],
                      index % 2 == 0) for index in range(9)]
    report = audit_tasks([item.task for item in balanced],
                         {item.hidden.task_id: item.hidden for item in balanced})
    assert report.passed, render_audit(report)


def test_selection_rebalances_labels_and_persistence() -> None:
    pool = [_item(index, "accelerating" if index % 5 else "cooling",
                  persistent=index % 4 != 0) for index in range(60)]
    settings = TaskSettings()
    chosen = select_balanced(pool, 10, settings)
    labels = [item.label for item in chosen]
    assert chosen and max(labels.count(label) for label in set(labels)) <= 0.5 * len(chosen)
    matches = sum(bool(item.persistence_match) for item in chosen)
    assert matches <= settings.max_persistence_share * len(chosen)
    report = audit_tasks([item.task for item in chosen],
                         {item.hidden.task_id: item.hidden for item in chosen})
    assert report.passed, render_audit(report)


def test_duplicate_decisions_are_found_and_skipped() -> None:
    first, second = _item(1, "steady", False), _item(2, "cooling", False)
    second.task = second.task.model_copy(update={"candidates": first.task.candidates})
    report = audit_tasks([first.task, second.task], {"t1": first.hidden, "t2": second.hidden})
    assert report.families["direction_forecasting"].duplicates == [["t1", "t2"]]
    second.decision_key = first.decision_key
    assert len(select_balanced([first, second], 5, TaskSettings())) == 1
