"""Release validation: schema, unique ids, public/hidden agreement, option ids, leakage lint."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from foresci.tasks.hidden_io import load_hidden
from foresci.tasks.lint import lint_task
from foresci.tasks.release import load_release


def validate_release(path: Path | str) -> list[str]:
    """Return every problem found in a release folder (empty: valid). Schema errors raise ValueError."""
    release = load_release(path)
    hidden = load_hidden(path)
    problems: list[str] = []
    duplicates = [task_id for task_id,
                  count in Counter(task.task_id for task in release.tasks).items() if count > 1]
    problems += [f"duplicate task_id {task_id!r} in tasks.jsonl" for task_id in duplicates]
    public_ids = {task.task_id for task in release.tasks}
    problems += [f"hidden target {task_id!r} has no public task"
                 for task_id in sorted(set(hidden) - public_ids)]
    for task in release.tasks:
        target = hidden.get(task.task_id)
        if target is None:
            problems.append(f"task {task.task_id}: no hidden target")
            continue
        if target.family != task.family:
            problems.append(f"task {task.task_id}: family {task.family} but hidden target says "
                            f"{target.family}")
        if not target.slots:
            problems.append(f"task {task.task_id}: hidden target has no FTA slot")
        options = {candidate.option_id for candidate in task.candidates}
        if options:
            named = [*target.ranking, *target.acceptable_directions]
            if target.primary_direction:
                named.append(target.primary_direction)
            unknown = sorted({option for option in named if option not in options})
            if unknown:
                problems.append(f"task {task.task_id}: hidden target names unknown options {unknown}")
        problems += lint_task(task, target)
    return problems
