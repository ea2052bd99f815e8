"""What a family's round hooks return when a frozen task is resolved (:attr:`TaskFamily.round_tasks`): the
outcome over its options, the hidden target where the window is decisive, or an outcome-blind void; the
"none of these" option of families whose outcome can be empty (no option rose or emerged); and, for a
family's own round items (:attr:`TaskFamily.round_items`), a frozen task with its record and the row a
resolution keeps of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from foresci.tasks.models import Task


@dataclass
class Frozen:
    """One prospectively frozen task and what resolution needs about it (all pre-cutoff facts)."""

    task: Task
    record: dict[str, Any]


DATA_NEVER_ARRIVED = "no paper of the domain was announced in the window: its data never arrived"
"""The outcome-blind void: the KB holds no paper of the task's domain in the window."""

NONE_OF_THESE = "none of these"
"""The name of the extra option of families whose outcome can be empty (no option rose or emerged)."""


def split_outcome(scores: Mapping[str, float], tolerance: float = 1e-9) -> dict[str, float]:
    """The outcome distribution of options measured by ``scores`` (higher won): 1 on the best, split
    equally over options tied with it (within ``tolerance``)."""
    if not scores:
        return {}
    best = max(scores.values())
    winners = sorted(option for option, value in scores.items() if value >= best - tolerance)
    return {option: 1.0 / len(winners) for option in winners}


class Resolved:
    """One frozen task resolved: ``void`` (an outcome-blind reason, or None), the ``outcome`` distribution
    over option ids, the family's hidden target where the window is decisive (top-1 and FTA as a release
    scores them; None otherwise) and ``note``: why the task is not decisive (the builder's gate)."""

    __slots__ = ("hidden", "note", "outcome", "void")

    def __init__(self, void: str | None, outcome: Mapping[str, float], hidden: Any = None,
                 note: str | None = None) -> None:
        self.void, self.outcome, self.hidden, self.note = void, dict(outcome), hidden, note

    @classmethod
    def voided(cls, reason: str) -> Resolved:
        """A task that cannot be scored for an outcome-blind reason."""
        return cls(reason, {})


def with_none_option(task: Task, description: str) -> tuple[Task, str]:
    """The task with a last option "none of these" (``description`` says when it is the outcome) and that
    option's id."""
    from foresci.tasks.builders.common import OPTION_IDS
    from foresci.tasks.models import Candidate

    option = OPTION_IDS[len(task.candidates)]
    extra = Candidate(option_id=option, name=NONE_OF_THESE, description=description)
    return task.model_copy(update={"candidates": [*task.candidates, extra]}), option


def resolution_row(item: Frozen, family: str, horizon: str, resolved: Resolved) -> dict[str, Any]:
    """The row ``resolutions/tasks-<window>.jsonl`` keeps of one task: ``status`` (``void`` only for an
    outcome-blind ``reason``), ``outcome`` (option id -> share), ``decisive`` (a hidden target: top-1 and
    FTA as a release scores them), ``note`` (why not decisive) and the ``hidden`` target."""
    hidden = resolved.hidden
    return {"task_id": item.task.task_id, "family": family, "domain": item.task.domain, "horizon": horizon,
            "status": "void" if resolved.void is not None else "resolved", "reason": resolved.void,
            "outcome": resolved.outcome, "decisive": hidden is not None, "note": resolved.note,
            "hidden": None if hidden is None else hidden.model_dump(mode="json")}
