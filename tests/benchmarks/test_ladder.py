"""The known-skill ladder (benchmarks/ladder.py): the planted answerer answers from the hidden target when
skilled and guesses uniformly otherwise (a plan and a forecast question included), and the report names a
flat or non-monotone metric and the tasks a step would need to separate."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest

from benchmarks.ladder import LEVELS, Ladder, clusters_needed, forecast_payload, report, task_payload
from foresci.contracts import Answer
from foresci.evaluation.config import EvaluationSettings
from foresci.evaluation.metrics import ScoringContext, get_metric
from foresci.tasks.families import get_family
from foresci.tasks.families.direction_forecasting.target import DirectionTarget
from foresci.tasks.families.strategic_planning.target import PlanningTarget
from foresci.tasks.models import Candidate, ForecastQuestion, Task

CUTOFF = date(2025, 6, 30)


def _task(family: str) -> Task:
    return Task(task_id="t", family=family, domain="d", cutoff=CUTOFF, horizon="3m", window_start=CUTOFF,
                window_end=CUTOFF, title="t", question="which",
                candidates=[Candidate(option_id=option, name=f"topic {option}") for option in "ABCDE"])


def test_skilled_answers_read_the_target_and_guesses_are_uniform() -> None:
    task = _task("direction_forecasting")
    target = DirectionTarget(task_id="t", primary_direction="D", ranking=["D", "B"], trajectory="cooling")
    skilled = task_payload(task, target, True, np.random.default_rng(0))
    assert (skilled["direction"], skilled["trajectory"]) == ("D", "cooling")
    picks = [task_payload(task, target, False, np.random.default_rng(seed))["direction"]
             for seed in range(400)]
    assert set(picks) == set("ABCDE") and 50 < picks.count("D") < 115  # about 80 of 400
    plan = task_payload(_task("strategic_planning"), PlanningTarget(task_id="t", ranking=["C", "A"]), True,
                        np.random.default_rng(1))
    assert [entry["option_id"] for entry in plan["ranking"]][:2] == ["C", "A"]


def test_report_names_flat_and_non_monotone_metrics(capsys) -> None:  # type: ignore[no-untyped-def]
    ladder = Ladder()
    for task in range(60):
        for level in LEVELS:
            ladder.add("x:rises", level, f"t{task}", float(task % 10 < 10 * level + 1))
            ladder.add("x:flat", level, f"t{task}", float(task % 2))
            ladder.add("x:crps", level, f"t{task}", 1.0 - level)  # lower is better: rising skill
            ladder.add("x:dips", level, f"t{task}", {0.0: 0.2, 0.1: 0.9, 0.2: 0.5, 0.4: 0.95}[level])
    findings = report(ladder, samples=200)
    assert findings == ["x:dips: non-monotone", "x:flat: flat"]
    assert "x:rises" in capsys.readouterr().out


def _plan_score(task: Task, target: PlanningTarget, payload: dict) -> float | None:  # type: ignore[type-arg]
    get_family(task.family).answer_schema.model_validate(payload)  # a valid planning answer
    answer = Answer(task_id=task.task_id, family=task.family, method="ladder", payload=payload)
    result = get_metric("plan_outcome").compute(
        ScoringContext(answer=answer, settings=EvaluationSettings(), task=task, hidden=target))
    return None if result is None else result.value


def test_the_skilled_plan_is_the_targets_own_and_scores_on_plan_outcome() -> None:
    """The skilled plan carries the target's milestones and go/no-go (main's ladder wrote none: its plans
    scored 0 at every p on the real release), and a guessed plan is written for its own top option."""
    task = Task(task_id="t", family="strategic_planning", domain="d", cutoff=CUTOFF, horizon="3m",
                window_start=date(2025, 7, 1), window_end=date(2025, 9, 30), title="t", question="which",
                candidates=[Candidate(option_id="A", name="GUI agents"),
                            Candidate(option_id="B", name="tool routing")])
    stats = {"options": {"A": {"window": 12, "newcomer_share": 0.6, "baseline_newcomer_share": 0.4},
                         "B": {"window": 3, "newcomer_share": 0.2, "baseline_newcomer_share": 0.5}},
             "window_titles": {"A": ["GUI-Bench: a benchmark for mobile GUI agents"],
                               "B": ["Tool routing revisited"]},
             "milestones": ["a first result in GUI agents within 1 month(s)"],
             "go_no_go": "continue if newcomers keep publishing in GUI agents; stop otherwise"}
    target = PlanningTarget(task_id="t", ranking=["A", "B"], stats=stats)
    skilled = task_payload(task, target, True, np.random.default_rng(0))
    assert (skilled["milestones"], skilled["go_no_go"]) == (stats["milestones"], stats["go_no_go"])
    assert _plan_score(task, target, skilled) == 1.0
    guesses = [task_payload(task, target, False, np.random.default_rng(seed)) for seed in range(20)]
    for guess in guesses:
        name = "GUI agents" if guess["ranking"][0]["option_id"] == "A" else "tool routing"
        assert name in guess["milestones"][0] and name in guess["go_no_go"]
        assert _plan_score(task, target, guess) is not None
    assert {guess["ranking"][0]["option_id"] for guess in guesses} == {"A", "B"}


def _question(kind: str, baseline: float | None) -> ForecastQuestion:
    return ForecastQuestion(question_id="q", kind=kind, domain="d", cutoff=CUTOFF, window_start=CUTOFF,
                            window_end=CUTOFF, text="q", resolution_rule="r", baseline=baseline)


def test_forecast_answers_state_the_outcome_when_skilled_and_the_naive_answer_otherwise() -> None:
    rng = np.random.default_rng(0)
    binary = _question("binary", 0.3)
    assert forecast_payload(binary, 1.0, True, [], rng) == {"probability": 0.98}
    assert forecast_payload(binary, 0.0, True, [], rng) == {"probability": 0.02}
    assert forecast_payload(binary, 1.0, False, [], rng) == {"probability": 0.5}
    numeric = _question("numeric", 40.0)
    skilled = forecast_payload(numeric, 25.0, True, [7.0], rng)
    assert skilled["p10"] < skilled["p50"] == 25.0 < skilled["p90"]
    assert forecast_payload(numeric, 25.0, False, [7.0], rng)["p50"] == 40.0
    assert forecast_payload(_question("numeric", None), 25.0, False, [7.0, 9.0], rng)["p50"] in (7.0, 9.0)


def test_clusters_needed_follows_the_paired_differences() -> None:
    low = {"a": [0.0], "b": [0.0], "c": [0.0]}
    assert clusters_needed({"a": [0.1], "b": [0.3], "c": [0.2]}, low) == pytest.approx(1.96)  # (2.8·0.1/0.2)²
    assert clusters_needed({"a": [0.15], "b": [0.25], "c": [0.2]}, low) == pytest.approx(0.49)  # smaller SD
    assert clusters_needed({"a": [0.1], "b": [-0.1], "c": [0.0]}, low) is None  # no mean step
    # expected from a higher level: differences (1, 1, 0) at p = 0.4 make a 0.1 step of mean 1/6 and
    # variance 1/6 - 1/36 = 5/36
    expected = clusters_needed({"a": [1.0], "b": [1.0], "c": [0.0]}, low, share=0.25)
    assert expected == pytest.approx(2.8 ** 2 * (5 / 36) / (1 / 6) ** 2)


def test_by_release_merges_each_release_s_tasks_into_one_cluster() -> None:
    ladder = Ladder()
    for cluster, value in (("r0|a", 1.0), ("r0|b", 0.0), ("r1|a", 0.5)):
        ladder.add("x:m", 0.0, cluster, value)
    merged = ladder.by_release()
    assert merged.values["x:m"][0.0] == {"r0": [1.0, 0.0], "r1": [0.5]}
    assert not merged.tasks_as_clusters and ladder.tasks_as_clusters


def test_saved_values_load_back(tmp_path) -> None:  # type: ignore[no-untyped-def]
    ladder = Ladder()
    ladder.add("x:m", 0.1, "w1|a", 0.25)
    ladder.save(tmp_path / "run.json")
    pooled = Ladder()
    pooled.add("x:m", 0.1, "w2|a", 1.0)
    pooled.load(tmp_path / "run.json")
    assert pooled.values["x:m"][0.1] == {"w2|a": [1.0], "w1|a": [0.25]}
