"""The common final renderer: a family answer (structured) -> checked against the task contract -> text.

Every method, LLM or not, goes through :func:`check_contract` and :func:`render_text`, so answers
differ in their decisions and evidence, not in their formatting. A contract breach is recorded on the
answer row, never repaired into a different answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel

from foresci.contracts import BottleneckAnswer, DirectionAnswer, PlanningAnswer, RankedOption, VenueAnswer
from foresci.tasks.models import Task
from foresci.tasks.options import option_ids, resolve_option


@dataclass(frozen=True)
class ContractCheck:
    """An answer read against its task contract.

    ``answer`` has the model's labels read as option ids (one resolver, :mod:`foresci.tasks.options`)
    and repeated ranking entries dropped; nothing is invented, reordered or filled in, so it is scored as
    what the model said. ``problems`` lists what still breaks the contract; ``notes`` how labels were read.
    """

    answer: BaseModel
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _text_problems(answer: BottleneckAnswer) -> list[str]:
    return [f"{name} is empty" for name in ("bottleneck", "opportunity", "mechanism")
            if not getattr(answer, name).strip()]


def _check_ranking(task: Task, answer: PlanningAnswer | VenueAnswer) -> ContractCheck:
    ranking: list[RankedOption] = []
    notes: list[str] = []
    unknown: list[str] = []
    repeated: list[str] = []
    seen: set[str] = set()
    for item in answer.ranking:
        resolved = resolve_option(item.option_id, task.candidates)
        if resolved is None:
            unknown.append(item.option_id)
            ranking.append(item)
            continue
        if resolved in seen:
            repeated.append(resolved)
            continue
        if resolved != item.option_id:
            notes.append(f"read {item.option_id!r} as option {resolved}")
        seen.add(resolved)
        ranking.append(item.model_copy(update={"option_id": resolved}))
    problems: list[str] = []
    if not answer.ranking:
        problems.append("the ranking is empty")
    if unknown:
        problems.append(f"the ranking names unknown options {unknown}")
    if repeated:
        problems.append(f"the ranking repeats options {sorted(set(repeated))} (repeats dropped)")
    missing = [option for option in option_ids(task.candidates) if option not in seen]
    if answer.ranking and missing:
        problems.append(f"the ranking leaves out options {missing}")
    return ContractCheck(answer.model_copy(update={"ranking": ranking}), problems, notes)


def check_contract(task: Task, answer: BaseModel) -> ContractCheck:
    """Read ``answer`` against the task contract: labels -> option ids, and what still breaks it.

    Direction: one known option. Planning/venue: every option ranked once, nothing else. Bottleneck:
    bottleneck, opportunity and mechanism all stated.
    """
    if isinstance(answer, BottleneckAnswer):
        return ContractCheck(answer, _text_problems(answer))
    if not task.candidates:
        return ContractCheck(answer)
    if isinstance(answer, DirectionAnswer):
        resolved = resolve_option(answer.direction, task.candidates)
        if resolved is None:
            choices = ", ".join(option_ids(task.candidates))
            problem = f"direction {answer.direction!r} is not one of the options {choices}"
            return ContractCheck(answer, [problem])
        if resolved == answer.direction:
            return ContractCheck(answer)
        return ContractCheck(answer.model_copy(update={"direction": resolved}), [],
                             [f"read direction {answer.direction!r} as option {resolved}"])
    if isinstance(answer, PlanningAnswer | VenueAnswer):
        return _check_ranking(task, answer)
    return ContractCheck(answer)


def _names(task: Task) -> dict[str, str]:
    return {candidate.option_id: candidate.name for candidate in task.candidates}


def _bullets(title: str, items: list[str]) -> list[str]:
    return [f"{title}:", *(f"- {item}" for item in items)] if items else []


def render_text(task: Task, answer: BaseModel) -> str:
    """The final answer text of one family answer (what judges read)."""
    names = _names(task)
    lines: list[str] = []
    if isinstance(answer, DirectionAnswer):
        label = names.get(answer.direction, answer.direction)
        lines += [f"Forecast: {answer.direction} ({label}) gains the most momentum in "
                  f"{task.window_start.isoformat()}..{task.window_end.isoformat()}.",
                  f"Trajectory: {answer.trajectory}. Confidence: {answer.confidence:.2f}.",
                  f"Rationale: {answer.rationale}"]
        lines += _bullets("Signals", answer.signals)
    elif isinstance(answer, BottleneckAnswer):
        lines += [f"Root bottleneck: {answer.bottleneck}", f"Opportunity if reduced: {answer.opportunity}",
                  f"Mechanism: {answer.mechanism}"]
        if answer.evidence_summary:
            lines.append(f"Evidence: {answer.evidence_summary}")
    elif isinstance(answer, PlanningAnswer | VenueAnswer):
        heading = "Priority order" if isinstance(answer, PlanningAnswer) else "Venue ranking"
        lines.append(f"{heading}:")
        for position, item in enumerate(answer.ranking, start=1):
            reason = f" — {item.reason}" if item.reason else ""
            name = names.get(item.option_id, item.option_id)
            lines.append(f"{position}. {item.option_id} ({name}){reason}")
        if isinstance(answer, PlanningAnswer):
            lines += _bullets("Milestones", answer.milestones) + _bullets("Risks", answer.risks)
            if answer.go_no_go:
                lines.append(f"Go/no-go: {answer.go_no_go}")
        else:
            if answer.framing:
                lines.append(f"Framing: {answer.framing}")
            lines += _bullets("Reviewer risks", answer.reviewer_risks)
            lines += _bullets("Evidence upgrades", answer.evidence_upgrades)
    else:
        raise TypeError(f"no renderer for {type(answer).__name__}")
    return "\n".join(lines)
