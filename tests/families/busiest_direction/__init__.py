"""A toy task family that lives outside foresci (the extension test copies this folder onto PYTHONPATH and
names it in FORESCI_EXTENSIONS): which of three directions gets the most papers in the window?

The whole family is this folder: the family object here (public side: answer, contract, rendering, its
forecast question, the signals agents read), ``target.py`` (its hidden target), ``builder.py`` (its tasks
from a window's evidence) and ``strategy.py`` (how the trend and persistence forecasters answer it, on the
agents side). Nothing in foresci is edited.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from foresci.tasks.evidence import DomainEvidence, NodeEvidence
from foresci.tasks.families import ContractCheck, TaskFamily, TopChoice, register_family
from foresci.tasks.families.parts import (
    RankedOption,
    check_ranking,
    ranking_lines,
    ranking_schema,
    ranking_top_choice,
)
from foresci.tasks.families.questions import QuestionAsk, QuestionDraft
from foresci.tasks.models import ForecastQuestion, Task

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
    forecast_kind = "binary"
    forecast_rules = (("keeps_volume", "binary"),)  # a release asks it; a round's supply too
    round_tasks = "busiest_direction.rounds"  # frozen at a round's open, resolved at its tick
    agent_signals = "candidate_trends"  # each option's measured share trend, beside the task
    baseline_strategy = "busiest_by_momentum"  # registered in strategy.py
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

    def forecast_question(self, rule: str, ask: QuestionAsk) -> QuestionDraft | None:
        """Will the node get at least as many papers in the window as in the period before the cutoff?"""
        if ask.item.baseline == 0:
            return None
        return QuestionDraft(
            text=(f"Will '{ask.node_name}' get at least {ask.item.baseline} new {ask.domain_name} papers "
                  f"announced {ask.span}?"),
            rule="1 if the node's window papers are at least its baseline count, else 0",
            baseline=0.5)

    def resolve_forecast(self, rule: str, question: ForecastQuestion, item: NodeEvidence,
                         evidence: DomainEvidence) -> tuple[float, dict[str, Any]]:
        return float(item.window >= int(question.params["baseline_count"])), {"kept": item.window}


from busiest_direction import strategy  # noqa: E402,F401  (registers the forecasters' strategy)
