"""Answer a frozen round with any method form foresci runs, or an answers file; one new version each.

A submission is refused once the round's deadline has passed on the KB's clock (the KB holds a day after
the cutoff, or the ledger already recorded the round as closed). Each accepted submission becomes
``submissions/<method>/vNNNN/`` (``forecasts.jsonl`` + ``submission.json`` with its sha256 and UTC time
stamp), created by one rename of a complete staging folder: a resubmission is the next version, never an
overwrite, and a kill leaves either the whole version or none.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, TypeVar

from foresci.contracts import Answer, ForecastAnswer
from foresci.core.artifacts import sha256_file
from foresci.core.errors import UserError
from foresci.core.io import iter_jsonl_numbered, read_json, write_json, write_jsonl
from foresci.core.locks import artifact_lock
from foresci.kb.store import last_announcement
from foresci.rounds.answering import answer_tasks_with_method, answer_with_method
from foresci.rounds.integrity import (
    check_folder_owner,
    check_name,
    ledger_clock,
    log_version,
    method_folder,
)
from foresci.rounds.ledger import (
    SUBMISSIONS_DIR,
    RoundManifest,
    check_round,
    closed_on,
    fault_point,
    round_dir,
)
from foresci.rounds.round_public import round_questions as round_questions
from foresci.rounds.round_public import round_tasks as round_tasks
from foresci.tasks.models import ForecastQuestion, Task

RowT = TypeVar("RowT", Answer, ForecastAnswer)

SUBMISSION_FILE = "submission.json"
ANSWERS_FILE = "forecasts.jsonl"
TASK_ANSWERS_FILE = "task_answers.jsonl"
TRANSCRIPTS_FILE = "transcripts.jsonl"


class DeadlineError(UserError):
    """The round no longer takes submissions."""


def check_deadline(ledger: Path, manifest: RoundManifest, kb_day: date) -> None:
    """Refuse when the round is closed (recorded), the KB already holds a day after its cutoff, or the
    ledger has already seen a later day (its submission log's KB days, a later round's cutoff): deleting
    ``closed.json`` does not let a stale KB in."""
    recorded = closed_on(ledger, manifest.round_id)
    clock = ledger_clock(ledger)
    if recorded is None and clock is not None and clock > manifest.cutoff:
        recorded = clock
    if recorded is not None or kb_day > manifest.cutoff:
        seen = recorded or kb_day
        raise DeadlineError(
            f"round {manifest.round_id} closed: its cutoff is {manifest.cutoff} and the KB "
            f"holds {seen}; submissions are refused after the deadline",
            field="deadline",
        )


def versions(folder: Path, method: str) -> list[Path]:
    """The submission versions of ``method`` in a round, oldest first."""
    base = folder / SUBMISSIONS_DIR / method_folder(method)
    if not base.is_dir():
        return []
    return sorted(
        child
        for child in base.iterdir()
        if child.is_dir() and child.name.startswith("v") and (child / SUBMISSION_FILE).is_file()
    )


def all_submissions(folder: Path) -> list[dict[str, Any]]:
    """Every submission record of a round (method, version, sha256, ...), sorted by method then version."""
    base = folder / SUBMISSIONS_DIR
    records = []
    if base.is_dir():
        for path in sorted(base.glob("*/v*/" + SUBMISSION_FILE)):
            record = read_json(path)
            record["folder"] = str(path.parent.relative_to(folder))
            records.append(record)
    return records


def commit_version(
    folder: Path,
    method: str,
    rows: Sequence[ForecastAnswer],
    source: dict[str, Any],
    kb_day: date,
    round_id: str | None = None,
    transcripts: bytes | None = None,
    task_rows: Sequence[Answer] = (),
) -> Path:
    """Write rows (and family-task answers, ``task_rows``) as the next version of ``method`` (one rename of
    a complete staging folder). The version is written to the ledger's submission log before it appears;
    a folder that holds another method's versions is refused, naming it."""
    base = folder / SUBMISSIONS_DIR / method_folder(method)
    check_folder_owner(base, method)
    base.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging.", dir=base))
    try:
        write_jsonl(staging / ANSWERS_FILE, [row.model_copy(update={"method": method}) for row in rows])
        if task_rows:
            write_jsonl(
                staging / TASK_ANSWERS_FILE, [row.model_copy(update={"method": method}) for row in task_rows]
            )
        if transcripts:
            (staging / TRANSCRIPTS_FILE).write_bytes(transcripts)
        number = len(versions(folder, method)) + 1
        while True:
            record = {
                "method": method,
                "version": number,
                "round_id": round_id or folder.name,
                "sha256": sha256_file(staging / ANSWERS_FILE),
                "rows": len(rows),
                "errors": sum(row.status == "error" for row in rows),
                **(
                    {
                        "task_rows": len(task_rows),
                        "task_sha256": sha256_file(staging / TASK_ANSWERS_FILE),
                        "task_errors": sum(row.status == "error" for row in task_rows),
                    }
                    if task_rows
                    else {}
                ),
                "submitted_at": datetime.now(UTC).isoformat(),
                "kb_day": kb_day.isoformat(),
                "source": source,
            }
            write_json(staging / SUBMISSION_FILE, record)
            target = base / f"v{number:04d}"
            relative = f"{SUBMISSIONS_DIR}/{base.name}/{target.name}"
            log_version(folder, str(record["round_id"]), staging, relative)
            fault_point("commit-staged")
            try:
                os.rename(staging, target)
                return target
            except OSError:
                if not target.exists():
                    raise
                number += 1
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _checked_rows(path: Path, model: type[RowT], key: str, known: set[str], noun: str) -> list[RowT]:
    """Rows of ``model`` read from the JSONL file ``path``: each must parse, name (in its ``key`` field)
    an item of the round (``known``) and answer it once; a one-line error naming the line otherwise."""
    rows: list[RowT] = []
    seen: set[str] = set()
    for line, raw in iter_jsonl_numbered(path):
        try:
            row = model.model_validate(raw)
        except ValueError as error:
            raise UserError(
                f"not a {noun} answer: {str(error).splitlines()[0]}", path=path, line=line
            ) from error
        item = getattr(row, key)
        if item not in known:
            raise UserError(f"{key} {item!r} is not in the round", path=path, line=line, field=key)
        if item in seen:
            raise UserError(f"{noun} {item} answered twice", path=path, line=line, field=key)
        seen.add(item)
        rows.append(row)
    return rows


