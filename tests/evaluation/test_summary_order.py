"""summary.json does not depend on the order rows were written in (concurrent workers write in any order)."""

from __future__ import annotations

import random

from foresci.evaluation.config import EvaluationSettings
from foresci.evaluation.models import MetricResult, Score
from foresci.evaluation.summary import build_summary


def _rows() -> list[Score]:
    rows = []
    generator = random.Random(3)
    for index in range(40):
        for method in ("trend", "persistence"):
            value = generator.random()
            rows.append(Score(
                task_id=f"t{index:02d}", family="strategic_planning", domain="d", method=method,
                key=f"t{index:02d}|{method}|-|full",
                metrics={"top_choice": MetricResult(name="top_choice", value=round(value)),
                         "fta": MetricResult(name="fta", value=value)},
            ))
    return rows


def test_summary_is_the_same_for_any_row_order() -> None:
    settings = EvaluationSettings(bootstrap_samples=200)
    rows = _rows()
    shuffled = list(rows)
    random.Random(5).shuffle(shuffled)
    first = build_summary(rows, settings, {})
    second = build_summary(shuffled, settings, {})
    assert first == second
    cells = [entry["metrics"]["fta"] for entry in first["leaderboard"]]
    assert all(cell["low"] < cell["mean"] < cell["high"] for cell in cells)
