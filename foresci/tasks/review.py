"""Curation of a release (#44): a review sheet a researcher reads and fills in, and the recorded review.

``foresci tasks review RELEASE`` writes ``review/sheet.html`` (per task: the public side, the hidden key,
the evidence papers' titles when a KB is given, and the release checks' flags) and ``review/sheet.csv``
(one row per task; the reviewer fills ``decision`` with approve, reject or edit, ``note``, and for an
edit the new ``question`` text). ``--apply SHEET`` records it: rejected tasks leave ``tasks.jsonl`` and
``hidden.jsonl``, edited tasks get the new question, every decision is written to ``review.jsonl``, and
the manifest holds the review's sha256 and counts (``counts.review``), re-hashing the files it changed.
:func:`review_line` is the line every report prints about it.
"""

from __future__ import annotations

import csv
import html
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from foresci.core.artifacts import sha256_file
from foresci.core.errors import UserError
from foresci.core.io import read_json, write_json, write_jsonl
from foresci.tasks.hidden import HiddenTarget
from foresci.tasks.hidden_io import HIDDEN_FILE, load_hidden, write_hidden
from foresci.tasks.models import Task
from foresci.tasks.release import TASKS_FILE, load_release

REVIEW_FILE = "review.jsonl"
COLUMNS = ("task_id", "family", "domain", "title", "key", "flags", "decision", "note", "question")
DECISIONS = ("approve", "reject", "edit")


def key_text(task: Task, hidden: HiddenTarget | None) -> str:
    """The hidden key in words: the ranking by option names (first = answer), else the named answer."""
    if hidden is None:
        return "(no hidden target)"
    names = {candidate.option_id: candidate.name for candidate in task.candidates}
    ranking = list(getattr(hidden, "ranking", []) or [])
    parts = [" > ".join(names.get(option, option) for option in ranking)] if ranking else []
    for field in ("trajectory", "bottleneck", "opportunity"):
        value = getattr(hidden, field, None)
        if value:
            parts.append(f"{field}: {value if isinstance(value, str) else '; '.join(map(str, value))}")
    return " | ".join(parts) or "(key in hidden.jsonl)"


def task_flags(tasks: Sequence[Task], hidden: Mapping[str, HiddenTarget]) -> dict[str, list[str]]:
    """task id -> the release checks it fails (:func:`foresci.tasks.release_checks.audit_checks`)."""
    from foresci.core.settings import Settings
    from foresci.tasks.release_checks import audit_checks

    flags: dict[str, list[str]] = {task.task_id: [] for task in tasks}
    figures = audit_checks(tasks, hidden, Settings().tasks)
    for check, ids in figures["flagged"].items():
        for task_id in ids:
            if task_id in flags:
                flags[task_id].append(check)
    return flags


def write_sheet(release: Path, out: Path | None = None,
                titles: Callable[[Sequence[str]], Mapping[str, str]] | None = None) -> tuple[Path, Path]:
    """Write the review sheet of ``release`` (HTML and CSV) into ``out`` (default ``release/review``);
    ``titles``: paper id -> title lookup for the evidence papers (ids are shown without it)."""
    loaded = load_release(release)
    hidden = load_hidden(release)
    flags = task_flags(loaded.tasks, hidden)
    folder = out or release / "review"
    folder.mkdir(parents=True, exist_ok=True)
    evidence = {task.task_id: list(getattr(hidden.get(task.task_id), "evidence_ids", []) or [])[:5]
                for task in loaded.tasks}
    known = dict(titles(sorted({paper for ids in evidence.values() for paper in ids}))) if titles else {}
    sections = [_task_html(task, hidden.get(task.task_id), flags[task.task_id],
                           [(paper, known.get(paper, "")) for paper in evidence[task.task_id]])
                for task in loaded.tasks]
    page = ("<!doctype html><html><head><meta charset='utf-8'><title>review of "
            f"{html.escape(release.name)}</title><style>body{{font-family:sans-serif;max-width:60em;margin:auto}}"
            ".flag{color:#a00}section{border-bottom:1px solid #ccc;padding:.5em 0}</style></head><body>"
            f"<h1>Review sheet: {html.escape(str(release))}</h1><p>{len(loaded.tasks)} tasks. Fill "
            "sheet.csv: decision = approve, reject or edit (with the new question), note = why.</p>"
            + "".join(sections) + "</body></html>")
    html_path, csv_path = folder / "sheet.html", folder / "sheet.csv"
    html_path.write_text(page, encoding="utf-8")
    with csv_path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        for task in loaded.tasks:
            writer.writerow({"task_id": task.task_id, "family": task.family, "domain": task.domain,
                             "title": task.title, "key": key_text(task, hidden.get(task.task_id)),
                             "flags": " ".join(flags[task.task_id]), "decision": "", "note": "",
                             "question": ""})
    return html_path, csv_path


