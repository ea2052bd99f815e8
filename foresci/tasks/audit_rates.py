"""The rates the triviality audit reports: each is a count of tasks a blind rule answers right.

- persistence: the option with the most pre-cutoff papers (or the most frequent pre-cutoff limitation, or
  the pre-cutoff venue mix) is the hidden top; read from ``stats.persistence_match`` (recorded by our
  builders, or by the importer from their counts or from a KB at the task's own cutoff);
- smallest / largest option wins: the hidden top is the unique option with the fewest / most pre-cutoff
  papers (``stats.option_pre_counts``, our builders' ``stats.options[*].pre_total`` or venue counts);
- fixed rules: "the first option id", "the option named first in the title and question", and "the
  domain's most common hidden answer", the last one leave-one-out (each task is predicted from the other
  tasks of its family and domain, so a domain with a single task cannot score it);
- recency: the naive public-context forecaster "the option with the highest recent / pre-cutoff ratio",
  read from each option's public ``pre_cutoff_papers`` and ``recent_papers`` (direction tasks'
  ``context.candidates``, planning tasks' ``context.options``); a reader applies it without any method;
- identical question, different answer: public text (``public_text``) equal after whitespace and case
  folding, hidden answers differ.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from foresci.tasks.hidden import HiddenTarget
from foresci.tasks.models import Task
from foresci.tasks.public_counts import recency_choice


class Rate(BaseModel):
    """How many of the evaluable tasks a rule answers right, and how it was computed."""

    model_config = ConfigDict(extra="forbid")

    rule: str
    how: str
    evaluable: int = 0
    matches: int = 0
    rate: float | None = None


def make_rate(rule: str, how: str, outcomes: Sequence[bool | None]) -> Rate:
    """A rate over the outcomes that are not None (None: the rule does not apply to that task)."""
    known = [bool(item) for item in outcomes if item is not None]
    return Rate(
        rule=rule,
        how=how,
        evaluable=len(known),
        matches=sum(known),
        rate=round(sum(known) / len(known), 4) if known else None,
    )


def hidden_top(hidden: HiddenTarget) -> str | None:
    """The hidden top option id: the primary direction, else the first of the ranking."""
    return hidden.top_option()


def answer_signature(task: Task, hidden: HiddenTarget) -> str:
    """The hidden answer as text: the top option's name, else the bottleneck, else the first slot."""
    top = hidden_top(hidden)
    names = {candidate.option_id: candidate.name for candidate in task.candidates}
    if top is not None:
        return names.get(top, top).lower()
    bottleneck: list[str] = getattr(hidden, "bottleneck", [])
    if bottleneck:
        return bottleneck[0].lower()
    return hidden.slots[0].variants[0].lower() if hidden.slots else ""


def option_sizes(task: Task, hidden: HiddenTarget) -> dict[str, int] | None:
    """Pre-cutoff papers per option id, from whichever record the target holds; None when unknown."""
    stats = hidden.stats
    recorded = stats.get("option_pre_counts")
    if isinstance(recorded, dict) and recorded:
        return {str(key): int(value) for key, value in recorded.items()}
    options = stats.get("options")
    if isinstance(options, dict) and options:
        values = list(options.values())
        if all(isinstance(value, dict) and "pre_total" in value for value in values):
            return {str(key): int(value["pre_total"]) for key, value in options.items()}
        pre_venues = stats.get("pre_venues")
        if all(isinstance(value, str) for value in values) and isinstance(pre_venues, dict):
            return {str(option): int(pre_venues.get(name, 0)) for name, option in options.items()}
    return None


def extreme_wins(task: Task, hidden: HiddenTarget, largest: bool) -> bool | None:
    """Whether the hidden top is the unique largest (or smallest) option; None when not evaluable."""
    sizes = option_sizes(task, hidden)
    top = hidden_top(hidden)
    if not sizes or len(sizes) < 2 or top is None:
        return None
    extreme = max(sizes.values()) if largest else min(sizes.values())
    holders = [option for option, size in sizes.items() if size == extreme]
    return holders == [top] if len(holders) == 1 else None


