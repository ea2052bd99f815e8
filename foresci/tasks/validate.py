"""Release validation: schema, ids, content hashes, public/hidden agreement, option ids, leakage lint."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from foresci.core.artifacts import MANIFEST_NAME, sha256_file
from foresci.core.io import read_json
from foresci.tasks.hidden import HiddenTarget
from foresci.tasks.hidden_io import load_hidden, load_resolutions
from foresci.tasks.lint import lint_task
from foresci.tasks.models import ForecastQuestion, Task
from foresci.tasks.release import FORECAST_HIDDEN_FILE, load_release
from foresci.tasks.rf_import import FAMILY_MAP


def hash_problems(folder: Path) -> list[str]:
    """Files whose content no longer matches the sha256 the manifest recorded (or that are gone)."""
    path = folder / MANIFEST_NAME
    if not path.is_file():
        return [f"{path}: no manifest, content hashes cannot be checked"]
    problems: list[str] = []
    for name, recorded in sorted((read_json(path).get("hashes") or {}).items()):
        file = folder / name
        if not file.is_file():
            problems.append(f"{file}: listed in the manifest but missing")
        elif sha256_file(file) != recorded:
            problems.append(f"{file}: content hash differs from the manifest (edited after it was written)")
    return problems


def family_problems(task: Task, target: HiddenTarget) -> list[str]:
    """Public and hidden rows of a task must be of one family (also the source family of an import)."""
    problems: list[str] = []
    if target.family != task.family:
        problems.append(f"task {task.task_id}: family {task.family} but hidden target says {target.family}")
    source = target.stats.get("source_family")
    if (
        task.source == "researchforesight"
        and source is not None
        and FAMILY_MAP.get(str(source)) != task.family
    ):
        problems.append(
            f"task {task.task_id}: public row is {task.family} but its hidden row in the source "
            f"release is {source}"
        )
    return problems


def validate_release(path: Path | str) -> list[str]:
    """Return every problem found in a release folder (empty: valid). Schema errors raise ValueError."""
    folder = Path(path)
    release = load_release(folder, verify=False)
    hidden = load_hidden(folder)
    problems = hash_problems(folder)
    duplicates = [
        task_id for task_id, count in Counter(task.task_id for task in release.tasks).items() if count > 1
    ]
    problems += [f"duplicate task_id {task_id!r} in tasks.jsonl" for task_id in duplicates]
    public_ids = {task.task_id for task in release.tasks}
    problems += [
        f"hidden target {task_id!r} has no public task" for task_id in sorted(set(hidden) - public_ids)
    ]
    for task in release.tasks:
        target = hidden.get(task.task_id)
        if target is None:
            problems.append(f"task {task.task_id}: no hidden target")
            continue
        problems += family_problems(task, target)
        if not target.slots:
            problems.append(f"task {task.task_id}: hidden target has no FTA slot")
        options = {candidate.option_id for candidate in task.candidates}
        if options:
            named = target.named_options()
            unknown = sorted({option for option in named if option not in options})
            if unknown:
                problems.append(f"task {task.task_id}: hidden target names unknown options {unknown}")
        problems += lint_task(task, target)
    return problems + forecast_problems(folder, release.questions)


def forecast_problems(folder: Path, questions: list[ForecastQuestion]) -> list[str]:
    """Forecast questions and their resolutions (forecast_hidden.jsonl) must match one to one; a binary
    outcome is 0 or 1, a question's window opens after its cutoff."""
    hidden_path = folder / FORECAST_HIDDEN_FILE
    if not questions and not hidden_path.is_file():
        return []
    resolutions = ({row.question_id: row for row in load_resolutions(hidden_path)}
                   if hidden_path.is_file() else {})
    problems: list[str] = []
    for question in questions:
        if not question.cutoff < question.window_start <= question.window_end:
            problems.append(f"forecast question {question.question_id}: window {question.window_start}.."
                            f"{question.window_end} does not open after the cutoff {question.cutoff}")
        resolution = resolutions.get(question.question_id)
        if resolution is None:
            problems.append(f"forecast question {question.question_id}: no resolution in {hidden_path.name}")
        elif question.kind == "binary" and resolution.outcome not in (0.0, 1.0):
            problems.append(f"forecast question {question.question_id}: binary outcome {resolution.outcome}")
    known = {question.question_id for question in questions}
    problems += [f"resolution {question_id!r} has no forecast question"
                 for question_id in sorted(set(resolutions) - known)]
    return problems
