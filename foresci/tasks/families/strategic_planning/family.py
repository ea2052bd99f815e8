"""strategic_planning, public side: answer schema, question wording, deliverables, contract check,
rendering, top choice and the baselines' answer."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from foresci.tasks.families.base import AnswerLike, ContractCheck, TaskFamily, TopChoice, register_family
from foresci.tasks.families.parts import (
    RankedOption,
    bullets,
    check_ranking,
    ranking_lines,
    ranking_schema,
    ranking_top_choice,
)
from foresci.tasks.families.strategic_planning import forecasts
from foresci.tasks.option_probabilities import OptionProbabilities
from foresci.tasks.templates import COMMON_REQUIREMENTS, when

if TYPE_CHECKING:
    from foresci.tasks.evidence import DomainEvidence, NodeEvidence
    from foresci.tasks.families.questions import QuestionAsk, QuestionDraft
    from foresci.tasks.hidden import HiddenTarget
    from foresci.tasks.models import ForecastQuestion, Task
    from foresci.tasks.text_index import TextIndex

NAME = "strategic_planning"


class PlanningAnswer(OptionProbabilities):
    """strategic_planning: ranked options with milestones and risks."""

    model_config = ConfigDict(extra="forbid")

    ranking: list[RankedOption]
    milestones: list[str] = Field(default_factory=list)
    risks: list[str] = Field(default_factory=list)
    go_no_go: str = ""


def planning_question(domain_name: str, scope: str, cutoff: date, start: date, end: date) -> tuple[str, str]:
    """Title and question of a strategic-planning task."""
    title = f"Prioritising research options in {scope}"
    question = (f"{when(cutoff, start, end)} A research team working on {scope} ({domain_name}) can pursue "
                f"the "
                "options listed below during the window. Rank them from highest to lowest priority for a "
                "team new to them, where priority means the option most open to new teams in the window: "
                "the largest share of its new papers written by authors who had not published in it "
                "before (a crowded option, held by the teams already in it, ranks low however fast it "
                "grows). "
                "Give the rationale, milestones, dependencies, risks and a go/no-go criterion for your top "
                "choice.")
    return title, question


@register_family
class StrategicPlanning(TaskFamily):
    """Rank the options a team could pursue in the window, with milestones, risks and a go/no-go."""

    name = NAME
    round_default = 1
    question_label = "paper count (planning's sub-direction)"
    abbreviation = "sp"
    answer_schema = PlanningAnswer
    deliverables = (
        *COMMON_REQUIREMENTS,
        "Rank all options (by option id) from highest to lowest priority for the window.",
        "Give a rationale, milestones, dependencies, risks and a go/no-go criterion for the top option.",
    )
    metrics = ("fact", "fta", "trace", "pers", "fact_offline", "trace_offline", "top_choice", "plan_outcome")
    hidden_target = "foresci.tasks.families.strategic_planning.target:PlanningTarget"
    builder = "foresci.tasks.families.strategic_planning.builder:build_planning_tasks"
    forecast_kind = "numeric"
    ranked = True
    round_tasks = "foresci.tasks.families.strategic_planning.rounds"
    agent_signals = "candidate_trends"
    baseline_strategy = "momentum_ranking"
    counts_rule_answers = True
    forecast_rules = forecasts.RULES

    def constrained_schema(self, options: Sequence[str]) -> type[BaseModel]:
        return ranking_schema(PlanningAnswer, tuple(options))

    def template_text(self) -> str:
        probe = date(2000, 1, 1)
        return " ".join(planning_question("", "", probe, probe, probe))

    def check_contract(self, task: Task, answer: BaseModel) -> ContractCheck:
        """Every option ranked once, nothing else."""
        if not isinstance(answer, PlanningAnswer) or not task.candidates:
            return ContractCheck(answer)
        return check_ranking(task, answer)

    def render(self, task: Task, answer: BaseModel) -> str:
        if not isinstance(answer, PlanningAnswer):
            raise TypeError(f"no {self.name} renderer for {type(answer).__name__}")
        lines = ranking_lines(task, "Priority order", answer.ranking)
        lines += bullets("Milestones", answer.milestones) + bullets("Risks", answer.risks)
        if answer.go_no_go:
            lines.append(f"Go/no-go: {answer.go_no_go}")
        return "\n".join(lines)

    def top_choice(self, answer: AnswerLike, task: Task, hidden: HiddenTarget) -> TopChoice | None:
        """S_top: the first option of the answer's ranking is the hidden first."""
        return ranking_top_choice(answer, task, getattr(hidden, "ranking", []))

    def counts_rule_answer(self, task: Task, ranked: Sequence[str],
                           counts: Mapping[str, tuple[int, int]]) -> BaseModel:
        """The options ranked by their recent / pre-cutoff ratio, the first to start with."""
        return PlanningAnswer(
            ranking=[RankedOption(option_id=option, reason=f"{counts[option][1]} recent of "
                                  f"{counts[option][0]} pre-cutoff papers") for option in ranked],
            milestones=[f"Start with {ranked[0]}: its recent share of its own history is highest"],
            risks=["a recent burst may not continue"],
            go_no_go=f"continue {ranked[0]} if its recent papers keep coming")

    def release_findings(self, task: Task, index: TextIndex | None) -> list[tuple[str, str]]:
        """Its options are taxonomy nodes: umbrella options, near-synonym options, stated paper counts."""
        from foresci.tasks.release_checks import option_findings

        return option_findings(task)

    def release_screen(self, task: Task, hidden: HiddenTarget, domain: DomainEvidence) -> None:
        """Record how each option's name fits its node's papers (read by the ``label_mismatch`` check)."""
        from foresci.tasks.release_checks import record_option_labels

        record_option_labels(task, hidden, domain)

    def forecast_question(self, rule: str, ask: QuestionAsk) -> QuestionDraft | None:
        """Its forecast questions (:mod:`.forecasts`)."""
        return forecasts.write(rule, ask)

    def resolve_forecast(self, rule: str, question: ForecastQuestion, item: NodeEvidence,
                         evidence: DomainEvidence) -> tuple[float, dict[str, Any]]:
        """Their outcomes from the window's evidence (:mod:`.forecasts`)."""
        return forecasts.resolve(rule, question, item, evidence)
