"""direction_forecasting, public side: answer schema, question wording, deliverables, contract check,
rendering, top choice and the baselines' answer."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from foresci.tasks.families.base import AnswerLike, ContractCheck, TaskFamily, TopChoice, register_family
from foresci.tasks.families.direction_forecasting import forecasts
from foresci.tasks.families.parts import bullets, choice_schema, option_names, read_choice
from foresci.tasks.option_probabilities import OptionProbabilities
from foresci.tasks.options import option_ids, parse_answer_ranking, resolve_option
from foresci.tasks.templates import COMMON_REQUIREMENTS, when
from foresci.taxonomy.models import Trajectory

if TYPE_CHECKING:
    from foresci.tasks.evidence import DomainEvidence, NodeEvidence
    from foresci.tasks.families.questions import QuestionAsk, QuestionDraft
    from foresci.tasks.hidden import HiddenTarget, Slot
    from foresci.tasks.models import ForecastQuestion, Task
    from foresci.tasks.text_index import TextIndex

NAME = "direction_forecasting"


class DirectionAnswer(OptionProbabilities):
    """direction_forecasting: the candidate that gains momentum and its trajectory."""

    model_config = ConfigDict(extra="forbid")

    direction: str = Field(description="option_id of the chosen candidate")
    trajectory: Trajectory
    rationale: str
    signals: list[str] = Field(default_factory=list)
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)


def momentum_measure(level_period: str) -> str:
    """How a direction task measures momentum, as its public context states it."""
    return (f"growth of the share of the domain's new papers, window vs. {level_period} (its level shrunk "
            "toward the domain's typical node)")


def direction_question(domain_name: str, cutoff: date, start: date, end: date) -> tuple[str, str]:
    """Title and question of a direction-forecasting task."""
    title = f"Which {domain_name} direction gains momentum after {cutoff.isoformat()}?"
    question = (f"{when(cutoff, start, end)} Among the candidate research directions in {domain_name} "
                f"listed "
                "below, which one will gain the most momentum during the window, measured as growth of its "
                "share of the domain's new papers? Also state the trajectory that direction follows "
                "(accelerating, fragmenting into sub-directions, steady, or cooling).")
    return title, question


@register_family
class DirectionForecasting(TaskFamily):
    """Pick the candidate direction that gains the most momentum in the window, with its trajectory."""

    name = NAME
    round_default = 0
    question_label = "share growth (direction forecasting)"
    abbreviation = "df"
    answer_schema = DirectionAnswer
    deliverables = (
        *COMMON_REQUIREMENTS,
        "Name exactly one candidate (by option id) as the direction that gains the most momentum.",
        "Give its trajectory label over the window: accelerating, fragmenting, steady or cooling.",
        "Say which other candidates, if any, are close runners-up.",
    )
    metrics = ("fact", "fta", "trace", "pers", "fact_offline", "fta_offline_claims", "trace_offline",
               "top_choice")
    hidden_target = "foresci.tasks.families.direction_forecasting.target:DirectionTarget"
    builder = "foresci.tasks.families.direction_forecasting.builder:build_direction_tasks"
    forecast_kind = "binary"
    choice_key = "direction"
    round_tasks = "foresci.tasks.families.direction_forecasting.rounds"
    agent_signals = "candidate_trends"
    baseline_strategy = "momentum_choice"
    counts_rule_answers = True
    signal_benchmark = True
    forecast_rules = forecasts.RULES

    def constrained_schema(self, options: Sequence[str]) -> type[BaseModel]:
        return choice_schema(DirectionAnswer, "direction", "option_id of the chosen candidate",
                             tuple(options))

    def template_text(self) -> str:
        probe = date(2000, 1, 1)
        return " ".join([*direction_question("", probe, probe, probe), momentum_measure("")])

    def check_contract(self, task: Task, answer: BaseModel) -> ContractCheck:
        """One known option (labels read as option ids)."""
        if not isinstance(answer, DirectionAnswer) or not task.candidates:
            return ContractCheck(answer)
        resolved = resolve_option(answer.direction, task.candidates)
        if resolved is None:
            choices = ", ".join(option_ids(task.candidates))
            problem = f"direction {answer.direction!r} is not one of the options {choices}"
            return ContractCheck(answer, [problem])
        if resolved == answer.direction:
            return ContractCheck(answer)
        return ContractCheck(answer.model_copy(update={"direction": resolved}), [],
                             [f"read direction {answer.direction!r} as option {resolved}"])

    def render(self, task: Task, answer: BaseModel) -> str:
        if not isinstance(answer, DirectionAnswer):
            raise TypeError(f"no {self.name} renderer for {type(answer).__name__}")
        label = option_names(task).get(answer.direction, answer.direction)
        lines = [f"Forecast: {answer.direction} ({label}) gains the most momentum in "
                 f"{task.window_start.isoformat()}..{task.window_end.isoformat()}.",
                 f"Trajectory: {answer.trajectory}. Confidence: {answer.confidence:.2f}.",
                 f"Rationale: {answer.rationale}"]
        return "\n".join(lines + bullets("Signals", answer.signals))

    def top_choice(self, answer: AnswerLike, task: Task, hidden: HiddenTarget) -> TopChoice | None:
        """1 for the primary direction, 0.5 for an acceptable neighbour, else 0.

        A payload direction is what the model chose: one that names no option scores 0 (the text is read
        only when the payload has no direction at all).
        """
        primary = getattr(hidden, "primary_direction", None)
        if not primary:
            return None
        acceptable = getattr(hidden, "acceptable_directions", [])
        gold_trajectory = getattr(hidden, "trajectory", None)
        label = answer.payload.get("direction")
        chosen = resolve_option(label, task.candidates)
        if label is None:
            predicted, _ = parse_answer_ranking({}, answer.text, task.candidates)
            chosen = predicted[0] if predicted else None
        value = 1.0 if chosen == primary else 0.5 if chosen in acceptable else 0.0
        trajectory = answer.payload.get("trajectory")
        return TopChoice(value=value, details={
            "chosen": chosen, "answered": label, "gold": primary, "trajectory": trajectory,
            "trajectory_correct": None if gold_trajectory is None else trajectory == gold_trajectory,
        })

    def read_choice(self, task: Task, payload: dict[str, Any], text: str) -> str | None:
        """The option its ``direction`` names (else the first its text ranks)."""
        return read_choice(task, payload.get("direction"), text)

    def derived_slots(self, task: Task, hidden: HiddenTarget) -> list[Slot]:
        """The primary and acceptable candidates' names and descriptions, plus the trajectory label."""
        from foresci.tasks.hidden import Slot

        slots: list[Slot] = []
        by_id = {candidate.option_id: candidate for candidate in task.candidates}
        texts: list[str] = []
        primary = getattr(hidden, "primary_direction", None)
        for option_id in [primary, *getattr(hidden, "acceptable_directions", [])]:
            if option_id is None:
                continue
            candidate = by_id.get(option_id)
            if candidate is None:
                texts.append(option_id)
                continue
            texts.append(candidate.name)
            if candidate.description:
                texts.append(f"{candidate.name}: {candidate.description}")
        if texts:
            slots.append(Slot(name="direction", variants=texts))
        trajectory = getattr(hidden, "trajectory", None)
        if trajectory:
            slots.append(Slot(name="trajectory", variants=[f"The direction is {trajectory}."]))
        return slots

    def counts_rule_answer(self, task: Task, ranked: Sequence[str],
                           counts: Mapping[str, tuple[int, int]]) -> BaseModel:
        """The option with the highest recent / pre-cutoff ratio, called accelerating."""
        chosen = ranked[0]
        pre, recent = counts[chosen]
        return DirectionAnswer(
            direction=chosen, trajectory="accelerating", confidence=0.5,
            rationale=f"{chosen} has the highest recent / pre-cutoff paper ratio "
                      f"({recent}/{pre}).",
            signals=[f"{option}: {counts[option][1]} recent of {counts[option][0]} pre-cutoff papers"
                     for option in ranked])

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
