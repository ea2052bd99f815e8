"""Defects a researcher sees in a real release and the gates did not: near-duplicate options, the naive
recency rule, bottlenecks that fall, generic opportunities, methods a family does not separate."""

from __future__ import annotations

import copy

import pytest

from foresci.tasks.audit import audit_tasks, render_audit
from foresci.tasks.audit_rates import recency_choice, recency_wins
from foresci.tasks.builders.common import display_name, eligible_nodes_and_drops
from foresci.tasks.config import TaskSettings
from foresci.tasks.evidence import DomainEvidence, collect_evidence
from foresci.tasks.families.bottleneck_opportunity.acceptance import opportunity_lift, rise_test, rises
from foresci.tasks.families.bottleneck_opportunity.builder import build_bottleneck_tasks
from foresci.tasks.families.direction_forecasting.builder import build_direction_tasks
from foresci.tasks.families.direction_forecasting.target import DirectionTarget
from foresci.tasks.families.strategic_planning.builder import build_planning_tasks
from foresci.tasks.models import Candidate, Task
from foresci.tasks.option_similarity import names_near_duplicate, near_duplicate_pairs
from foresci.tasks.windows import make_window
from tests.tasks.test_builders import SETTINGS, classify
from tests.tasks.toy import CUTOFF, toy_world


@pytest.fixture(scope="module")
def evidence() -> DomainEvidence:
    snapshot, papers, assignment = toy_world()
    return collect_evidence(snapshot, papers, assignment, make_window(CUTOFF, "3m"), classify)


@pytest.mark.parametrize(("left", "right", "same"), [
    ("LLM reasoning", "large language model reasoning", True),
    ("large language model reasoning", "reasoning in LLMs", True),
    ("graph neural networks", "GNNs", True),
    ("image generation", "image generation models", True),
    ("diffusion models for video", "diffusion models for images", False),
    ("LLM agents", "LLM reasoning", False),
    ("reasoning", "LLM reasoning", False),
    ("venue A", "venue B", False),
])
def test_option_names_that_name_one_direction(left: str, right: str, same: bool) -> None:
    assert names_near_duplicate(left, right) is same
    assert names_near_duplicate(right, left) is same


def _with_twin(evidence: DomainEvidence) -> DomainEvidence:
    """The toy domain with n_sarn renamed to a near-duplicate of the larger n_glim."""
    twin = copy.deepcopy(evidence)
    twin.nodes["n_sarn"].node.name = "glim sparse routing methods"
    return twin


def test_a_near_duplicate_node_leaves_the_option_pool_and_is_counted(evidence: DomainEvidence) -> None:
    assert eligible_nodes_and_drops(evidence, SETTINGS)[1] == []
    twin = _with_twin(evidence)
    kept, dropped = eligible_nodes_and_drops(twin, SETTINGS)
    assert dropped == [("glim sparse routing methods", "glim sparse routing")]
    assert "n_sarn" not in {item.node_id for item in kept}
    built = build_direction_tasks(twin, SETTINGS, "toy", 10) + build_planning_tasks(twin, SETTINGS, "toy", 10)
    assert built
    for item in built:
        assert not near_duplicate_pairs([candidate.name for candidate in item.task.candidates])
        assert item.hidden.stats["near_duplicate_options_dropped"] == 1
    report = audit_tasks([item.task for item in built], {item.hidden.task_id: item.hidden for item in built})
    assert report.families["direction_forecasting"].near_duplicate_options_dropped == 1
    assert report.families["direction_forecasting"].near_duplicate_option_tasks == []


def _direction_task(index: int, counts: dict[str, tuple[int, int]], top: str) -> tuple[Task, DirectionTarget]:
    names = {"A": "LLM reasoning", "B": "protein folding", "C": "large language model reasoning",
             "D": "robot grasping"}
    task = Task(task_id=f"t{index}", family="direction_forecasting", domain="d", cutoff=CUTOFF, horizon="3m",
                window_start=CUTOFF, window_end=CUTOFF, title=f"q{index}", question=f"which {index}",
                candidates=[Candidate(option_id=option, name=names[option]) for option in counts],
                context={"candidates": {option: {"pre_cutoff_papers": pre, "recent_papers": recent}
                                        for option, (pre, recent) in counts.items()}})
    return task, DirectionTarget(task_id=task.task_id, primary_direction=top, ranking=[top])