def _task_html(task: Task, hidden: HiddenTarget | None, flags: Sequence[str],
               papers: Sequence[tuple[str, str]]) -> str:
    escape = html.escape
    options = "".join(f"<li><b>{escape(c.option_id)}</b> {escape(c.name)}"
                      + (f" — {escape(c.description)}" if c.description else "") + "</li>"
                      for c in task.candidates)
    evidence = "".join(f"<li>{escape(paper)} {escape(title)}</li>" for paper, title in papers)
    flagged = (f"<p class='flag'>flags: {escape(', '.join(flags))}</p>" if flags
               else "<p>flags: none</p>")
    return (f"<section id='{escape(task.task_id)}'><h2>{escape(task.task_id)}: {escape(task.title)}</h2>"
            f"<p>{escape(task.family)} · {escape(task.domain)} · {escape(task.horizon)}</p>"
            f"<p>{escape(task.question)}</p><ol type='A'>{options}</ol>"
            f"<p><b>key</b>: {escape(key_text(task, hidden))}</p>"
            f"<p><b>evidence</b>:</p><ul>{evidence or '<li>none recorded</li>'}</ul>{flagged}</section>")


def read_sheet(sheet: Path, known: set[str]) -> list[dict[str, str]]:
    """The decided rows of a filled sheet; a bad row is a one-line error naming the file, line and field."""
    rows: list[dict[str, str]] = []
    with sheet.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        present = set(reader.fieldnames or [])
        missing = [column for column in ("task_id", "decision", "note") if column not in present]
        if missing:
            raise UserError(f"the sheet has no column {missing[0]!r}", path=sheet, line=1, field=missing[0])
        seen: set[str] = set()
        for row in reader:
            line = reader.line_num
            task_id = (row.get("task_id") or "").strip()
            decision = (row.get("decision") or "").strip().lower()
            if task_id not in known:
                raise UserError(f"task {task_id!r} is not in the release", path=sheet, line=line,
                                field="task_id")
            if task_id in seen:
                raise UserError(f"task {task_id!r} is reviewed twice", path=sheet, line=line, field="task_id")
            seen.add(task_id)
            if not decision:
                continue
            if decision not in DECISIONS:
                raise UserError(f"decision {decision!r} is not one of {', '.join(DECISIONS)}", path=sheet,
                                line=line, field="decision")
            question = (row.get("question") or "").strip()
            if decision == "edit" and not question:
                raise UserError("an edit needs the new question text", path=sheet, line=line,
                                field="question")
            rows.append({"task_id": task_id, "decision": decision, "note": (row.get("note") or "").strip(),
                         "question": question if decision == "edit" else ""})
    return rows


def apply_sheet(release: Path, sheet: Path, reviewer: str) -> dict[str, Any]:
    """Record a filled sheet on ``release`` (see the module text); returns ``counts.review``."""
    loaded = load_release(release)
    hidden = load_hidden(release)
    rows = read_sheet(sheet, {task.task_id for task in loaded.tasks})
    decided = {row["task_id"]: row for row in rows}
    kept: list[Task] = []
    for task in loaded.tasks:
        row = decided.get(task.task_id)
        if row is not None and row["decision"] == "reject":
            continue
        if row is not None and row["decision"] == "edit":
            task = task.model_copy(update={"question": row["question"]})
        kept.append(task)
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    write_jsonl(release / REVIEW_FILE, [{**row, "reviewer": reviewer, "at": stamp} for row in rows])
    write_jsonl(release / TASKS_FILE, kept)
    write_hidden(release, [hidden[task.task_id] for task in kept if task.task_id in hidden])
    tally = Counter(row["decision"] for row in rows)
    review = {"sha256": sha256_file(release / REVIEW_FILE), "sheet_sha256": sha256_file(sheet),
              "reviewer": reviewer, "at": stamp, "tasks_before": len(loaded.tasks),
              "approved": tally["approve"], "rejected": tally["reject"], "edited": tally["edit"],
              "undecided": len(loaded.tasks) - len(rows)}
    manifest = read_json(release / "manifest.json")
    hashes = dict(manifest.get("hashes") or {})
    for name in (TASKS_FILE, HIDDEN_FILE, REVIEW_FILE):
        hashes[name] = sha256_file(release / name)
    counts = dict(manifest.get("counts") or {})
    counts.update({"review": review, "tasks": len(kept)})
    manifest.update({"hashes": hashes, "counts": counts})
    write_json(release / "manifest.json", manifest)
    return review


def review_line(manifest: Mapping[str, Any]) -> str:
    """One line saying whether and how a release was reviewed (printed by every report on it)."""
    review = (manifest.get("counts") or {}).get("review")
    if not review:
        return "review: not reviewed (foresci tasks review)"
    return (f"review: reviewed by {review['reviewer']} at {review['at']}: {review['approved']} approved, "
            f"{review['rejected']} rejected, {review['edited']} edited, {review['undecided']} undecided "
            f"(review.jsonl sha256 {str(review['sha256'])[:12]})")
