"""Probability-per-option task answers (foresci.rounds.option_scores): the stated distributions of rankings
and single choices, the multi-class Brier score (proper; ties in the outcome split), and a round that scores
every frozen task, a probability answer included."""

from __future__ import annotations

import itertools
import json
from datetime import date
from pathlib import Path

import pytest

from foresci.contracts import Answer
from foresci.core.io import iter_jsonl, write_jsonl
from foresci.rounds.ledger import round_dir
from foresci.rounds.option_scores import (
    answer_distribution,
    multiclass_brier,
    ranking_distribution,
    split_outcome,
    top_mass,
)
from foresci.rounds.submit import round_tasks, submit
from foresci.tasks.models import Candidate, Task
from tests.rounds.helpers import make_ledger, task_answers_file, toy_tick
from tests.tasks.toy import CUTOFF, ToyKB

ROUND = f"r-{CUTOFF.isoformat()}"


def _task(family: str, n: int = 4) -> Task:
    return Task(task_id="t", family=family, domain="toy", cutoff=CUTOFF, horizon="3m",
                window_start=date(2026, 1, 1), window_end=date(2026, 3, 31), title="t", question="q",
                candidates=[Candidate(option_id=letter, name=f"option {letter.lower()}")
                            for letter in "ABCDE"[:n]])


def _answer(family: str, payload: dict, text: str = "") -> Answer:
    return Answer(task_id="t", family=family, method="m", payload=payload, text=text)


SURE_PLUGIN = """
from foresci.methods import method

def _answer(task, probabilities):
    first = task.candidates[0]
    ranking = [{"option_id": option.option_id, "reason": "listed"} for option in task.candidates]
    base = {
        "direction_forecasting": {"direction": first.option_id, "trajectory": "steady", "rationale": "r"},
        "bottleneck_opportunity": {"bottleneck": first.name, "opportunity": "o", "mechanism": "m"},
    }.get(task.family, {"ranking": ranking})
    return {**base, "probabilities": probabilities}

@method("sure_plugin")
def sure_plugin(inputs):
    return _answer(inputs.task, {inputs.task.candidates[-1].option_id: 1.0})
"""


def test_answer_schemas_check_the_stated_probabilities() -> None:
    from pydantic import ValidationError

    from foresci.tasks.families import get_family

    schema = get_family("strategic_planning").answer_schema
    ranking = [{"option_id": "A", "reason": "r"}]
    assert "probabilities" not in schema.model_validate({"ranking": ranking}).model_dump()  # bytes as before
    kept = schema.model_validate({"ranking": ranking, "probabilities": {"A": 0.7, "B": 0.3}})
    assert kept.model_dump()["probabilities"] == {"A": 0.7, "B": 0.3}
    for wrong, message in (({"A": 0.7, "B": 0.2}, "sum to 1"), ({"A": 1.2, "B": -0.2}, "in [0, 1]")):
        with pytest.raises(ValidationError, match=message.replace("[", r"\[").replace("]", r"\]")):
            schema.model_validate({"ranking": ranking, "probabilities": wrong})
    from foresci.methods.calling import MethodOutputError, read_answer

    task = _task("strategic_planning")
    with pytest.raises(MethodOutputError, match="'Z' not among the task's option ids A, B, C, D"):
        read_answer("m", task, {"ranking": ranking, "probabilities": {"A": 0.5, "Z": 0.5}})
    assert read_answer("m", task, kept).probabilities == {"A": 0.7, "B": 0.3}


def test_rankings_and_choices_map_to_the_stated_distributions() -> None:
    planning = _task("strategic_planning")
    probabilities, how = answer_distribution(planning, _answer("strategic_planning", {"ranking": [
        {"option_id": "C"}, {"option_id": "A"}, {"option_id": "D"}, {"option_id": "B"}]}))
    assert how == "ranking"
    assert probabilities == pytest.approx({"C": 0.4, "A": 0.3, "D": 0.2, "B": 0.1})
    partial = ranking_distribution(["B"], ["A", "B", "C", "D"])  # the rest tied: (3 + 2 + 1) / 3 each
    assert partial == pytest.approx({"B": 0.4, "A": 0.2, "C": 0.2, "D": 0.2})
    direction = _task("direction_forecasting")
    chosen, how = answer_distribution(direction, _answer("direction_forecasting", {"direction": "D"}))
    assert how == "choice" and chosen == pytest.approx({"D": 0.4, "A": 0.2, "B": 0.2, "C": 0.2})
    bottleneck = _task("bottleneck_opportunity", 3)
    stated = _answer("bottleneck_opportunity", {"bottleneck": "option b"})
    named, how = answer_distribution(bottleneck, stated)
    assert how == "choice" and named == pytest.approx({"B": 0.5, "A": 0.25, "C": 0.25})
    unread, how = answer_distribution(direction, _answer("direction_forecasting", {"direction": "Z"}))
    assert how == "uniform" and set(unread.values()) == {0.25}


def test_stated_probabilities_are_read_and_normalised() -> None:
    task = _task("venue_positioning")
    answer = _answer("venue_positioning", {"probabilities": {"A": 2, "B": 1, "option c": 1, "D": -3, "Q": 5},
                                           "ranking": [{"option_id": "D"}]})
    probabilities, how = answer_distribution(task, answer)
    assert how == "probabilities"  # the probabilities win over the ranking beside them
    assert probabilities == pytest.approx({"A": 0.5, "B": 0.25, "C": 0.25, "D": 0.0})
    zero, _ = answer_distribution(task, _answer("venue_positioning", {"probabilities": {"A": 0}}))
    assert zero == pytest.approx({option: 0.25 for option in "ABCD"})


