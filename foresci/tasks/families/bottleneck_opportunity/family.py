"""bottleneck_opportunity, public side: answer schema, question wording, deliverables, contract check,
rendering and the baselines' answer (a free-text answer: no option ids, no top choice)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from foresci.tasks.families.base import ContractCheck, TaskFamily, register_family
from foresci.tasks.families.bottleneck_opportunity import forecasts
from foresci.tasks.option_probabilities import OptionProbabilities
from foresci.tasks.templates import COMMON_REQUIREMENTS, when

if TYPE_CHECKING:
    from foresci.tasks.evidence import DomainEvidence, NodeEvidence
    from foresci.tasks.families.questions import QuestionAsk, QuestionDraft
    from foresci.tasks.hidden import HiddenTarget, Slot
    from foresci.tasks.models import ForecastQuestion, Task

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
    round_default = 3
    question_label = "papers addressing a limitation (bottleneck)"
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
    choice_key = "bottleneck"
    round_tasks = "foresci.tasks.families.bottleneck_opportunity.rounds"
    agent_signals = "limitations"
    baseline_strategy = "recurring_limitation"
    forecast_rules = forecasts.RULES

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

    def read_choice(self, task: Task, payload: dict[str, Any], text: str) -> str | None:
        """The option the stated bottleneck names (its letter, its text, or "none of these";
        :func:`.choice.chosen_option`)."""
        from foresci.tasks.families.bottleneck_opportunity.choice import chosen_option

        return chosen_option(task, str(payload.get("bottleneck", "")))

    def derived_slots(self, task: Task, hidden: HiddenTarget) -> list[Slot]:
        """The bottleneck's variants, the opportunity's variants, the mechanism."""
        from foresci.tasks.hidden import Slot

        slots: list[Slot] = []
        bottleneck: list[str] = getattr(hidden, "bottleneck", [])
        opportunity: list[str] = getattr(hidden, "opportunity", [])
        mechanism: str | None = getattr(hidden, "mechanism", None)
        if bottleneck:
            slots.append(Slot(name="bottleneck", variants=list(bottleneck)))
        if opportunity:
            slots.append(Slot(name="opportunity", variants=list(opportunity)))
        if mechanism:
            slots.append(Slot(name="mechanism", variants=[mechanism]))
        return slots

    def defect_figures(self, tasks: Sequence[Task], hidden: Mapping[str, HiddenTarget]) -> dict[str, Any]:
        """Rising targets and the primary opportunities' specificity (:mod:`.defects`)."""
        from foresci.tasks.families.bottleneck_opportunity.defects import defect_figures

        return defect_figures(tasks, hidden)

    def defect_lines(self, figures: Mapping[str, Any]) -> list[str]:
        from foresci.tasks.families.bottleneck_opportunity.defects import defect_lines

        return defect_lines(figures)

    def forecast_question(self, rule: str, ask: QuestionAsk) -> QuestionDraft | None:
        """Its forecast questions (:mod:`.forecasts`)."""
        return forecasts.write(rule, ask)

    def resolve_forecast(self, rule: str, question: ForecastQuestion, item: NodeEvidence,
                         evidence: DomainEvidence) -> tuple[float, dict[str, Any]]:
        """Their outcomes from the window's evidence (:mod:`.forecasts`)."""
        return forecasts.resolve(rule, question, item, evidence)
