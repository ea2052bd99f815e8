"""Checks ``foresci run`` makes on a release before answering anything.

Every task must have cutoff < window start <= window end, a known family and (when a KB is given) a
domain the KB knows; task ids must be unique. A bad release is refused as a whole: answering some tasks
of a release whose windows overlap their cutoffs would let methods read window papers.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from foresci.core.errors import UserError
from foresci.tasks.families import family_names
from foresci.tasks.models import ForecastQuestion, Task


def task_problems(task: Task, domains: Iterable[str] | None) -> list[tuple[str, str]]:
    """(field, problem) pairs of one task; empty when the task may be answered."""
    problems: list[tuple[str, str]] = []
    if not task.cutoff < task.window_start:
        problems.append(
            (
                "cutoff",
                f"cutoff {task.cutoff} is not before the window start {task.window_start} "
                "(methods would read window papers)",
            )
        )
    if task.window_start > task.window_end:
        problems.append(
            ("window_end", f"window end {task.window_end} is before its start {task.window_start}")
        )
    if task.family not in family_names():
        problems.append(("family", f"unknown family {task.family!r}; expected one of {list(family_names())}"))
    known = None if domains is None else set(domains)
    if known is not None and task.domain not in known:
        problems.append(("domain", f"domain {task.domain!r} is not in the KB (it has {sorted(known)})"))
    return problems


def check_tasks(tasks: list[Task], path: Path | None, domains: Iterable[str] | None = None) -> None:
    """Refuse a release with a bad task or a repeated task id (UserError naming file, line and field).

    ``tasks`` are in file order, so task ``i`` is on line ``i + 1`` of ``path`` (None: tasks given in
    code; the line is then the task's position); ``domains`` None skips the domain check (no KB given).
    """
    domain_list = None if domains is None else list(domains)
    first_line: dict[str, int] = {}
    bad: list[UserError] = []
    for line, task in enumerate(tasks, start=1):
        if task.task_id in first_line:
            bad.append(
                UserError(
                    f"duplicate task id {task.task_id!r} (first on line {first_line[task.task_id]})",
                    path=path,
                    line=line,
                    field="task_id",
                )
            )
        first_line.setdefault(task.task_id, line)
        bad.extend(
            UserError(f"task {task.task_id}: {problem}", path=path, line=line, field=field)
            for field, problem in task_problems(task, domain_list)
        )
    if bad:
        more = (
            f" (and {len(bad) - 1} more problems; nothing was answered)"
            if len(bad) > 1
            else " (nothing was answered)"
        )
        first = bad[0]
        raise UserError(first.message + more, path=first.path, line=first.line, field=first.field)


def question_problems(question: ForecastQuestion, domains: Iterable[str] | None) -> list[tuple[str, str]]:
    """(field, problem) pairs of one forecast question; empty when it may be answered."""
    problems: list[tuple[str, str]] = []
    if not question.cutoff < question.window_start <= question.window_end:
        problems.append(("window_start", f"needs cutoff {question.cutoff} < window start "
                         f"{question.window_start} <= window end {question.window_end}"))
    if question.kind == "binary" and question.baseline is not None and not 0 <= question.baseline <= 1:
        problems.append(("baseline", f"a binary question's baseline is a probability, "
                         f"got {question.baseline}"))
    known = None if domains is None else set(domains)
    if known is not None and question.domain not in known:
        problems.append(("domain", f"domain {question.domain!r} is not in the KB (it has {sorted(known)})"))
    return problems


def check_questions(questions: list[ForecastQuestion], path: Path | None,
                    domains: Iterable[str] | None = None) -> None:
    """Refuse forecast questions with a bad window, baseline or domain (UserError naming file, line, field).

    Question ``i`` is on line ``i + 1`` of ``path`` (ids are already unique: the loader checks them).
    """
    domain_list = None if domains is None else list(domains)
    for line, question in enumerate(questions, start=1):
        problems = question_problems(question, domain_list)
        if problems:
            field, problem = problems[0]
            raise UserError(f"question {question.question_id}: {problem} (nothing was answered)", path=path,
                            line=line, field=field)
