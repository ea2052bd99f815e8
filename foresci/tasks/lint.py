"""Leakage lint: no public field may name a node or a term first seen after the cutoff."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any

from foresci.kb.models import VENUE_FAMILIES
from foresci.tasks.hidden import HiddenTarget
from foresci.tasks.models import Task
from foresci.tasks.text import content_tokens


def public_strings(task: Task) -> list[str]:
    """Every free-text string of a public task (title, question, candidates, context values)."""
    strings = [task.title, task.question, *task.deliverable]
    for candidate in task.candidates:
        strings += [candidate.name, candidate.description]
    strings += list(_strings(task.context))
    return strings


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def template_vocabulary() -> frozenset[str]:
    """Words the templates themselves contribute (allowed whatever the corpus says), for the families
    registered now (an extension registered later adds its templates' words)."""
    from foresci.tasks.families import family_names

    return _template_vocabulary(tuple(family_names()))


@functools.cache
def _template_vocabulary(names: tuple[str, ...]) -> frozenset[str]:
    from foresci.tasks.families import get_family

    families = [get_family(name) for name in names]
    text = " ".join(" ".join(family.deliverables) for family in families)
    text += " " + " ".join(VENUE_FAMILIES)
    text += " " + " ".join(family.template_text() for family in families)
    text += (" momentum measure growth share domain's new papers window same-length period before cutoff "
             "pre_cutoff_papers recent_papers key_terms candidates domain_name scope options contribution "
             "description subdirection recurring_limitations_before_cutoff pre_cutoff_venue_papers key terms")
    return frozenset(content_tokens(text))


def lint_task(task: Task, hidden: HiddenTarget | None = None, pre_vocabulary: frozenset[str] | None = None,
              node_first_seen: Mapping[str, date | None] | None = None,
              allowed: frozenset[str] = frozenset()) -> list[str]:
    """Return leakage violations of one public task (empty list: clean).

    Checks: the window opens after the cutoff; candidate nodes exist at the cutoff (``node_first_seen``);
    no post-cutoff term recorded in the hidden target appears in public text; every public content word
    occurs in pre-cutoff text, the templates or ``allowed`` (``pre_vocabulary``).
    """
    problems: list[str] = []
    where = f"task {task.task_id}"
    if task.window_start <= task.cutoff:
        problems.append(f"{where}: window_start {task.window_start} is not after cutoff {task.cutoff}")
    if node_first_seen is not None:
        for candidate in task.candidates:
            if candidate.node_id is None:
                continue
            if candidate.node_id not in node_first_seen:
                problems.append(f"{where}: candidate {candidate.option_id} names node {candidate.node_id!r} "
                                "absent from the taxonomy at the cutoff")
                continue
            seen = node_first_seen[candidate.node_id]
            if seen is not None and seen > task.cutoff:
                problems.append(f"{where}: candidate {candidate.option_id} node first seen {seen} after "
                                f"cutoff")
    text = " ".join(public_strings(task)).lower()
    if hidden is not None:
        for term in hidden.stats.get("post_cutoff_terms", []) or []:
            if str(term).lower() in text:
                problems.append(f"{where}: public text names post-cutoff term {term!r}")
    if pre_vocabulary is not None:
        template = template_vocabulary()  # three lookups: a union would copy the whole vocabulary per task
        unknown = sorted({word for word in content_tokens(text)
                          if word not in pre_vocabulary and word not in template and word not in allowed})
        if unknown:
            problems.append(f"{where}: public words never seen before the cutoff: {', '.join(unknown[:10])}")
    return problems

