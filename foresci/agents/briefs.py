"""What a method is told about a task: the brief (full or name-only) and evidence blocks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from foresci.core.fencing import escape, fence
from foresci.kb.models import Paper
from foresci.tasks.models import Task

Mode = Literal["full", "name_only"]



def _context_lines(context: dict[str, Any]) -> list[str]:
    lines = []
    for key, value in sorted(context.items()):
        if isinstance(value, list | tuple):
            value = ", ".join(str(item) for item in value)
        elif isinstance(value, dict):
            value = "; ".join(f"{inner}: {item}" for inner, item in value.items())
        lines.append(f"- {key.replace('_', ' ')}: {value}")
    return lines


def task_brief(task: Task, mode: Mode = "full") -> str:
    """The task as the model reads it. ``name_only``: the question and candidate names, nothing else.

    Candidate names and descriptions and the context (node names, paper titles: text derived from the KB)
    are fenced as data (:mod:`foresci.core.fencing`); the title and question have any fence tag escaped.
    """
    if mode == "name_only":
        lines = [f"Question (decide as of {task.cutoff.isoformat()}): {escape(task.question)}"]
        if task.candidates:
            lines.append("Candidates:")
            lines.append(fence("candidates", "\n".join(f"- {candidate.option_id}: {candidate.name}"
                                                        for candidate in task.candidates)))
        return "\n".join(lines)
    lines = [f"Task: {escape(task.title)}",
             f"Domain: {task.domain}. Cutoff: {task.cutoff.isoformat()}. Forecast window: "
             f"{task.window_start.isoformat()} to {task.window_end.isoformat()} ({task.horizon}).",
             f"Question: {escape(task.question)}"]
    if task.candidates:
        lines.append("Candidates:")
        listed = []
        for candidate in task.candidates:
            detail = f" - {candidate.description}" if candidate.description else ""
            listed.append(f"- {candidate.option_id}: {candidate.name}{detail}")
        lines.append(fence("candidates", "\n".join(listed)))
    if task.context:
        lines.append("Context known at the cutoff:")
        lines.append(fence("task_context", "\n".join(_context_lines(task.context))))
    if task.deliverable:
        lines.append("Requirements:")
        lines.extend(f"- {escape(item)}" for item in task.deliverable)
    return "\n".join(lines)


def name_only_task(task: Task) -> Task:
    """The task as a name-only method receives it: the question and candidate names, no title, context,
    requirements or candidate descriptions (what :func:`task_brief` shows in name-only mode)."""
    candidates = [candidate.model_copy(update={"description": "", "node_id": None})
                  for candidate in task.candidates]
    return task.model_copy(update={"title": task.question, "candidates": candidates, "context": {},
                                   "deliverable": []})


def task_queries(task: Task) -> list[str]:
    """Deterministic search queries for a task: its title, then each candidate (or the context)."""
    queries = [task.title]
    queries.extend(f"{candidate.name} {candidate.description}".strip() for candidate in task.candidates)
    if not task.candidates:
        for key in ("sub_direction", "contribution", "node_label", "topic"):
            value = task.context.get(key)
            if isinstance(value, str) and value:
                queries.append(value)
    return list(dict.fromkeys(query for query in queries if query))


def evidence_block(papers: Sequence[Paper], excerpt_chars: int = 280) -> str:
    """Papers as lines '[id] (date) title — abstract excerpt' (ids are what answers cite)."""
    if not papers:
        return "(no papers found)"
    lines = []
    for paper in papers:
        excerpt = " ".join(paper.abstract.split())[:excerpt_chars]
        venue = f" [{paper.venue_family}]" if paper.venue_family else ""
        lines.append(f"[{paper.paper_id}] ({paper.announced.isoformat()}){venue} {paper.title} — {excerpt}")
    return "\n".join(lines)


def candidate_ids(task: Task) -> list[str]:
    """The option ids of the task's candidates, in task order."""
    return [candidate.option_id for candidate in task.candidates]
