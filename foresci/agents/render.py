"""The common final renderer: a family answer (structured) -> checked against the task contract -> text.

Every method, LLM or not, goes through :func:`check_contract` and :func:`render_text`, so answers
differ in their decisions and evidence, not in their formatting. Both are the task family's
(:class:`foresci.tasks.families.TaskFamily`). A contract breach is recorded on the answer row, never
repaired into a different answer.
"""

from __future__ import annotations

from pydantic import BaseModel

from foresci.tasks.families import ContractCheck, get_family
from foresci.tasks.models import Task

__all__ = ["ContractCheck", "check_contract", "render_text"]


def check_contract(task: Task, answer: BaseModel) -> ContractCheck:
    """Read ``answer`` against the task contract of its family: labels -> option ids, and what still
    breaks it (direction: one known option; planning/venue: every option ranked once, nothing else;
    bottleneck: bottleneck, opportunity and mechanism all stated)."""
    return get_family(task.family).check_contract(task, answer)


def render_text(task: Task, answer: BaseModel) -> str:
    """The final answer text of one family answer (what judges read)."""
    return get_family(task.family).render(task, answer)
