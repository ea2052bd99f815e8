"""The run folder's ``answers.jsonl``: append-only rows, resumable after a crash (even ``kill -9``).

A row's key is (task_id, method, model, mode). On resume a torn last line (a write cut short) is cut
off the file, and the keys already present are skipped, so no row is duplicated.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from pydantic import BaseModel

from foresci.agents.models import Answer, ForecastAnswer
from foresci.io import dumps_line, read_models

AnswerKey = tuple[str, str, str | None, str]


def answer_key(answer: Answer) -> AnswerKey:
    """The identity of a row: (task_id, method, model, mode)."""
    return (answer.task_id, answer.method, answer.model, answer.mode)


def repair_torn_tail(path: Path) -> int:
    """Cut an incomplete last line (no trailing newline, or not valid JSON) off ``path``; return bytes cut."""
    if not path.is_file():
        return 0
    data = path.read_bytes()
    if not data:
        return 0
    end = len(data)
    if not data.endswith(b"\n"):
        end = data.rfind(b"\n") + 1
    else:
        last_start = data.rfind(b"\n", 0, len(data) - 1) + 1
        try:
            json.loads(data[last_start:].decode("utf-8", "replace"))  # bad bytes: the reader names them
        except json.JSONDecodeError:
            end = last_start
    if end == len(data):
        return 0
    with path.open("r+b") as handle:
        handle.truncate(end)
    return len(data) - end


def read_answers(path: Path) -> list[Answer]:
    """All rows of an answers file (after repairing a torn tail); errors name file and line."""
    repair_torn_tail(path)
    if not path.is_file():
        return []
    return read_models(path, Answer)


class AppendLog:
    """Thread-safe appender: one complete JSON line per row, flushed and fsynced."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        repair_torn_tail(path)
        self.path = path
        self._lock = threading.Lock()

    def append(self, row: BaseModel) -> None:
        """Append ``row`` durably."""
        line = dumps_line(row).encode("utf-8")
        with self._lock, self.path.open("ab") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())


def read_forecasts(path: Path) -> list[ForecastAnswer]:
    """Forecast answers of a run (``forecasts.jsonl``) after repairing a torn tail."""
    repair_torn_tail(path)
    if not path.is_file():
        return []
    return read_models(path, ForecastAnswer)