def read_answers_file(
    path: Path, questions: Sequence[ForecastQuestion], name: str | None
) -> tuple[str, list[ForecastAnswer]]:
    """Rows of an answers file made elsewhere, checked against the round's questions; (method, rows)."""
    rows = _checked_rows(path, ForecastAnswer, "question_id",
                         {question.question_id for question in questions}, "forecast")
    methods = {row.method for row in rows if row.method}
    method = name or (methods.pop() if len(methods) == 1 else "")
    if not method:
        raise UserError("give --name: the answers file names no single method", path=path, field="method")
    return method, rows


def read_task_answers_file(path: Path, tasks: Sequence[Task]) -> list[Answer]:
    """Family-task answer rows (``Answer``, as ``answers.jsonl`` of a run) made elsewhere, checked against
    the round's tasks."""
    return _checked_rows(path, Answer, "task_id", {task.task_id for task in tasks}, "task")


def submit(
    ledger: Path,
    round_id: str,
    kb: Any,
    *,
    method: str | None = None,
    answers: Path | None = None,
    name: str | None = None,
    settings: Any = None,
    view_for: Callable[[date], Any] | None = None,
    trust_plugin: bool = False,
    task_answers: Path | None = None,
    inspect_log: Path | None = None,
    engine: Any = None,
) -> Path:
    """Answer round ``round_id`` and store the answers as a new version; returns the version folder.

    A method answers the round's forecast questions and its family tasks (on Ray workers with ``engine``,
    a :class:`foresci.engines.answers.RayJobEngine`: the same rows as here); an answers file made
    elsewhere gives the forecasts (``answers``) and/or the task answers (``task_answers``); an inspect eval
    log made on the round's tasks (:func:`foresci.rounds.inspect_round.round_task`) gives task answers
    (``inspect_log``, method ``name`` or ``inspect``).

    Raises :class:`DeadlineError` after the deadline (KB clock), a UserError on a tampered round.
    """
    from foresci.core.settings import Settings

    chosen = [value for value in (method, inspect_log) if value is not None]
    if len(chosen) + (answers is not None or task_answers is not None) != 1:
        raise UserError("give one of --method, --inspect-log or --answers / --task-answers", field="--method")
    ledger = Path(ledger)
    manifest = check_round(ledger, round_id)
    kb_day = last_announcement(kb)
    check_deadline(ledger, manifest, kb_day)
    folder = round_dir(ledger, round_id)
    questions = round_questions(folder, manifest)
    tasks = round_tasks(folder)
    task_rows: list[Answer] = []
    rows: list[ForecastAnswer] = []
    if inspect_log is not None:
        from foresci.rounds.inspect_round import log_rows

        label = name or "inspect"
        task_rows, record = log_rows(Path(inspect_log), tasks, round_id, manifest.public_hash, label)
        transcripts = None
        source: dict[str, Any] = {
            "kind": "inspect-log",
            "value": Path(inspect_log).name,
            "file_sha256": sha256_file(Path(inspect_log)),
            **record,
        }
    elif method is None:
        label = name or ""
        if answers is not None:
            label, rows = read_answers_file(Path(answers), questions, name)
        if task_answers is not None:
            task_rows = read_task_answers_file(Path(task_answers), tasks)
            named = {row.method for row in task_rows if row.method}
            label = label or (named.pop() if len(named) == 1 else "")
            if not label:
                raise UserError("give --name: the answers file names no single method", field="method")
        transcripts = None
        given = [path for path in (answers, task_answers) if path is not None]
        source = {
            "kind": "answers-file",
            "value": ", ".join(Path(path).name for path in given),
            "file_sha256": ", ".join(sha256_file(path) for path in given),
        }
    else:
        settings = settings or Settings()
        label, rows, transcripts = answer_with_method(
            questions, method, settings, view_for, trust_plugin, engine=engine
        )
        task_rows, task_transcripts = answer_tasks_with_method(
            tasks, method, settings, view_for, trust_plugin, engine=engine
        )
        transcripts = (transcripts or b"") + (task_transcripts or b"") or None
        label = name or label
        source = {"kind": "method", "value": method, **({"engine": "ray"} if engine is not None else {})}
    check_name(label)
    with artifact_lock(ledger, timeout=None):
        check_deadline(ledger, manifest, kb_day)
        return commit_version(
            folder, label, rows, source, kb_day, transcripts=transcripts, task_rows=task_rows
        )
