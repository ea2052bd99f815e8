"""Answers made elsewhere (`rounds submit --answers / --task-answers`): each row must parse, name an item of
the round and answer it once; an error is one line naming the file, line and field."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from foresci.core.errors import UserError
from foresci.rounds.submit import read_answers_file, read_task_answers_file
from foresci.tasks.models import ForecastQuestion, Task


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _questions() -> list[ForecastQuestion]:
    return [ForecastQuestion.model_construct(question_id=name) for name in ("q1", "q2")]


def _tasks() -> list[Task]:
    return [Task.model_construct(task_id=name, cutoff=date(2025, 6, 30)) for name in ("t1", "t2")]


def test_forecast_answers_are_checked_line_by_line(tmp_path: Path) -> None:
    good = [{"question_id": "q1", "method": "mine"}, {"question_id": "q2", "method": "mine"}]
    method, rows = read_answers_file(_write(tmp_path / "a.jsonl", good), _questions(), None)
    assert method == "mine" and [row.question_id for row in rows] == ["q1", "q2"]
    named = _write(tmp_path / "b.jsonl", [{"question_id": "q1"}])
    assert read_answers_file(named, _questions(), "x")[0] == "x"
    cases = {
        "unknown": ([good[0], {**good[0], "question_id": "q9"}], ".jsonl:2:", "q9' is not in the round"),
        "twice": ([good[0], good[0]], ".jsonl:2:", "forecast q1 answered twice"),
        "bad": ([{"method": "mine"}], ".jsonl:1", "not a forecast answer"),
        "nameless": ([{"question_id": "q1"}], "method:", "give --name"),
    }
    for label, (rows_in, where, message) in cases.items():
        with pytest.raises(UserError) as caught:
            read_answers_file(_write(tmp_path / f"{label}.jsonl", rows_in), _questions(), None)
        text = str(caught.value)
        assert message in text and where in text and f"{label}.jsonl" in text, (label, text)


def test_task_answers_are_checked_line_by_line(tmp_path: Path) -> None:
    row = {"task_id": "t1", "family": "direction_forecasting", "method": "mine"}
    rows = read_task_answers_file(_write(tmp_path / "a.jsonl", [row, {**row, "task_id": "t2"}]), _tasks())
    assert [item.task_id for item in rows] == ["t1", "t2"]
    cases = {
        "unknown": ([row, {**row, "task_id": "t9"}], ".jsonl:2:", "task_id 't9' is not in the round"),
        "twice": ([row, row], ".jsonl:2:", "task t1 answered twice"),
        "bad": ([{"task_id": "t1"}], ".jsonl:1", "not a task answer"),
    }
    for label, (rows_in, where, message) in cases.items():
        with pytest.raises(UserError) as caught:
            read_task_answers_file(_write(tmp_path / f"{label}.jsonl", rows_in), _tasks())
        text = str(caught.value)
        assert message in text and where in text and f"{label}.jsonl" in text, (label, text)
