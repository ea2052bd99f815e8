"""Public release IO: what agents may load. This module never imports ``foresci.tasks.hidden``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from foresci.core.artifacts import sha256_file
from foresci.core.errors import UserError
from foresci.core.io import read_json, read_models, write_jsonl
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
    """Load the public side of a release folder (``tasks.jsonl``, ``forecast.jsonl``, ``manifest.json``).

    A prospective forecast package (``forecast.jsonl`` and no ``tasks.jsonl``) loads as a release with no
    tasks; its files are checked against the hashes its manifest froze (a UserError naming the file).
    """
    folder = Path(path)
    tasks_path, forecast_path = folder / TASKS_FILE, folder / FORECAST_FILE
    if not tasks_path.is_file() and not forecast_path.is_file():
        raise FileNotFoundError(f"{tasks_path}: no tasks file (nor {FORECAST_FILE}); is {folder} a foresci "
                                "release or forecast package?")
    manifest = read_json(folder / "manifest.json") if (folder / "manifest.json").is_file() else {}
    if manifest.get("kind") == "package":
        check_frozen_files(folder, manifest)
    tasks = read_models(tasks_path, Task, unique="task_id") if tasks_path.is_file() else []
    questions = (read_models(forecast_path, ForecastQuestion, unique="question_id")
                 if forecast_path.is_file() else [])
    return Release(path=folder, tasks=tasks, questions=questions, manifest=manifest)


def check_frozen_files(folder: Path, manifest: dict[str, Any]) -> None:
    """Refuse a package whose files differ from the hashes frozen in its manifest (or are missing)."""
    hashes = manifest.get("hashes")
    if not isinstance(hashes, dict):
        raise UserError("the package manifest has no file hashes", path=folder / "manifest.json",
                        field="hashes")
    for name, digest in hashes.items():
        file = folder / str(name)
        if not file.is_file():
            raise UserError("file frozen in the package is missing", path=file)
        if sha256_file(file) != digest:
            raise UserError("content changed since the package was frozen (hash mismatch)", path=file)


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