def test_multiclass_brier_is_proper_and_ties_split() -> None:
    assert multiclass_brier({"A": 1.0, "B": 0.0}, {"A": 1.0}) == 0.0
    assert multiclass_brier({"A": 0.0, "B": 1.0}, {"A": 1.0}) == 2.0
    tied = split_outcome({"A": 3.0, "B": 3.0, "C": 1.0})
    assert tied == {"A": 0.5, "B": 0.5}
    assert top_mass({"A": 0.6, "B": 0.4}, tied) == 0.5 and top_mass({"C": 1.0}, tied) == 0.0
    assert top_mass({"A": 0.5, "C": 0.5}, tied) == 0.25  # two top options share their credit
    # proper: against outcomes drawn from q, stating q scores best among a grid of distributions
    q = {"A": 0.5, "B": 0.3, "C": 0.2}

    def expected(p: dict[str, float]) -> float:
        return sum(share * multiclass_brier(p, {option: 1.0}) for option, share in q.items())

    grid = [dict(zip("ABC", (a / 10, b / 10, (10 - a - b) / 10), strict=True))
            for a, b in itertools.product(range(11), repeat=2) if a + b <= 10]
    assert min(grid, key=expected) == pytest.approx(q)


def test_a_round_scores_every_task_and_probability_answers(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path)
    toy_tick(ledger, CUTOFF)
    folder = round_dir(ledger, ROUND)
    tasks = round_tasks(folder)
    sure = []
    for task in tasks:  # all mass on the last option, stated as probabilities
        last = task.candidates[-1].option_id
        sure.append({"task_id": task.task_id, "family": task.family, "method": "sure",
                     "payload": {"probabilities": {last: 1.0}}})
    write_jsonl(tmp_path / "sure.jsonl", sure)
    submit(ledger, ROUND, ToyKB(until=CUTOFF), task_answers=tmp_path / "sure.jsonl")
    plugin = tmp_path / "sure_plugin.py"  # the same probabilities from a plug-in, in its family's schema
    plugin.write_text(SURE_PLUGIN)
    submit(ledger, ROUND, ToyKB(until=CUTOFF), method=f"{plugin}:sure_plugin", trust_plugin=True)
    submit(ledger, ROUND, ToyKB(until=CUTOFF),
           task_answers=task_answers_file(tmp_path / "first.jsonl", tasks, "first"))
    toy_tick(ledger, None)
    resolutions = {row["task_id"]: row for path in (folder / "resolutions").glob("tasks-*.jsonl")
                   for row in iter_jsonl(path)}
    assert set(resolutions) == {task.task_id for task in tasks}
    assert all(row["status"] == "resolved" for row in resolutions.values())
    scores = [row for row in iter_jsonl(folder / "task_scores.jsonl") if row["metric"] == "mbrier"]
    by_task = {task.task_id: task for task in tasks}
    for row in (row for row in scores if row["method"] == "sure"):
        task, outcome = by_task[row["task_id"]], resolutions[row["task_id"]]["outcome"]
        last = task.candidates[-1].option_id
        expected = sum((float(option == last) - outcome.get(option, 0.0)) ** 2
                       for option in {c.option_id for c in task.candidates})
        assert row["score"] == pytest.approx(expected)
    assert {row["task_id"] for row in scores if row["method"] == "sure"} == set(resolutions)
    stated = {row["task_id"]: row["score"] for row in scores if row["method"] == "sure"}
    plugged = {row["task_id"]: row["score"] for row in scores if row["method"] == "sure_plugin"}
    assert plugged == stated  # read from the plug-in's answers, not from their rankings or choices
    firsts = [row for row in scores if row["method"] == "first"]
    assert len(firsts) == len(resolutions) and not any(row["imputed"] for row in firsts)
    families = {task.family for task in tasks}
    assert "bottleneck_opportunity" in families
    nones = [task for task in tasks if task.family == "bottleneck_opportunity"]
    assert all(task.candidates[-1].name == "none of these" for task in nones)
    board = json.loads((ledger / "board.json").read_text())
    assert board["rounds"][0]["tasks"]["void"] == 0


def test_void_only_when_the_window_data_never_arrived() -> None:
    from foresci.rounds.family_tasks import DATA_NEVER_ARRIVED, FAMILIES, freeze_tasks, resolve_tasks
    from tests.rounds.helpers import toy_settings

    settings = toy_settings().tasks
    snapshots = {"toy": ToyKB(until=CUTOFF).snapshot}
    frozen = freeze_tasks(ToyKB(until=CUTOFF), CUTOFF, snapshots, FAMILIES, ["3m"], 2, settings, "1:r")[0]
    empty = ToyKB(until=CUTOFF)
    empty.max_date = date(2026, 6, 30)  # the KB's clock passed the window, but no window paper came
    rows = resolve_tasks(frozen, "3m", empty, settings, snapshots)
    assert rows and all(row["status"] == "void" and row["reason"] == DATA_NEVER_ARRIVED for row in rows)
    arrived = resolve_tasks(frozen, "3m", ToyKB(), settings, snapshots)
    assert all(row["status"] == "resolved" for row in arrived)