def first_option_wins(task: Task, hidden: HiddenTarget) -> bool | None:
    """Whether the first option id (in id order) is the hidden top."""
    top = hidden_top(hidden)
    if len(task.candidates) < 2 or top is None:
        return None
    return min(candidate.option_id for candidate in task.candidates) == top


def first_named_wins(task: Task, hidden: HiddenTarget) -> bool | None:
    """Whether the option whose name occurs first in the title + question is the hidden top."""
    top = hidden_top(hidden)
    if len(task.candidates) < 2 or top is None:
        return None
    text = f"{task.title} {task.question}".lower()
    positions = {candidate.option_id: text.find(candidate.name.lower()) for candidate in task.candidates}
    found = {option: position for option, position in positions.items() if position >= 0}
    if not found:
        return None
    return min(found, key=lambda option: found[option]) == top


def recency_wins(task: Task, hidden: HiddenTarget) -> bool | None:
    """Whether the naive recency rule (:func:`recency_choice`) picks the hidden top; None when the rule
    does not apply (no public counts, a tie, no hidden top)."""
    choice = recency_choice(task)
    top = hidden_top(hidden)
    if choice is None or top is None:
        return None
    return choice == top


def domain_constant_outcomes(tasks: Sequence[Task], hidden: Mapping[str, HiddenTarget]) -> list[bool | None]:
    """Leave-one-out "the domain's most common hidden answer": None where the other tasks of the domain
    give no unique most common answer."""
    answers = {
        task.task_id: answer_signature(task, hidden[task.task_id]) for task in tasks if task.task_id in hidden
    }
    outcomes: list[bool | None] = []
    for task in tasks:
        if task.task_id not in answers:
            continue
        others = Counter(
            answers[other.task_id]
            for other in tasks
            if other.domain == task.domain and other.task_id != task.task_id and other.task_id in answers
        )
        ranked = others.most_common(2)
        if not ranked or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
            outcomes.append(None)
            continue
        outcomes.append(ranked[0][0] == answers[task.task_id])
    return outcomes


def public_text(task: Task) -> str:
    """The public text a reader compares: title, question, context and options, whitespace and case
    folded. Imported tasks: title and question only (their public rows carry no options; ours derive
    them from their records)."""
    parts = [task.title, task.question]
    if task.source != "researchforesight":
        parts += [json.dumps(task.context, sort_keys=True, default=str)]
        parts += sorted(candidate.name for candidate in task.candidates)
    return " ".join(" ".join(parts).lower().split())


def identical_question_pairs(tasks: Sequence[Task], hidden: Mapping[str, HiddenTarget]) -> list[list[str]]:
    """Pairs of tasks with the same public text but different hidden answers."""
    groups: dict[str, list[Task]] = {}
    for task in tasks:
        groups.setdefault(public_text(task), []).append(task)
    pairs: list[list[str]] = []
    for members in groups.values():
        for index, first in enumerate(members):
            for second in members[index + 1 :]:
                if (
                    first.task_id in hidden
                    and second.task_id in hidden
                    and answer_signature(first, hidden[first.task_id])
                    != answer_signature(second, hidden[second.task_id])
                ):
                    pairs.append([first.task_id, second.task_id])
    return pairs


def decision_of(payload: Mapping[str, object]) -> str | None:
    """The decision of an answer payload: the chosen direction, the top of a ranking or the bottleneck."""
    if payload.get("direction"):
        return str(payload["direction"])
    ranking = payload.get("ranking")
    if isinstance(ranking, list) and ranking:
        first = ranking[0]
        return str(first.get("option_id") if isinstance(first, dict) else first)
    if payload.get("bottleneck"):
        return re.sub(r"\s+", " ", str(payload["bottleneck"]).lower()).strip()
    return None
