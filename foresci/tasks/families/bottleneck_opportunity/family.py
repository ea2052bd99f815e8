"""bottleneck_opportunity, public side: answer schema, question wording, deliverables, contract check,
rendering and the baselines' answer (a free-text answer: no option ids, no top choice)."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from foresci.tasks.families.base import ContractCheck, TaskFamily, register_family
from foresci.tasks.option_probabilities import OptionProbabilities
from foresci.tasks.templates import COMMON_REQUIREMENTS, when

if TYPE_CHECKING:
    from foresci.tasks.models import Task

NAME = "bottleneck_opportunity"


class BottleneckAnswer(OptionProbabilities):
    """bottleneck_opportunity: one root bottleneck, the opportunity it unlocks, and the mechanism."""

    model_config = ConfigDict(extra="forbid")

    bottleneck: str
    opportunity: str
    mechanism: str
    evidence_summary: str = ""


def bottleneck_question(domain_name: str, subdirection: str, cutoff: date, start: date,
                        end: date) -> tuple[str, str]:
    """Title and question of a bottleneck-opportunity task."""
    title = f"Root bottleneck and next opportunity in {subdirection}"
    question = (f"{when(cutoff, start, end)} In the {domain_name} sub-direction '{subdirection}', identify "
                f"the "
                "one root technical bottleneck that pre-cutoff work keeps running into, and the one-hop "
                "research "
                "opportunity most likely to open during the window once that bottleneck is reduced. Explain "
                "the mechanism linking them.")
    return title, question


@register_family
class BottleneckOpportunity(TaskFamily):
    """Name a sub-direction's root bottleneck, the opportunity it unlocks, and the mechanism."""

    name = NAME
    abbreviation = "bo"
    answer_schema = BottleneckAnswer
    deliverables = (
        *COMMON_REQUIREMENTS,
        "Identify one root technical bottleneck of the sub-direction.",
        "Name the one-hop opportunity that opens if the bottleneck is reduced.",
        "Explain the mechanism that links the two.",
    )
    metrics = ("fact", "fta", "trace", "pers", "fact_offline", "fta_offline_claims", "trace_offline")
    hidden_target = "foresci.tasks.families.bottleneck_opportunity.target:BottleneckTarget"
    builder = "foresci.tasks.families.bottleneck_opportunity.builder:build_bottleneck_tasks"
    forecast_kind = "numeric"

    def template_text(self) -> str:
        probe = date(2000, 1, 1)
        return " ".join(bottleneck_question("", "", probe, probe, probe))

    def check_contract(self, task: Task, answer: BaseModel) -> ContractCheck:
        """Bottleneck, opportunity and mechanism all stated."""
        if not isinstance(answer, BottleneckAnswer):
            return ContractCheck(answer)
        fields = ("bottleneck", "opportunity", "mechanism")
        return ContractCheck(answer, [f"{name} is empty" for name in fields
                                      if not getattr(answer, name).strip()])

    def render(self, task: Task, answer: BaseModel) -> str:
        if not isinstance(answer, BottleneckAnswer):
            raise TypeError(f"no {self.name} renderer for {type(answer).__name__}")
        lines = [f"Root bottleneck: {answer.bottleneck}", f"Opportunity if reduced: {answer.opportunity}",
                 f"Mechanism: {answer.mechanism}"]
        if answer.evidence_summary:
            lines.append(f"Evidence: {answer.evidence_summary}")
        return "\n".join(lines)

    def baseline_answer(self, forecaster: Any, task: Task) -> tuple[BaseModel, Any]:
        """The limitation the forecaster reads as most recurrent (persistence) or rising (trend)."""
        answer, support = forecaster.bottleneck(task)
        return answer, support
