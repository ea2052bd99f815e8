"""Public release IO: what agents may load. This module never imports ``foresci.tasks.hidden``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from foresci.errors import UserError
from foresci.io import read_json, read_models, write_jsonl
from foresci.tasks.models import ForecastQuestion, Task

TASKS_FILE = "tasks.jsonl"
HIDDEN_FILE = "hidden.jsonl"
FORECAST_FILE = "forecast.jsonl"
FORECAST_HIDDEN_FILE = "forecast_hidden.jsonl"


@dataclass
class Release:
    """A release folder's public side: tasks, optional forecast questions and the manifest."""

    path: Path
    tasks: list[Task]
    questions: list[ForecastQuestion] = field(default_factory=list)
    manifest: dict[str, Any] = field(default_factory=dict)

    def task(self, task_id: str) -> Task:
        """Return one task by id; a UserError naming the id and the release if absent."""
        for task in self.tasks:
            if task.task_id == task_id:
                return task
        raise UserError(f"task {task_id!r} not in this release", path=self.path, field="task_id")


def load_release(path: Path | str) -> Release:
    """Load the public side of a release folder (``tasks.jsonl``, ``forecast.jsonl``, ``manifest.json``)."""
    folder = Path(path)
    tasks_path = folder / TASKS_FILE
    if not tasks_path.is_file():
        raise FileNotFoundError(f"{tasks_path}: no tasks file; is {folder} a foresci release?")
    tasks = read_models(tasks_path, Task, unique="task_id")
    forecast_path = folder / FORECAST_FILE
    questions = read_models(forecast_path, ForecastQuestion) if forecast_path.is_file() else []
    manifest = read_json(folder / "manifest.json") if (folder / "manifest.json").is_file() else {}
    return Release(path=folder, tasks=tasks, questions=questions, manifest=manifest)


def write_public(folder: Path | str, tasks: list[Task],
                 questions: list[ForecastQuestion] | None = None) -> list[str]:
    """Write ``tasks.jsonl`` (and ``forecast.jsonl`` when questions are given); return the file names."""
    folder = Path(folder)
    write_jsonl(folder / TASKS_FILE, tasks)
    files = [TASKS_FILE]
    if questions:
        write_jsonl(folder / FORECAST_FILE, questions)
        files.append(FORECAST_FILE)
    return files