def test_recency_rule_is_audited_and_gated() -> None:
    counts = {"A": (100, 20), "B": (10, 8), "D": (50, 10)}
    assert recency_choice(_direction_task(0, counts, "B")[0]) == "B"  # 0.8 against 0.2 and 0.2
    assert recency_choice(_direction_task(0, {"A": (10, 5), "B": (20, 10)}, "B")[0]) is None  # a tie
    pairs = [_direction_task(index, counts, "B" if index < 5 else "A") for index in range(7)]
    assert [recency_wins(task, target) for task, target in pairs] == [True] * 5 + [False] * 2
    report = audit_tasks([task for task, _ in pairs], {task.task_id: target for task, target in pairs})
    family = report.families["direction_forecasting"]
    rate = next(rate for rate in family.rule_baselines if rate.rule == "recency")
    assert (rate.matches, rate.evaluable) == (5, 7)
    assert not family.passed and any("recency matches 5 of 7" in reason for reason in family.reasons)
    assert "recency 5/7" in render_audit(report)


def test_the_audit_rejects_tasks_offering_near_duplicate_options() -> None:
    pairs = [_direction_task(index, {"A": (10, 2), "C": (20, 3), "D": (30, 9)}, "D") for index in range(2)]
    report = audit_tasks([task for task, _ in pairs], {task.task_id: target for task, target in pairs})
    family = report.families["direction_forecasting"]
    assert family.near_duplicate_option_tasks == ["t0", "t1"]
    assert not family.passed and "near-duplicate options" in render_audit(report)


def test_recency_method_reads_stated_counts_or_else_the_kb(evidence: DomainEvidence) -> None:
    """#43: tasks no longer state recent papers, so recency reads the KB where a task states none (and the
    counts an older release's task states where it does)."""
    from foresci.agents.tools import KBTools
    from foresci.core.settings import Settings
    from foresci.methods.registry import MethodInput, registered
    from foresci.methods.shipped.baselines import recency_counts
    from tests.rounds.test_open_costs import ToyView
    from tests.tasks.toy import ToyKB

    spec = registered()["recency"]
    assert spec.needs_kb and not spec.uses_llm
    task, _ = _direction_task(0, {"A": (100, 20), "B": (10, 8), "D": (50, 10)}, "B")
    result = spec.answer(MethodInput(task=task, mode="full"))
    assert result.answer.direction == "B"
    built = build_direction_tasks(evidence, SETTINGS, "toy", 5)[0]
    with pytest.raises(ValueError, match="recency needs a KB"):
        spec.answer(MethodInput(task=built.task, mode="full", settings=Settings()))
    tools = KBTools(ToyView(ToyKB(until=CUTOFF), CUTOFF), "toy", budget=100)  # type: ignore[arg-type]
    inputs = MethodInput(task=built.task, mode="full", settings=Settings(), tools=tools)
    stats = built.hidden.stats["options"]  # the builder's counts: the KB's read the same papers
    assert recency_counts(inputs) == {option: (stats[option]["pre_total"], stats[option]["baseline"])
                                      for option in stats}
    counts = recency_counts(inputs)
    ratio = {option: counts[option][1] / max(counts[option][0], 1) for option in counts}
    assert spec.answer(inputs).answer.direction == min(ratio, key=lambda option: (-ratio[option], option))
    bottleneck = build_bottleneck_tasks(evidence, SETTINGS, "toy", 5)[0].task
    with pytest.raises(ValueError, match="recency"):
        spec.answer(MethodInput(task=bottleneck, mode="full"))
    from foresci.methods.runner import plan_jobs

    jobs = plan_jobs([task, bottleneck], [spec, registered()["trend"]], [], "full")
    asked = sorted((job.task.family, job.spec.name) for job in jobs)  # a run never asks recency a bottleneck
    assert asked == [("bottleneck_opportunity", "trend"), ("direction_forecasting", "recency"),
                     ("direction_forecasting", "trend")]


def test_rise_test_tells_a_rise_from_a_fall() -> None:
    fell = rise_test(before=7, pre_total=241, after=2, window_total=124)  # the "error accumulation"
    assert fell["window_share"] < fell["pre_share"] and not rises(fell)
    rose = rise_test(before=3, pre_total=200, after=12, window_total=100)
    assert rose["p"] < 0.01 and rises(rose)
    flat = rise_test(before=3, pre_total=255, after=3, window_total=488)
    assert not rises(flat)


