"""A toy task family that lives outside foresci (the extension test copies this folder onto PYTHONPATH and
names it in FORESCI_EXTENSIONS): which of three directions gets the most papers in the window?

The whole family is this folder: the family object here (public side), ``target.py`` (its hidden target)
and ``builder.py`` (its tasks from a window's evidence). Nothing in foresci is edited.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from foresci.tasks.families import ContractCheck, TaskFamily, TopChoice, register_family
from foresci.tasks.families.parts import (
    RankedOption,
    check_ranking,
    ranking_lines,
    ranking_schema,
    ranking_top_choice,
)
from foresci.tasks.models import Task

NAME = "busiest_direction"
TITLE = "Which {domain} direction gets the most papers in the window?"
QUESTION = ("Rank the candidate directions listed below by how many new papers each gets in the window "
            "after the cutoff, busiest first.")


class BusiestAnswer(BaseModel):
    """The options ranked by papers in the window, busiest first."""

    model_config = ConfigDict(extra="forbid")

    ranking: list[RankedOption]
    rationale: str = ""


@register_family
class BusiestDirection(TaskFamily):
    """Rank three directions by their papers in the window."""

    name = NAME
    abbreviation = "bd"
    answer_schema = BusiestAnswer
    deliverables = ("Rank all options (by option id), busiest first.",)
    metrics = ("fta", "fact_offline", "trace_offline", "top_choice", "pers")
    hidden_target = "busiest_direction.target:BusiestTarget"
    builder = "busiest_direction.builder:build_busiest_tasks"
    ranked = True
    contract = "Rank every candidate option (by option_id), the one with the most papers in the window first."
    rubric = "Is the ranking grounded in measured pre-cutoff volume and momentum?"
    evidence_focus = "Monthly paper counts of each option before the cutoff."

    def template_text(self) -> str:
        return f"{TITLE} {QUESTION}"

    def constrained_schema(self, options: Sequence[str]) -> type[BaseModel]:
        return ranking_schema(BusiestAnswer, tuple(options))

    def check_contract(self, task: Task, answer: BaseModel) -> ContractCheck:
        return check_ranking(task, answer) if task.candidates else ContractCheck(answer)

    def render(self, task: Task, answer: BaseModel) -> str:
        assert isinstance(answer, BusiestAnswer)
        return "\n".join(ranking_lines(task, "Busiest first", answer.ranking) + [answer.rationale])

    def top_choice(self, answer: Any, task: Task, hidden: Any) -> TopChoice | None:
        return ranking_top_choice(answer, task, hidden.ranking)

    def baseline_answer(self, forecaster: Any, task: Task) -> tuple[BaseModel, Any]:
        """The forecasters' planning ranking (by measured momentum) is their guess at the busiest."""
        plan, support = forecaster.planning(task)
        answer = BusiestAnswer(ranking=plan.ranking, rationale=f"{forecaster.kind}: ranked by momentum")
        return answer, support
