"""Triviality audit and rebalancing: concentration and persistence gates."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from foresci.tasks.audit import audit_tasks, render_audit
from foresci.tasks.builders.common import Built, select_balanced
from foresci.tasks.config import TaskSettings
from foresci.tasks.hidden import HiddenTarget, Slot, make_hidden_target
from foresci.tasks.models import Candidate, Task


def _item(index: int, label: str, persistent: bool, family: str = "direction_forecasting") -> Built:
    task = Task(
        task_id=f"t{index}",
        family=family,
        domain="toy",
        cutoff=date(2025, 12, 31),
        # type: ignore[arg-type]
        horizon="3m",
        window_start=date(2026, 1, 1),
        window_end=date(2026, 3, 31),
        title=f"t{index}",
        question="q",
        candidates=[Candidate(option_id=letter, name=f"{letter}{index}") for letter in "ABC"],
    )
    primary = "ABC"[index % 3]
    is_direction = family == "direction_forecasting"
    direction = {"primary_direction": primary, "trajectory": label} if is_direction else {}
    hidden = make_hidden_target(
        task_id=task.task_id,
        family=family,
        **direction,
        slots=[Slot(name="primary_direction", variants=[f"{primary}{index}"])],
        stats={"persistence_match": persistent},
    )
    return Built(
        task=task,
        hidden=hidden,
        decision_key=(f"n{index}", f"m{index}"),
        label=label,
        persistence_match=persistent,
    )


def test_audit_rejects_a_persistence_trivial_family() -> None:
    items = [
        _item(index, ["accelerating", "cooling"][index % 2], persistent=index != 0) for index in range(20)
    ]
    report = audit_tasks([item.task for item in items], {item.hidden.task_id: item.hidden for item in items})
    family = report.families["direction_forecasting"]
    assert family.persistence_matches == 19 and family.persistence_rate == 0.95
    assert not family.passed and not report.passed
    assert "persistence" in render_audit(report)


def test_audit_rejects_label_concentration_and_passes_a_balanced_family() -> None:
    skewed = [_item(index, "fragmenting" if index < 9 else "steady", index % 2 == 0) for index in range(10)]
    report = audit_tasks(
        [item.task for item in skewed], {item.hidden.task_id: item.hidden for item in skewed}
    )
    assert report.families["direction_forecasting"].labels == {"fragmenting": 9, "steady": 1}
    assert not report.families["direction_forecasting"].passed
    balanced = [
        _item(index, ["accelerating", "cooling", "steady"][index % 3], index % 2 == 0) for index in range(9)
    ]
    report = audit_tasks(
        [item.task for item in balanced], {item.hidden.task_id: item.hidden for item in balanced}
    )
    assert report.passed, render_audit(report)


def test_selection_rebalances_labels_and_persistence() -> None:
    pool = [
        _item(index, "accelerating" if index % 5 else "cooling", persistent=index % 4 != 0)
        for index in range(60)
    ]
    settings = TaskSettings()
    chosen = select_balanced(pool, 10, settings)
    labels = [item.label for item in chosen]
    assert chosen and max(labels.count(label) for label in set(labels)) <= 0.5 * len(chosen)
    matches = sum(bool(item.persistence_match) for item in chosen)
    assert matches <= settings.max_persistence_share * len(chosen)
    report = audit_tasks(
        [item.task for item in chosen], {item.hidden.task_id: item.hidden for item in chosen}
    )
    assert report.passed, render_audit(report)


def test_duplicate_decisions_are_found_and_skipped() -> None:
    first, second = _item(1, "steady", False), _item(4, "cooling", False)
    second.task = second.task.model_copy(update={"candidates": first.task.candidates})
    report = audit_tasks([first.task, second.task], {"t1": first.hidden, "t4": second.hidden})
    assert report.families["direction_forecasting"].duplicates == [["t1", "t4"]]
    second.decision_key = first.decision_key
    assert len(select_balanced([first, second], 5, TaskSettings())) == 1


def _sized(index: int, sizes: dict[str, int], top: str, domain: str = "toy") -> tuple[Task, HiddenTarget]:
    item = _item(index, "steady", False)
    task = item.task.model_copy(update={"domain": domain})
    hidden = item.hidden.model_copy(
        update={
            "primary_direction": top,
            "stats": {"options": {option: {"pre_total": size} for option, size in sizes.items()}},
        }
    )
    return task, hidden


def test_smallest_and_largest_option_rates_and_their_gate() -> None:
    pairs = [
        _sized(index, {"A": 5, "B": 50, "C": 20}, "ABC"[index % 3] if index < 3 else "A")
        for index in range(10)
    ]
    report = audit_tasks([task for task, _ in pairs], {hidden.task_id: hidden for _, hidden in pairs})
    family = report.families["direction_forecasting"]
    assert family.smallest_option_wins is not None and family.largest_option_wins is not None
    assert (family.smallest_option_wins.matches, family.smallest_option_wins.evaluable) == (8, 10)
    assert family.largest_option_wins.matches == 1
    assert not family.passed and any("smallest_option_wins" in reason for reason in family.reasons)
    tied = _sized(99, {"A": 5, "B": 5}, "A")
    assert (
        audit_tasks([tied[0]], {tied[1].task_id: tied[1]})
        .families["direction_forecasting"]
        .smallest_option_wins.evaluable
        == 0
    )  # type: ignore[union-attr]


def test_fixed_rules_first_named_and_domain_constant() -> None:
    tasks, hidden = [], {}
    for index in range(8):
        task, target = _sized(index, {"A": 1, "B": 2, "C": 3}, "B", domain=f"d{index % 2}")
        names = {candidate.option_id: candidate.name for candidate in task.candidates}
        task = task.model_copy(update={"question": f"{names['B']} or {names['A']}?"})
        tasks.append(task)
        hidden[task.task_id] = target
    report = audit_tasks(tasks, hidden)
    rules = {rate.rule: rate for rate in report.families["direction_forecasting"].rule_baselines}
    assert (rules["first_named"].matches, rules["first_named"].evaluable) == (8, 8)
    assert rules["first_option"].matches == 0
    assert rules["domain_constant"].evaluable == 0  # option names differ per task: no constant answer
    assert report.families["direction_forecasting"].best_rule.rule == "first_named"  # type: ignore[union-attr]
    assert not report.passed


def test_domain_constant_is_leave_one_out_over_stable_option_names() -> None:
    tasks, hidden = [], {}
    for index, top in enumerate("AAAB"):
        item = _item(index, "steady", False, family="venue_positioning")
        task = item.task.model_copy(
            update={"candidates": [Candidate(option_id=letter, name=f"venue {letter}") for letter in "ABC"]}
        )
        tasks.append(task)
        hidden[task.task_id] = item.hidden.model_copy(update={"ranking": [top]})
    rules = {
        rate.rule: rate for rate in audit_tasks(tasks, hidden).families["venue_positioning"].rule_baselines
    }
    assert (rules["domain_constant"].matches, rules["domain_constant"].evaluable) == (3, 4)


def test_identical_questions_and_method_agreement_are_reported() -> None:
    items = [
        _item(index, ["accelerating", "cooling", "steady"][index % 3], index % 2 == 0) for index in range(6)
    ]
    same = {"title": "same", "question": "same?", "candidates": items[0].task.candidates}
    tasks = [
        item.task.model_copy(
            update=same if item.task.task_id in ("t0", "t1") else {"title": "same", "question": "same?"}
        )
        for item in items
    ]  # t2..t5 ask the same question over other options: a different decision, not flagged
    decisions = {
        "trend": {task.task_id: "A" for task in tasks},
        "persistence": {task.task_id: "A" if task.task_id != "t5" else "B" for task in tasks},
    }
    report = audit_tasks(tasks, {item.hidden.task_id: item.hidden for item in items}, decisions=decisions)
    family = report.families["direction_forecasting"]
    assert family.identical_question_pairs == [["t0", "t1"]]
    assert family.method_agreement is not None and family.method_agreement.matches == 5
    assert family.separates_methods is False
    assert any("does not separate methods" in finding for finding in family.findings)
    assert "identical question, different answer: 1 pairs" in render_audit(report)


def test_builders_drop_a_family_a_fixed_rule_solves(tmp_path: Path) -> None:
    from foresci.tasks.build import write_release

    solved = [
        _item(index, ["accelerating", "cooling", "steady"][index % 3], index % 2 == 0) for index in range(9)
    ]
    for item in solved:
        item.hidden = item.hidden.model_copy(update={"primary_direction": "A"})
    report = write_release(tmp_path, {"direction_forecasting": solved}, TaskSettings(), inputs={})
    assert not report.families["direction_forecasting"].passed
    assert (tmp_path / "tasks.jsonl").read_text(encoding="utf-8") == ""


def _venue_item(index: int, domain: str, top: str) -> Built:
    """A venue-like task: the same five options in every task, the hidden ranking led by ``top``."""
    item = _item(index, "steady", False, family="venue_positioning")
    item.task = item.task.model_copy(update={
        "domain": domain, "context": {"contribution": f"sub-direction {index}"},
        "candidates": [Candidate(option_id=letter, name=f"venue {letter}") for letter in "ABCDE"]})
    ranking = [top, *(letter for letter in "ABCDE" if letter != top)]
    item.hidden = item.hidden.model_copy(update={"primary_direction": None, "trajectory": None,
                                                 "ranking": ranking})
    item.label = None
    return item


def test_selection_keeps_the_domains_usual_answer_under_the_fixed_rule_gate() -> None:
    """Most candidates of each domain share one top venue (as ACL does for LLM fine-tuning): picked as they
    come, "the domain's most common answer" would solve the family; the selection swaps in the others."""
    pool = [_venue_item(index, f"d{index % 2}", "A" if index % 5 else "BCDE"[(index // 5) % 4])
            for index in range(40)]
    settings = TaskSettings()
    chosen = select_balanced(pool, 16, settings)
    report = audit_tasks([item.task for item in chosen],
                         {item.hidden.task_id: item.hidden for item in chosen})
    family = report.families["venue_positioning"]
    rule = next(rate for rate in family.rule_baselines if rate.rule == "domain_constant")
    assert len(chosen) >= 10 and rule.evaluable >= settings.min_gate_tasks
    assert rule.rate is not None and rule.rate <= settings.max_baseline_share, render_audit(report)
    assert family.passed, render_audit(report)


def test_selection_keeps_the_largest_option_under_the_gate() -> None:
    """Three of four candidates are won by their largest option; the selection keeps that rule <= 60 %."""
    pool = []
    for index in range(40):
        task, hidden = _sized(index, {"A": 5, "B": 50, "C": 20}, "B" if index % 4 else "A")
        pool.append(Built(task=task, hidden=hidden, decision_key=(f"n{index}",), label=None))
    settings = TaskSettings()
    chosen = select_balanced(pool, 12, settings)
    report = audit_tasks([item.task for item in chosen], {item.task.task_id: item.hidden for item in chosen})
    family = report.families["direction_forecasting"]
    assert len(chosen) >= 10 and family.largest_option_wins is not None
    assert family.largest_option_wins.rate is not None
    assert family.largest_option_wins.rate <= settings.max_baseline_share


def test_selection_drops_repeats_of_the_usual_answer_when_no_spare_is_left() -> None:
    """Seven of ten tasks share the domain's top answer and no spare task exists: the selection drops
    repeats of that answer until the fixed rule is under the gate, never below the gate's minimum."""
    pool = [_venue_item(index, "d0", "A" if index < 7 else "BCD"[index - 7]) for index in range(10)]
    settings = TaskSettings()
    before = audit_tasks([item.task for item in pool], {item.hidden.task_id: item.hidden for item in pool})
    assert not before.families["venue_positioning"].passed
    chosen = select_balanced(pool, 10, settings)
    hidden = {item.hidden.task_id: item.hidden for item in chosen}
    report = audit_tasks([item.task for item in chosen], hidden)
    family = report.families["venue_positioning"]
    rule = next(rate for rate in family.rule_baselines if rate.rule == "domain_constant")
    assert settings.min_gate_tasks <= rule.evaluable < len(pool)
    assert rule.rate is not None and rule.rate <= settings.max_baseline_share, render_audit(report)
    assert {item.hidden.ranking[0] for item in chosen} >= {"B", "C", "D"}  # only repeats were dropped
    assert family.passed, render_audit(report)