def test_bottleneck_targets_rise_and_opportunities_are_specific(evidence: DomainEvidence) -> None:
    built = build_bottleneck_tasks(evidence, SETTINGS, "toy", 5)
    assert built
    for item in built:
        test = item.hidden.stats["rise_test"]
        assert rises(test) and "one-sided two-proportion test" in item.hidden.mechanism
        lifts = item.hidden.stats["opportunity_lift"]
        assert all(lift >= 2.0 for lift in lifts.values())


def test_a_phrase_the_whole_domain_writes_is_not_specific() -> None:
    sets = {f"p{index}": frozenset({"visual context"} | ({"zorbic lattice"} if index < 10 else set()))
            for index in range(60)}
    node = [f"p{index}" for index in range(10)]
    assert opportunity_lift("visual context", node, sets) == pytest.approx(1.0 / (51 / 51))
    generic = opportunity_lift("visual context", node, sets)
    specific = opportunity_lift("zorbic lattice", node, sets)
    assert generic is not None and specific is not None and generic < 2.0 <= specific
    assert opportunity_lift("zorbic lattice", node, dict(list(sets.items())[:25])) is None


def test_venue_family_where_trend_equals_persistence_is_flagged() -> None:
    pairs = [_direction_task(index, {"A": (10, 2), "B": (20, 3), "D": (30, 9)}, "D") for index in range(6)]
    tasks = [task.model_copy(update={"family": "venue_positioning"}) for task, _ in pairs]
    same = {task.task_id: "A" for task in tasks}
    hidden = {task.task_id: target for task, (_, target) in zip(tasks, pairs, strict=True)}
    report = audit_tasks(tasks, hidden, decisions={"trend": same, "persistence": same})
    family = report.families["venue_positioning"]
    assert family.separates_methods is False
    assert any("does not separate methods" in finding for finding in family.findings)


def test_display_names_of_the_toy_pool_are_distinct(evidence: DomainEvidence) -> None:
    kept, _ = eligible_nodes_and_drops(evidence, TaskSettings(min_support=5))
    names = [display_name(item.node) for item in kept]
    assert not near_duplicate_pairs(names)


def test_a_direction_family_the_biggest_option_wins_throughout_is_not_kept() -> None:
    """One small world whose accelerating direction is also its largest: every candidate task is a
    persistence match. Kept, it put persistence's top-1 at 1 for that world (#29); the selection now
    trims matches to the cap even when no non-match is left."""
    from foresci.tasks.builders.common import select_balanced
    from tests.tasks.test_audit import _item

    labels = ["accelerating", "cooling", "steady"]
    solved = [_item(index, labels[index % 3], True) for index in range(8)]
    assert select_balanced(solved, 8, TaskSettings()) == []
    mixed = [_item(index, labels[index % 3], index < 6) for index in range(10)]
    chosen = select_balanced(mixed, 10, TaskSettings())
    assert chosen and sum(bool(item.persistence_match) for item in chosen) <= 0.6 * len(chosen)


def test_release_defect_figures_on_the_toy_world(evidence: DomainEvidence) -> None:
    from foresci.tasks.families.bottleneck_opportunity.defects import bottleneck_rise
    from foresci.tasks.release_defects import release_defects, render_defects

    built = (build_direction_tasks(evidence, SETTINGS, "toy", 10)
             + build_planning_tasks(evidence, SETTINGS, "toy", 10)
             + build_bottleneck_tasks(evidence, SETTINGS, "toy", 5))
    hidden = {item.hidden.task_id: item.hidden for item in built}
    figures = release_defects([item.task for item in built], hidden)
    assert figures["near_duplicate_option_tasks"] == [] and figures["near_duplicate_rate"] == 0.0
    assert figures["bottleneck_tested"] == figures["bottleneck_rising"] == figures["bottleneck_targets"] >= 1
    assert set(figures["labels"]) == {"direction_forecasting"}
    assert sum(figures["labels"]["direction_forecasting"].values()) == sum(
        item.task.family == "direction_forecasting" for item in built)
    assert any(line.startswith("near-duplicate options: 0 tasks") for line in render_defects(figures))
    fallen = built[-1].hidden.model_copy(update={
        "stats": {}, "mechanism": "2 of the 124 window papers of the sub-direction address the bottleneck, "
                                  "against 7 of 241 before."})
    test = bottleneck_rise(fallen)
    assert test is not None and not rises(test)


