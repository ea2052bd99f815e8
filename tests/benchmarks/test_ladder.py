"""The known-skill ladder (benchmarks/ladder.py): the planted answerer answers from the hidden target when
skilled and guesses uniformly otherwise, and the report names a flat or non-monotone metric."""

from __future__ import annotations

from datetime import date

import numpy as np

from benchmarks.ladder import LEVELS, Ladder, report, task_payload
from foresci.tasks.families.direction_forecasting.target import DirectionTarget
from foresci.tasks.families.strategic_planning.target import PlanningTarget
from foresci.tasks.models import Candidate, Task

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
