"""venue_positioning, public side: answer schema, question wording, deliverables, contract check,
rendering, top choice and the baselines' answer."""

from __future__ import annotations

from collections.abc import Sequence
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
from foresci.tasks.families.venue_positioning import forecasts
from foresci.tasks.option_probabilities import OptionProbabilities
from foresci.tasks.templates import COMMON_REQUIREMENTS, when

if TYPE_CHECKING:
    from foresci.tasks.config import TaskSettings
    from foresci.tasks.evidence import DomainEvidence, NodeEvidence
    from foresci.tasks.families.questions import QuestionAsk, QuestionDraft
    from foresci.tasks.hidden import HiddenTarget
    from foresci.tasks.models import ForecastQuestion, Task

NAME = "venue_positioning"


class VenueAnswer(OptionProbabilities):
    """venue_positioning: ranked venue families with framing and reviewer risks."""

    model_config = ConfigDict(extra="forbid")

    ranking: list[RankedOption]
    framing: str = ""
    reviewer_risks: list[str] = Field(default_factory=list)
    evidence_upgrades: list[str] = Field(default_factory=list)


def venue_question(domain_name: str, contribution: str, cutoff: date, start: date, end: date,
                   project: str = "") -> tuple[str, str]:
    """Title and question of a venue-positioning task; ``project``: the project description (contribution
    type and what the work does, from the node's pre-cutoff papers: :mod:`.project`), said after the
    premise."""
    title = f"Positioning a contribution on {contribution} for the next venue cycle"
    question = (f"{when(cutoff, start, end)} A team has a contribution in {domain_name} on "
                f"'{contribution}' and "
                f"will submit during the next venue cycle. {project + ' ' if project else ''}"
                "Rank the venue families listed below from best to worst "
                f"fit for this contribution. Fit is read against {domain_name or 'the domain'}'s own venue "
                "mix in the same months: the family that accepts this kind of work more often than the "
                "domain's work at large fits best (the conference calendar, which lifts every topic at "
                "once, is not fit). For the top choice explain the framing, the reviewer risks "
                "and "
                "the evidence upgrades that would make the submission credible.")
    return title, question


@register_family
class VenuePositioning(TaskFamily):
    """Rank venue families for a contribution, with the framing, reviewer risks and evidence upgrades."""

    name = NAME
    round_default = 2
    question_label = "venue share (venue positioning)"
    abbreviation = "vp"
    answer_schema = VenueAnswer
    deliverables = (
        *COMMON_REQUIREMENTS,
        "Rank all venue families (by option id) from best to worst fit for the contribution.",
        "Explain the framing, the main reviewer risks and the evidence upgrades for the top venue family.",
    )
    metrics = ("fact", "fta", "trace", "pers", "fact_offline", "trace_offline", "top_choice")
    hidden_target = "foresci.tasks.families.venue_positioning.target:VenueTarget"
    builder = "foresci.tasks.families.venue_positioning.builder:build_venue_tasks"
    horizons = ("venue_cycle",)
    forecast_kind = "binary"
    ranked = True
    headline = False  # a persistence family (docs: releases): persistence reads 0.70 top-1, trend 0.38
    round_tasks = "foresci.tasks.families.venue_positioning.rounds"
    agent_signals = "venue_profile"
    baseline_strategy = "venue_record"
    forecast_rules = forecasts.RULES

    def constrained_schema(self, options: Sequence[str]) -> type[BaseModel]:
        return ranking_schema(VenueAnswer, tuple(options))

    def template_text(self) -> str:
        probe = date(2000, 1, 1)
        from foresci.tasks.families.venue_positioning.project import template_words

        return " ".join(venue_question("", "", probe, probe, probe, template_words()))

    def check_contract(self, task: Task, answer: BaseModel) -> ContractCheck:
        """Every venue family ranked once, nothing else."""
        if not isinstance(answer, VenueAnswer) or not task.candidates:
            return ContractCheck(answer)
        return check_ranking(task, answer)

    def render(self, task: Task, answer: BaseModel) -> str:
        if not isinstance(answer, VenueAnswer):
            raise TypeError(f"no {self.name} renderer for {type(answer).__name__}")
        lines = ranking_lines(task, "Venue ranking", answer.ranking)
        if answer.framing:
            lines.append(f"Framing: {answer.framing}")
        lines += bullets("Reviewer risks", answer.reviewer_risks)
        lines += bullets("Evidence upgrades", answer.evidence_upgrades)
        return "\n".join(lines)

    def top_choice(self, answer: AnswerLike, task: Task, hidden: HiddenTarget) -> TopChoice | None:
        """S_top: the first venue family of the answer's ranking is the hidden first."""
        return ranking_top_choice(answer, task, getattr(hidden, "ranking", []))

    def winner_counts(self, task: Task, hidden: HiddenTarget) -> tuple[int, int] | None:
        """Window papers of the two best-fit venues (a target read by fit), else the two busiest venues."""
        from foresci.tasks.release_checks import top_two

        venues = dict(hidden.stats.get("window_venues") or {})
        if "fit" not in hidden.stats:
            return top_two(sorted((int(value) for value in venues.values()), reverse=True))
        names = {candidate.option_id: candidate.name for candidate in task.candidates}
        ranking = list(getattr(hidden, "ranking", []) or [])
        return top_two([int(venues.get(names.get(option, ""), 0)) for option in ranking[:2]])

    def lead_finding(self, task: Task, hidden: HiddenTarget, counts: tuple[int, int],
                     settings: TaskSettings) -> str | None:
        """The best-fit venue must exceed the domain's venue mix by ``min_count_z`` Poisson standard errors
        (a target read by fit), else lead the runner-up by as many."""
        from foresci.tasks.release_checks import lead_detail

        if "fit" not in hidden.stats:
            return lead_detail(*counts, settings)
        ranking = list(getattr(hidden, "ranking", []) or [])
        names = {candidate.option_id: candidate.name for candidate in task.candidates}
        top = names.get(ranking[0], "") if ranking else ""
        z = float(dict(hidden.stats["fit"]).get(top, {}).get("z", 0.0))
        if z < settings.min_count_z:
            return (f"best-fit venue exceeds the domain mix by {z:.2f} < {settings.min_count_z} Poisson "
                    "standard errors")
        return None

    def forecast_question(self, rule: str, ask: QuestionAsk) -> QuestionDraft | None:
        """Its forecast questions (:mod:`.forecasts`)."""
        return forecasts.write(rule, ask)

    def resolve_forecast(self, rule: str, question: ForecastQuestion, item: NodeEvidence,
                         evidence: DomainEvidence) -> tuple[float, dict[str, Any]]:
        """Their outcomes from the window's evidence (:mod:`.forecasts`)."""
        return forecasts.resolve(rule, question, item, evidence)
