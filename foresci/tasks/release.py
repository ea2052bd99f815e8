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


def load_release(path: Path | str, verify: bool = True) -> Release:
    """Load the public side of a release folder (``tasks.jsonl``, ``forecast.jsonl``, ``manifest.json``).

    A prospective forecast package (``forecast.jsonl`` and no ``tasks.jsonl``) loads as a release with no
    tasks. The files of a release or package with a manifest are checked against the hashes it froze (a
    UserError naming the file) unless ``verify`` is False (``tasks validate`` lists mismatches itself).
    """
    folder = Path(path)
    tasks_path, forecast_path = folder / TASKS_FILE, folder / FORECAST_FILE
    if not tasks_path.is_file() and not forecast_path.is_file():
        raise FileNotFoundError(f"{tasks_path}: no tasks file (nor {FORECAST_FILE}); is {folder} a foresci "
                                "release or forecast package?")
    if verify:
        manifest = verify_release(folder)
    else:
        manifest = read_json(folder / "manifest.json") if (folder / "manifest.json").is_file() else {}
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
    check_manifest_hashes(folder, manifest)


def check_manifest_hashes(folder: Path, manifest: dict[str, Any]) -> None:
    """Refuse a release or package whose files differ from its manifest: every file in ``hashes`` must
    exist with that sha256, and ``counts.content_hash`` (packages) must match the files as they are now,
    so a manifest whose ``hashes`` were rewritten along with a file is caught too."""
    kind = "package" if manifest.get("kind") == "package" else "release"
    hashes = manifest.get("hashes")
    if not isinstance(hashes, dict):
        return
    actual: dict[str, str] = {}
    for name, digest in hashes.items():
        file = folder / str(name)
        if not file.is_file():
            raise UserError(f"file listed in the {kind} manifest is missing", path=file)
        actual[str(name)] = sha256_file(file)
        if actual[str(name)] != digest:
            frozen = "frozen" if kind == "package" else "built"
            raise UserError(f"content changed since the {kind} was {frozen} (hash mismatch with its "
                            "manifest.json)", path=file)
    content_hash = (manifest.get("counts") or {}).get("content_hash")
    if kind == "package" and content_hash is not None:
        from foresci.core.artifacts import sha256_json

        snapshots = {name: digest for name, digest in actual.items() if name != FORECAST_FILE}
        if sha256_json({"questions": actual.get(FORECAST_FILE), "snapshots": snapshots}) != content_hash:
            raise UserError("the package's files do not match its counts.content_hash (the manifest was "
                            "edited after freezing)", path=folder / "manifest.json",
                            field="counts.content_hash")


def verify_release(folder: Path | str) -> dict[str, Any]:
    """The manifest of a release or package folder, its files checked against it ({} without one)."""
    folder = Path(folder)
    if not (folder / "manifest.json").is_file():
        return {}
    manifest = read_json(folder / "manifest.json")
    if manifest.get("kind") == "package":
        check_frozen_files(folder, manifest)
    else:
        check_manifest_hashes(folder, manifest)
    return manifest


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