def test_selection_keeps_the_recency_rule_under_its_gate() -> None:
    """Most candidates are won by the option with the highest recent / pre-cutoff ratio: picked as they
    come the naive rule would solve the family; the selection swaps or drops them to the gate."""
    from foresci.tasks.builders.common import Built, select_balanced

    labels = ["accelerating", "cooling", "steady"]
    pool = []
    for index in range(30):
        counts = {"A": (100 + index, 20), "B": (10, 8), "D": (50, 10 + index % 7)}
        top = "B" if index % 4 else "D"
        task, target = _direction_task(index, counts, top)
        target = target.model_copy(update={"trajectory": labels[index % 3]})
        pool.append(Built(task=task.model_copy(update={"domain": f"d{index}"}), hidden=target,
                          decision_key=(f"3m:{index}",), label=labels[index % 3], persistence_match=False))
    chosen = select_balanced(pool, 12, TaskSettings())
    hits = [recency_wins(item.task, item.hidden) for item in chosen]
    known = [hit for hit in hits if hit is not None]
    assert len(known) >= TaskSettings().min_gate_tasks
    assert sum(known) <= 0.6 * len(known)


def test_specificity_reads_the_primary_opportunitys_lift_after_a_round_trip() -> None:
    """A release writes JSON with sorted keys: the first stored lift is the alphabetically first phrase's,
    the figure must be the primary (first) opportunity's."""
    import json

    from foresci.tasks.families.bottleneck_opportunity.defects import primary_opportunity_lift
    from foresci.tasks.families.bottleneck_opportunity.target import BottleneckTarget
    from foresci.tasks.release_defects import release_defects

    target = BottleneckTarget(task_id="bo-1", bottleneck=["training instability"],
                              opportunity=["teacher model", "adversarial training"],
                              stats={"opportunity_lift": {"teacher model": 2.5, "adversarial training": 9.0}})
    stored = BottleneckTarget.model_validate(json.loads(json.dumps(target.model_dump(), sort_keys=True)))
    assert list(stored.stats["opportunity_lift"]) == ["adversarial training", "teacher model"]
    assert primary_opportunity_lift(stored) == 2.5
    task = Task(task_id="bo-1", family="bottleneck_opportunity", domain="toy", cutoff=CUTOFF, horizon="3m",
                window_start=make_window(CUTOFF, "3m").start, window_end=make_window(CUTOFF, "3m").end,
                title="t", question="q?")
    figures = release_defects([task], {"bo-1": stored})
    assert figures["opportunity_lifts"] == [2.5] and figures["opportunity_specific"] == 1
    unrecorded = stored.model_copy(update={"opportunity": ["sampling trajectories"]})
    assert primary_opportunity_lift(unrecorded) is None


def test_a_concept_pair_naming_one_concept_twice_is_counted() -> None:
    from foresci.tasks.release_defects import names_one_concept_twice, release_defects, render_defects

    window = make_window(CUTOFF, "3m")

    def emergence(task_id: str, labels: list[str]) -> Task:
        return Task(task_id=task_id, family="concept_emergence", domain="toy", cutoff=CUTOFF, horizon="3m",
                    window_start=window.start, window_end=window.end, title="t", question="q?",
                    candidates=[Candidate(option_id=chr(65 + index), name=label)
                                for index, label in enumerate(labels)])

    twice = emergence("ce-1", ["model alignment + human values",
                               "synthetic data + synthetic data generation"])
    distinct = emergence("ce-2", ["LLM agents + embodied agents", "code generation + data analysis"])
    assert names_one_concept_twice(twice) and not names_one_concept_twice(distinct)
    figures = release_defects([twice, distinct], {})
    assert figures["one_concept_twice_tasks"] == ["ce-1"] and figures["concept_pairs"] == 2
    assert figures["near_duplicate_option_tasks"] == []  # the two options differ: the old figure missed it
    assert "concept pairs naming one concept twice: 1 of 2 concept-emergence tasks offer one (goal 0)" in \
        render_defects(figures)
