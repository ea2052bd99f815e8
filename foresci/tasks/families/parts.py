"""Building blocks families share: a ranked option, the ranking contract check and top-choice, the JSON
schemas with the task's option ids as an ``enum``, and the rendering of bullet lists."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue, create_model

from foresci.tasks.families.base import AnswerLike, ContractCheck, TopChoice
from foresci.tasks.options import option_ids, parse_answer_ranking, resolve_option

if TYPE_CHECKING:
    from foresci.tasks.models import Task


class RankedOption(BaseModel):
    """One entry of a ranked plan or venue list."""

    model_config = ConfigDict(extra="forbid")

    option_id: str
    reason: str = ""


@lru_cache(maxsize=256)
def choice_schema(base: type[BaseModel], field_name: str, description: str,
                  options: tuple[str, ...]) -> type[BaseModel]:
    """``base`` with its field ``field_name`` (one option id) limited to ``options`` by an ``enum`` in the
    JSON schema; the class name, and so the schema title, stays ``base``'s."""
    if not options:
        return base
    enum: dict[str, JsonValue] = {"enum": list(options)}
    chosen = Field(description=description, json_schema_extra=enum)
    fields: dict[str, tuple[type[str], object]] = {field_name: (str, chosen)}
    return create_model(base.__name__, __base__=base, __module__=base.__module__, **fields)  # type: ignore[call-overload]


@lru_cache(maxsize=256)
def ranking_schema(base: type[BaseModel], options: tuple[str, ...]) -> type[BaseModel]:
    """``base`` whose ``ranking`` entries name one of ``options`` (``enum``) and hold exactly as many
    entries as options (``minItems``/``maxItems``) in the JSON schema."""
    if not options:
        return base
    enum: dict[str, JsonValue] = {"enum": list(options)}
    item = create_model(
        RankedOption.__name__, __base__=RankedOption, __module__=RankedOption.__module__,
        option_id=(str, Field(description="option_id of a candidate", json_schema_extra=enum)),
    )
    sizes: dict[str, JsonValue] = {"minItems": len(options), "maxItems": len(options)}
    ranking = Field(description="every option once, best first", json_schema_extra=sizes)
    return create_model(base.__name__, __base__=base, __module__=base.__module__,
                        ranking=(list[item], ranking))  # type: ignore[valid-type]


def check_ranking(task: Task, answer: BaseModel) -> ContractCheck:
    """Every option ranked once, nothing else: labels read as option ids, repeats dropped, the rest noted."""
    entries: list[RankedOption] = list(getattr(answer, "ranking"))  # noqa: B009 (any ranked answer)
    ranking: list[RankedOption] = []
    notes: list[str] = []
    unknown: list[str] = []
    repeated: list[str] = []
    seen: set[str] = set()
    for item in entries:
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
    if not entries:
        problems.append("the ranking is empty")
    if unknown:
        problems.append(f"the ranking names unknown options {unknown}")
    if repeated:
        problems.append(f"the ranking repeats options {sorted(set(repeated))} (repeats dropped)")
    missing = [option for option in option_ids(task.candidates) if option not in seen]
    if entries and missing:
        problems.append(f"the ranking leaves out options {missing}")
    return ContractCheck(answer.model_copy(update={"ranking": ranking}), problems, notes)


def ranking_top_choice(answer: AnswerLike, task: Task, gold: Sequence[str]) -> TopChoice | None:
    """S_top of a ranking answer: 1 when its first option is the hidden first, else 0 (None: no gold)."""
    if not gold:
        return None
    predicted, _ = parse_answer_ranking(answer.payload, answer.text, task.candidates)
    value = 1.0 if predicted and predicted[0] == gold[0] else 0.0
    return TopChoice(value=value, details={"chosen": predicted[:1], "gold": gold[0]})


def option_names(task: Task) -> dict[str, str]:
    """option id -> option name of a task."""
    return {candidate.option_id: candidate.name for candidate in task.candidates}


def bullets(title: str, items: list[str]) -> list[str]:
    """``title:`` and one ``- item`` line per item (nothing for no items)."""
    return [f"{title}:", *(f"- {item}" for item in items)] if items else []


def ranking_lines(task: Task, heading: str, ranking: Sequence[RankedOption]) -> list[str]:
    """``heading:`` then ``n. id (name) — reason`` per ranked option."""
    names = option_names(task)
    lines = [f"{heading}:"]
    for position, item in enumerate(ranking, start=1):
        reason = f" — {item.reason}" if item.reason else ""
        lines.append(f"{position}. {item.option_id} ({names.get(item.option_id, item.option_id)}){reason}")
    return lines


def read_choice(task: Task, label: Any, text: str) -> str | None:
    """The option a single-choice answer picks: ``label`` (its choice field) read as an option, else (no
    label) the first option its text ranks; None: none readable."""
    if label is None:
        ranked, _ = parse_answer_ranking({}, text, task.candidates)
        return ranked[0] if ranked else None
    return resolve_option(label, task.candidates)
