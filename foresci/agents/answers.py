"""The run folder's ``answers.jsonl``: append-only rows, resumable after a crash (even ``kill -9``).

A row's key is (task_id, method, model, mode). On resume a torn last line (a write cut short) is cut
off the file, and the keys already present are skipped, so no row is duplicated.
"""

from __future__ import annotations

from pathlib import Path

from foresci.contracts import Answer, ForecastAnswer
from foresci.core.io import AppendLog as AppendLog
from foresci.core.io import read_models, repair_torn_tail

AnswerKey = tuple[str, str, str | None, str]


def answer_key(answer: Answer) -> AnswerKey:
    """The identity of a row: (task_id, method, model, mode)."""
    return (answer.task_id, answer.method, answer.model, answer.mode)


def read_answers(path: Path) -> list[Answer]:
    """All rows of an answers file (after repairing a torn tail); errors name file and line."""
    repair_torn_tail(path)
    if not path.is_file():
        return []
    return read_models(path, Answer)


def read_forecasts(path: Path) -> list[ForecastAnswer]:
    """Forecast answers of a run (``forecasts.jsonl``) after repairing a torn tail."""
    repair_torn_tail(path)
    if not path.is_file():
        return []
    return read_models(path, ForecastAnswer)
