"""The researcher's release checks (#44): each on a small generated fixture where it must fire, and where it
must not."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import date
from typing import Any

import numpy as np
import pytest
from pydantic import BaseModel

from foresci.tasks.audit import audit_tasks, render_audit
from foresci.tasks.builders.common import Built, select_balanced
from foresci.tasks.config import TaskSettings
from foresci.tasks.families import TaskFamily
from foresci.tasks.hidden import HiddenTarget, make_hidden_target
from foresci.tasks.models import Candidate, Task
from foresci.tasks.release_checks import (
    audit_checks,
    fragment_reason,
    pair_filter,
    repair_counts,
    same_concept,
    trajectory_consistent,
)
from foresci.tasks.text_index import TextIndex
from tests.support.families import registered_family

SETTINGS = TaskSettings()


def _texts() -> TextIndex:
    """A generated pre-cutoff corpus: one concept pair used together, fragments always inside longer names."""
    rows = [("p0", "Policy optimization for multimodal large language models. We study GRPO."),
            ("p1", "Scaling multimodal large language models. A survey."),
            ("p2", "Policy optimization revisited. Trust regions.")]
    rows += [(f"g{index}", f"Fast image generation models. Video generation models for {index} frames.")
             for index in range(6)]
    rows += [(f"s{index}", f"Graph sparsification for retrieval {index}.") for index in range(3)]
    rows += [(f"l{index}", f"Low-rank adaptation of {index} layers helps.") for index in range(3)]
    return TextIndex(rows)


def _task(family: str, names: list[str], domain_name: str = "large language model agents",
          descriptions: list[str] | None = None, context: dict[str, object] | None = None) -> Task:
    letters = "ABCD"[:len(names)]
    return Task(task_id=f"{family[:2]}-{abs(hash(tuple(names))) % 10_000}", family=family, domain="toy",
                cutoff=date(2025, 12, 31), horizon="3m", window_start=date(2026, 1, 1),
                window_end=date(2026, 3, 31), title="t", question="q",
                candidates=[Candidate(option_id=letter, name=name, description=(descriptions or [""] * 4)[i])
                            for i, (letter, name) in enumerate(zip(letters, names, strict=True))],
                context={"domain_name": domain_name, **(context or {})})


def _counts(task: Task, hidden: HiddenTarget | None = None, texts: TextIndex | None = None) -> dict[str, int]:
    targets = {task.task_id: hidden} if hidden is not None else {}
    return audit_checks([task], targets, SETTINGS, {"toy": texts} if texts is not None else None)["counts"]


def test_a_pair_used_together_before_the_cutoff_is_a_false_premise() -> None:
    texts = _texts()
    task = _task("concept_emergence", ["policy optimization + multimodal large language models",
                                       "graph sparsification + low-rank adaptation"])
    figures = audit_checks([task], {}, SETTINGS, {"toy": texts})
    assert figures["counts"]["false_premise"] == 1  # p0 uses the first pair; nothing uses the second
    assert len(figures["examples"]["false_premise"]) == 1 and "p0" in figures["examples"]["false_premise"][0]
    assert _counts(task)["false_premise"] == 0  # without the text the premise is not checked
    assert audit_checks([task], {}, SETTINGS)["text_checked"] is False


def test_pair_drawing_refuses_false_premises_fragments_and_synonyms() -> None:
    names = ["policy optimization", "multimodal large language models", "generation models",
             "low-rank adaptation", "low-rank adapters", "graph sparsification"]
    pairs = np.array([[0, 1], [2, 5], [3, 4], [5, 3]])
    refused: list[str] = []
    allowed = pair_filter(names, pairs, _texts(), refused)
    assert [allowed(row) for row in range(4)] == [False, False, False, True]
    assert [line.split(":")[1] for line in refused] == ["false_premise", "fragment_concept", "synonym_pair"]


def test_fragments_and_synonyms() -> None:
    texts = _texts()
    assert fragment_reason("model agents") is not None  # a generic first word
    assert fragment_reason("generation models", texts) is not None  # always "image/video generation models"
    assert fragment_reason("generation models") is None  # the tail rule needs the text
    assert fragment_reason("low-rank adaptation", texts) is None
    assert same_concept("low-rank adaptation", "low-rank adapters")
    assert same_concept("LLM reasoning", "reasoning models")
    assert same_concept("text-to-image generation", "image synthesis")
    assert not same_concept("image synthesis", "video understanding")


def test_the_synonym_rule_flags_names_of_one_concept_and_not_a_concept_inside_another() -> None:
    one_concept = [("low-rank adaptation", "low-rank adapters"), ("LLM reasoning", "reasoning models"),
                   ("text-to-image generation", "image synthesis"),
                   ("synthetic data", "synthetic data generation"),
                   ("LLM-based multi-agent systems", "multi-agent systems"),
                   ("retrieval-augmented generation", "RAG"), ("diffusion models", "video diffusion models")]
    two_concepts = [("multi-agent collaboration", "model agents"),
                    ("multi-agent reinforcement learning", "reinforcement learning"),
                    ("multi-agent collaboration", "LLM-based multi-agent systems"),
                    ("GUI agents", "LLM-based agents"), ("image synthesis", "video understanding")]
    assert [pair for pair in one_concept if not same_concept(*pair)] == []
    assert [pair for pair in two_concepts if same_concept(*pair)] == []
    assert [pair for pair in two_concepts if same_concept(*reversed(pair))] == []
    # as a concept pair, a name inside another co-occurs by wording: refused as nested, not as synonyms
    task = _task("concept_emergence", ["reinforcement learning + multi-agent reinforcement learning"])
    counts = _counts(task)
    assert counts["nested_pair"] == 1 and counts["synonym_pair"] == 0


def test_umbrella_near_synonym_and_count_mismatch_options() -> None:
    names = ["LLM-based agents", "LLM reasoning", "reasoning models", "tool use"]
    task = _task("direction_forecasting", names,
                 descriptions=["25 papers; most central: A", "", "", "7 papers; most central: B"],
                 context={"candidates": {"A": {"pre_cutoff_papers": 57}, "D": {"pre_cutoff_papers": 7}}})
    counts = _counts(task)
    assert counts["umbrella_option"] == 1 and counts["near_synonym_options"] == 1
    assert counts["count_mismatch"] == 1
    hidden = make_hidden_target(task_id=task.task_id, family=task.family, primary_direction="A",
                                trajectory="steady", ranking=["A", "B", "C", "D"])
    repair_counts(task, hidden)
    assert task.candidates[0].description == "57 papers; most central: A"
    assert hidden.stats["repaired"] == ["count_mismatch: A said 25 papers, stored 57"]
    assert _counts(task)["count_mismatch"] == 0


def _direction_target(task: Task, label: str, growth: float, window: tuple[int, int]) -> HiddenTarget:
    return make_hidden_target(
        task_id=task.task_id, family=task.family, primary_direction="A", trajectory=label,
        ranking=["A", "B", "C", "D"],
        stats={"options": {"A": {"log_share_growth": growth, "window": window[0]},
                           "B": {"log_share_growth": growth - 0.5, "window": window[1]}},
               "node_ids": {"A": "n1", "B": "n2"},
               "label_share": {"A": {"own": 0.6, "best_other": 0.1}, "B": {"own": 0.05, "best_other": 0.0}}})


def test_trajectory_thin_target_and_label_checks() -> None:
    task = _task("direction_forecasting", ["tool use", "memory", "planning", "code agents"])
    def inconsistent(label: str, growth: float) -> int:
        return _counts(task, _direction_target(task, label, growth, (12, 3)))["trajectory_inconsistent"]

    assert inconsistent("cooling", 0.4) == 1 and inconsistent("steady", 0.53) == 1
    assert inconsistent("accelerating", 0.53) == 0
    assert trajectory_consistent("fragmenting", 0.1) and not trajectory_consistent("fragmenting", -0.5)
    assert _counts(task, _direction_target(task, "accelerating", 0.53, (2, 1)))["thin_target"] == 1
    assert _counts(task, _direction_target(task, "accelerating", 0.53, (12, 3)))["label_mismatch"] == 1  # B


def test_a_pair_target_decided_by_one_paper_is_thin() -> None:
    task = _task("concept_emergence", ["a b + c d", "e f + g h", "i j + k l", "m n + o p"])
    close = make_hidden_target(task_id=task.task_id, family=task.family, ranking=["A", "B", "C", "D"],
                               window_papers={"A": 3, "B": 2, "C": 1, "D": 0})
    clear = make_hidden_target(task_id=task.task_id, family=task.family, ranking=["A", "B", "C", "D"],
                               window_papers={"A": 9, "B": 2, "C": 1, "D": 0})
    assert _counts(task, close)["thin_target"] == 1
    assert _counts(task, clear)["thin_target"] == 0


def _won(index: int, node: str) -> Built:
    task = _task("direction_forecasting", [f"x{index}", f"y{index}", f"z{index}"])
    task = task.model_copy(update={"task_id": f"t{index}"})
    hidden = make_hidden_target(task_id=task.task_id, family=task.family, primary_direction="A",
                                ranking=["A", "B", "C"], stats={"node_ids": {"A": node, "B": "b", "C": "c"}})
    return Built(task=task, hidden=hidden, decision_key=(f"{node}{index}", f"o{index}"))


def test_one_node_wins_at_most_max_node_wins_tasks() -> None:
    settings = TaskSettings(max_node_wins=2, max_persistence_share=1.0, max_baseline_share=1.0)
    items = [_won(index, "hot" if index < 6 else f"n{index}") for index in range(10)]
    chosen = select_balanced(items, 8, settings)
    winners = [item.hidden.stats["node_ids"]["A"] for item in chosen]
    assert winners.count("hot") == 2 and len(chosen) == 6
    report = audit_tasks([item.task for item in items], {item.task.task_id: item.hidden for item in items},
                         settings)
    assert report.release_checks["counts"]["node_win_cap"] == 1
    assert "node_win_cap: 1" in render_audit(report)


class _GatedAnswer(BaseModel):
    note: str = ""


class _Gated(TaskFamily):
    """A family from outside foresci with its own release gates: every option named "bad" is an umbrella
    option, its winner's lead is read from ``stats.lead`` and gated at 3 papers, and a release audit counts
    its tasks offering a "bad" option."""

    name = "gated_toy_family"
    abbreviation = "gt"
    answer_schema = _GatedAnswer
    deliverables = ("Say something.",)
    metrics = ("trace_offline",)
    hidden_target = "foresci.tasks.hidden:HiddenTarget"

    def release_findings(self, task: Task, index: TextIndex | None) -> list[tuple[str, str]]:
        return [("umbrella_option", f"'{candidate.name}' is bad") for candidate in task.candidates
                if candidate.name == "bad"]

    def release_screen(self, task: Task, hidden: HiddenTarget, domain: object) -> None:
        hidden.stats["screened_by"] = self.name

    def winner_counts(self, task: Task, hidden: HiddenTarget) -> tuple[int, int] | None:
        top, second = hidden.stats["lead"]
        return int(top), int(second)

    def lead_finding(self, task: Task, hidden: HiddenTarget, counts: tuple[int, int],
                     settings: TaskSettings) -> str | None:
        return f"lead {counts[0] - counts[1]} < 3" if counts[0] - counts[1] < 3 else None

    def defect_figures(self, tasks: Sequence[Task], hidden: Mapping[str, HiddenTarget]) -> dict[str, Any]:
        return {"bad_option_tasks": [task.task_id for task in tasks
                                     if any(candidate.name == "bad" for candidate in task.candidates)]}

    def defect_lines(self, figures: Mapping[str, Any]) -> list[str]:
        return [f"tasks offering a bad option: {len(figures['bad_option_tasks'])}"]


@pytest.fixture
def gated() -> Iterator[TaskFamily]:
    """The gated family registered for one test, then removed again."""
    with registered_family(_Gated) as family:
        yield family


def test_a_family_from_outside_gates_its_tasks_and_counts_its_defects_through_its_hooks(
        gated: TaskFamily) -> None:
    """The release checks and the defect audit name no family: they ask each task's family (its
    ``release_findings``, ``release_screen``, ``winner_counts``, ``lead_finding``, ``defect_figures``)."""
    from types import SimpleNamespace

    from foresci.tasks.release_checks import screen
    from foresci.tasks.release_defects import release_defects, render_defects

    bad = _task(gated.name, ["bad", "fine option"])
    good = _task(gated.name, ["good option", "fine option"])
    close = HiddenTarget(task_id=bad.task_id, family=gated.name, stats={"lead": [12, 10]})
    clear = HiddenTarget(task_id=good.task_id, family=gated.name, stats={"lead": [12, 2]})
    figures = audit_checks([bad, good], {bad.task_id: close, good.task_id: clear}, SETTINGS)
    assert figures["flagged"]["umbrella_option"] == [bad.task_id]
    assert figures["flagged"]["thin_target"] == [bad.task_id] and "lead 2 < 3" in figures["examples"][
        "thin_target"][0]
    assert figures["text_checked"] is True  # the family reads no text: nothing was left unchecked
    domain = SimpleNamespace(text_cache=SimpleNamespace(text_index=_texts()))
    assert screen(good, clear, domain, SETTINGS) == [] and clear.stats["screened_by"] == gated.name
    defects = release_defects([bad, good], {})
    assert defects["bad_option_tasks"] == [bad.task_id]
    assert "tasks offering a bad option: 1" in render_defects(defects)

