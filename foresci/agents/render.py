"""The common final renderer: a family answer (structured) -> checked against the task contract -> text.

Every method, LLM or not, goes through :func:`enforce_contract` and :func:`render_text`, so answers
differ in their decisions and evidence, not in their formatting.
"""

from __future__ import annotations

from pydantic import BaseModel

from foresci.agents.models import BottleneckAnswer, DirectionAnswer, PlanningAnswer, RankedOption, VenueAnswer
from foresci.tasks.models import Task


def _resolve_option(task: Task, value: str) -> str | None:
    """An option id from an id or a candidate name (case-insensitive), else None."""
    wanted = value.strip().lower()
    for candidate in task.candidates:
        if wanted in (candidate.option_id.lower(), candidate.name.lower()):
            return candidate.option_id
    return None


def contract_problems(task: Task, answer: BaseModel) -> list[str]:
    """What in ``answer`` breaks the task contract (unknown option ids); empty when it is sound."""
    if not task.candidates:
        return []
    if isinstance(answer, DirectionAnswer):
        if _resolve_option(task, answer.direction):
            return []
        return [f"direction {answer.direction!r} is not an option"]
    if isinstance(answer, PlanningAnswer | VenueAnswer):
        unknown = [item.option_id for item in answer.ranking if _resolve_option(task, item.option_id) is None]
        return [f"ranking names unknown options {unknown}"] if unknown else []
    return []


def enforce_contract(task: Task, answer: BaseModel) -> tuple[BaseModel, list[str]]:
    """Repair what can be repaired: names -> option ids; rankings made a full permutation of the options
    (unknown ids dropped, duplicates removed, missing options appended in task order). Returns notes."""
    notes: list[str] = []
    if not task.candidates:
        return answer, notes
    if isinstance(answer, DirectionAnswer):
        resolved = _resolve_option(task, answer.direction)
        if resolved is not None and resolved != answer.direction:
            notes.append(f"direction {answer.direction!r} mapped to option {resolved}")
            answer = answer.model_copy(update={"direction": resolved})
        return answer, notes
    if isinstance(answer, PlanningAnswer | VenueAnswer):
        ranking: list[RankedOption] = []
        seen: set[str] = set()
        for item in answer.ranking:
            resolved = _resolve_option(task, item.option_id)
            if resolved is None:
                notes.append(f"dropped unknown option {item.option_id!r}")
                continue
            if resolved in seen:
                continue
            seen.add(resolved)
            ranking.append(item.model_copy(update={"option_id": resolved}))
        for candidate in task.candidates:
            if candidate.option_id not in seen:
                notes.append(f"appended unranked option {candidate.option_id}")
                ranking.append(RankedOption(option_id=candidate.option_id, reason="not ranked by the method"))
        return answer.model_copy(update={"ranking": ranking}), notes
    return answer, notes


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
