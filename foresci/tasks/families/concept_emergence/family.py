"""concept_emergence, public side: answer schema, question wording, contract check, rendering, top choice
and the baselines' answer (network link-prediction scores read from the task's pre-cutoff signals)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from foresci.tasks.families.base import AnswerLike, ContractCheck, TaskFamily, TopChoice, register_family
from foresci.tasks.families.parts import (
    RankedOption,
    check_ranking,
    ranking_lines,
    ranking_schema,
    ranking_top_choice,
)
from foresci.tasks.option_probabilities import OptionProbabilities
from foresci.tasks.templates import COMMON_REQUIREMENTS, when

if TYPE_CHECKING:
    from foresci.tasks.config import TaskSettings
    from foresci.tasks.hidden import HiddenTarget, Resolution
    from foresci.tasks.models import ForecastQuestion, Task
    from foresci.tasks.text_index import TextIndex

NAME = "concept_emergence"
CONTEXT_TEMPLATE = ("“concept” in papers recent latest never in one paper up to concepts concept used with "
                    "both pair_signals degree_first degree_second papers_first papers_second recent_first "
                    "recent_second common_neighbours adamic_adar resource_allocation jaccard pair_papers")
"""Fixed words of an option's one-line context and public signals (:func:`foresci.emergence.questions.
pair_option`)."""


class EmergenceAnswer(OptionProbabilities):
    """concept_emergence: every pair ranked, most likely to be studied together first."""

    model_config = ConfigDict(extra="forbid")

    ranking: list[RankedOption]
    rationale: str = ""


def emergence_question(domain_name: str, cutoff: date, start: date, end: date) -> tuple[str, str]:
    """Title and question of a concept-emergence task."""
    title = f"Which concept pairs will {domain_name} papers combine next?"
    question = (f"{when(cutoff, start, end)} Each option is a pair of concepts from {domain_name} papers "
                "that no paper announced up to the cutoff used together. Rank the pairs by how many papers "
                "of the window will use both concepts, most first.")
    return title, question


def signal_value(task: Task, option: str, score: str) -> float:
    """A pre-cutoff network score of one option from the task's context signals: preferential attachment
    (the degree product), Jaccard (shared over all neighbours), or a signal stated as is (common
    neighbours, Adamic–Adar, resource allocation)."""
    from foresci.emergence.network import link_measure

    found: dict[str, float] = task.context.get("pair_signals", {}).get(option, {})
    return link_measure(found, score)


def signal_ranking(task: Task, score: str) -> list[str]:
    """Option ids by a pre-cutoff signal of the task's context, best first (ties: option order)."""
    order = [candidate.option_id for candidate in task.candidates]
    return sorted(order, key=lambda option: (-signal_value(task, option, score), order.index(option)))


@register_family
class ConceptEmergence(TaskFamily):
    """Rank concept pairs unconnected at the cutoff by how much the window will study them together."""

    name = NAME
    round_default = 4
    question_label = "concept pair used together (emergence)"
    abbreviation = "ce"
    answer_schema = EmergenceAnswer
    deliverables = (
        *COMMON_REQUIREMENTS,
        "Rank all options (by option id) from the pair most likely to be studied together in the window to "
        "the least likely.",
    )
    metrics = ("fta", "trace", "pers", "trace_offline", "top_choice")
    hidden_target = "foresci.tasks.families.concept_emergence.target:EmergenceTarget"
    builder = "foresci.tasks.families.concept_emergence.builder:build_emergence_tasks"
    release_parts = "foresci.tasks.families.concept_emergence.release:emergence_release_parts"
    ranked = True
    agent_signals = "none"
    baseline_strategy = "pair_network"
    forecast_rules = (("pair_emergence", "binary"),)
    """Its binary ``ceq-`` questions (will two concepts be used together in >= k window papers?), written
    by its release parts and a round's open, not by the family cycle (no ``forecast_kind``)."""
    routed_questions = False
    text_checks = True
    round_items = "foresci.tasks.families.concept_emergence.rounds"

    def constrained_schema(self, options: Sequence[str]) -> type[BaseModel]:
        return ranking_schema(EmergenceAnswer, tuple(options))

    def template_text(self) -> str:
        probe = date(2000, 1, 1)
        return " ".join((*emergence_question("", probe, probe, probe), CONTEXT_TEMPLATE))

    def check_contract(self, task: Task, answer: BaseModel) -> ContractCheck:
        """Every option ranked once, nothing else."""
        if not isinstance(answer, EmergenceAnswer) or not task.candidates:
            return ContractCheck(answer)
        return check_ranking(task, answer)

    def render(self, task: Task, answer: BaseModel) -> str:
        if not isinstance(answer, EmergenceAnswer):
            raise TypeError(f"no {self.name} renderer for {type(answer).__name__}")
        lines = ranking_lines(task, "Most likely to be studied together first", answer.ranking)
        if answer.rationale:
            lines.append(f"Rationale: {answer.rationale}")
        return "\n".join(lines)

    def top_choice(self, answer: AnswerLike, task: Task, hidden: HiddenTarget) -> TopChoice | None:
        """S_top: the first pair of the answer's ranking is the one the window studied most."""
        return ranking_top_choice(answer, task, getattr(hidden, "ranking", []))

    def release_findings(self, task: Task, index: TextIndex | None) -> list[tuple[str, str]]:
        """Its options pair two concepts: fragments, one concept twice, one inside the other, and (with the
        pre-cutoff text) a pair already used together."""
        from foresci.tasks.release_checks import pair_findings

        return pair_findings(task, index)

    def winner_counts(self, task: Task, hidden: HiddenTarget) -> tuple[int, int] | None:
        """The two highest window-paper counts of its pairs."""
        from foresci.tasks.release_checks import top_two

        counts = dict(getattr(hidden, "window_papers", {}) or {})
        return top_two(sorted((int(value) for value in counts.values()), reverse=True))

    def lead_finding(self, task: Task, hidden: HiddenTarget, counts: tuple[int, int],
                     settings: TaskSettings) -> str | None:
        """The most-used pair must lead the next by ``min_count_z`` Poisson standard errors."""
        from foresci.tasks.release_checks import lead_detail

        return lead_detail(*counts, settings)

    def defect_figures(self, tasks: Sequence[Task], hidden: Mapping[str, HiddenTarget]) -> dict[str, Any]:
        """Its tasks, and those offering a pair of two names of one concept (goal 0)."""
        from foresci.tasks.release_defects import names_one_concept_twice

        return {"concept_pairs": len(tasks),
                "one_concept_twice_tasks": [task.task_id for task in tasks if names_one_concept_twice(task)]}

    def defect_lines(self, figures: Mapping[str, Any]) -> list[str]:
        if not figures["concept_pairs"]:
            return []
        return [f"concept pairs naming one concept twice: {len(figures['one_concept_twice_tasks'])} of "
                f"{figures['concept_pairs']} concept-emergence tasks offer one (goal 0)"]

    def resolve_unrouted(self, questions: Sequence[ForecastQuestion], kb: Any,
                         fingerprint: str) -> list[Resolution]:
        """Its pair used together in >= k window papers (:mod:`.forecasts`)."""
        from foresci.tasks.families.concept_emergence.forecasts import resolve_emergence_questions

        return resolve_emergence_questions(questions, kb, fingerprint)

    def ranked_by(self, task: Task, score: str, who: str, value: Callable[[str], float],
                  tie: Callable[[str], float] | None = None) -> tuple[EmergenceAnswer, Any]:
        """The answer ranking the task's pairs by ``value`` (:func:`scored_answer`): what a baseline's
        ``pair_network`` strategy answers with, without naming this family."""
        return scored_answer(task, score, who, value, tie)

    def signal_answer(self, task: Task, who: str) -> tuple[BaseModel, Any] | None:
        """persistence: preferential attachment (popular concepts meet); trend (any other): Adamic–Adar
        (shared neighbours, rarer ones weigh more). Both read only the signals the task shows."""
        score = "preferential_attachment" if who == "persistence" else "adamic_adar"
        return scored_answer(task, score, who, lambda option: signal_value(task, option, score))


def scored_answer(task: Task, score: str, who: str, value: Callable[[str], float],
                  tie: Callable[[str], float] | None = None) -> tuple[EmergenceAnswer, Any]:
    """The answer ranking the task's options by ``value`` (option id -> score, higher first; ties by
    ``tie``, higher first, then in option order), with a support artifact citing each pair's latest
    pre-cutoff papers."""
    from foresci.contracts import Evidence, SupportArtifact

    if not task.candidates:
        raise ValueError(f"task {task.task_id} ({task.family}) has no candidate options to rank")
    order = [candidate.option_id for candidate in task.candidates]
    values = {option: value(option) for option in order}
    ties = {option: tie(option) if tie is not None else 0.0 for option in order}
    ranked = sorted(order, key=lambda option: (-values[option], -ties[option], order.index(option)))
    label = score.replace("_", " ")
    answer = EmergenceAnswer(
        ranking=[RankedOption(option_id=option, reason=f"{label} rank {position}")
                 for position, option in enumerate(ranked, start=1)],
        rationale=f"ranked by {label} in the co-occurrence network at the cutoff")
    support = SupportArtifact()
    support.notes.append(f"{who}: {score} of each pair from the task's pre-cutoff signals")
    papers: dict[str, list[str]] = task.context.get("pair_papers", {})
    names = {candidate.option_id: candidate.name for candidate in task.candidates}
    for position, option in enumerate(ranked, start=1):
        support.evidence.append(Evidence(
            claim=f"{option} ({names[option]}) ranks {position} by {label}: {values[option]:.3f}",
            paper_ids=list(papers.get(option, []))))
    return answer, support
