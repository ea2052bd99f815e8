"""What a frozen round publishes, read back from its folder: its forecast questions (package hashes
checked) and its frozen family tasks. Read by submitting, ticking, the site and the inspect round."""

from __future__ import annotations

from pathlib import Path

from foresci.rounds.ledger import PUBLIC_DIR, RoundManifest
from foresci.tasks.forecast import load_package
from foresci.tasks.models import ForecastQuestion, Task


def round_questions(folder: Path, manifest: RoundManifest) -> list[ForecastQuestion]:
    """Every public question of a round, window by window (package hashes checked)."""
    questions: list[ForecastQuestion] = []
    for window in manifest.windows:
        questions.extend(load_package(folder / PUBLIC_DIR / window)[0])
    return questions


def round_tasks(folder: Path) -> list[Task]:
    """The round's frozen family tasks (none for a round that froze none)."""
    from foresci.rounds.family_tasks import load_frozen

    return [item.task for item in load_frozen(folder / PUBLIC_DIR)[0]]
