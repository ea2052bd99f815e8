"""A board no one can impersonate: reserved names, one folder per method name, and the ledger's
append-only submission log, checked at every tick.

- Method names: the ledger's own baselines' names are reserved (a submission under one is refused); a name
  maps to its folder injectively (:func:`method_folder`: a plain name is its own folder, any other gets a
  readable stem plus a hash of the name, so ``../x``, ``x``, ``.`` and ``..`` land in different folders),
  and a folder already holding another name's versions is refused, naming that name.
- ``submissions.log.jsonl`` (ledger root): one line per event, each carrying the sha256 of the line before
  it (``prev``), so an edited or removed line breaks the chain. Events: ``version`` (written before a
  version folder appears: round, method, folder, time, KB day, the sha256 of ``submission.json``, of the
  forecasts and of the task answers), ``clock`` (the KB's latest day, when a tick sees it advance),
  ``config`` (``ledger.json`` when it first appears to a tick and at every change: what changed), and
  ``adopted`` (a ledger made before the log: its versions recorded at the first tick, said so).
- :func:`verify` compares every stored version with the log: a version folder with no log line (made by
  hand), one whose files no longer hash as logged (edited), and a logged version that is gone (deleted)
  are problems; edited and hand-made versions are refused (their score rows never reach a board), and
  every problem is listed on the board.

The log cannot stop someone who can write the ledger and rewrites the log consistently (there is no
secret); it makes a hand edit visible instead of silently scored.
"""

from __future__ import annotations

import hashlib
import json
import os
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from foresci.core.artifacts import sha256_file
from foresci.core.errors import UserError
from foresci.core.io import dumps_line, read_json
from foresci.rounds.ledger import (
    LEDGER_FILE,
    SUBMISSIONS_DIR,
    load_config,
    load_round,
    round_dir,
    round_ids,
    slug,
)

LOG_FILE = "submissions.log.jsonl"
SUBMISSION_FILE = "submission.json"
ANSWERS_FILE = "forecasts.jsonl"
TASK_ANSWERS_FILE = "task_answers.jsonl"
RESERVED = ("always-0.5", "base-rate", "persistence", "trend", "recency", "name-only")
"""The ledger's own baselines (answered at open): no submission may take their names."""


method_folder = slug
"""The folder (and page) name of a method: :func:`foresci.rounds.ledger.slug`, injective."""


def check_name(name: str) -> None:
    """Refuse a reserved baseline name (also in another case, or one that maps to a baseline's folder)."""
    if not name.strip():
        raise UserError("the method name is empty", field="--name")
    for reserved in RESERVED:
        if name.casefold() == reserved.casefold() or method_folder(name) == method_folder(reserved):
            raise UserError(
                f"the name {name!r} is reserved for the ledger's own baseline {reserved!r}; "
                "give another --name",
                field="--name",
            )


def check_folder_owner(base: Path, name: str) -> None:
    """Refuse ``name`` when its folder already holds versions of another method (naming that method)."""
    if not base.is_dir():
        return
    for record in sorted(base.glob(f"v*/{SUBMISSION_FILE}")):
        owner = read_json(record).get("method")
        if owner is not None and owner != name:
            raise UserError(
                f"the name {name!r} collides with the existing method {owner!r} (folder {base.name}); "
                "give another --name",
                path=base,
                field="--name",
            )


def log_path(ledger: Path) -> Path:
    """The ledger's append-only submission log."""
    return ledger / LOG_FILE


def _line_hash(line: str) -> str:
    return hashlib.sha256(line.encode("utf-8")).hexdigest()


def _raw_lines(ledger: Path) -> list[str]:
    path = log_path(ledger)
    if not path.is_file():
        return []
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def append_event(ledger: Path, event: dict[str, Any]) -> dict[str, Any]:
    """Append one event, chained to the last line (caller holds the ledger's write lock)."""
    lines = _raw_lines(ledger)
    entry = {
        **event,
        "seq": len(lines) + 1,
        "at": event.get("at") or datetime.now(UTC).isoformat(),
        "prev": _line_hash(lines[-1]) if lines else "",
    }
    path = log_path(ledger)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(dumps_line(entry))
        handle.flush()
        os.fsync(handle.fileno())
    return entry


def read_log(ledger: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """The log's events and the problems of its chain (an edited, removed or reordered line)."""
    events: list[dict[str, Any]] = []
    problems: list[str] = []
    previous = ""
    for number, line in enumerate(_raw_lines(ledger), start=1):
        try:
            entry = json.loads(line)
        except ValueError:
            problems.append(f"{LOG_FILE} line {number}: not JSON (edited by hand)")
            previous = _line_hash(line)
            continue
        if entry.get("prev") != previous or entry.get("seq") != number:
            problems.append(f"{LOG_FILE} line {number}: the chain breaks (a line was edited, removed or "
                            "inserted by hand)")
        previous = _line_hash(line)
        events.append(entry)
    return events, problems


def version_files(folder: Path) -> dict[str, str | None]:
    """The hashes a version is logged with: its record and its answer files (None: absent)."""
    def digest(name: str) -> str | None:
        path = folder / name
        return sha256_file(path) if path.is_file() else None

    return {
        "record_sha256": digest(SUBMISSION_FILE),
        "sha256": digest(ANSWERS_FILE),
        "task_sha256": digest(TASK_ANSWERS_FILE),
    }


def version_event(round_id: str, relative: str, record: dict[str, Any], folder: Path) -> dict[str, Any]:
    """The ``version`` event of a version folder (``relative``: its path inside the round)."""
    return {
        "event": "version",
        "round_id": round_id,
        "method": record.get("method"),
        "version": record.get("version"),
        "folder": relative,
        "submitted_at": record.get("submitted_at"),
        "kb_day": record.get("kb_day"),
        **version_files(folder),
    }


def stored_versions(ledger: Path) -> dict[tuple[str, str], Path]:
    """(round, version folder relative to the round) -> path, for every stored version of every round."""
    found: dict[tuple[str, str], Path] = {}
    for round_id in round_ids(ledger):
        folder = round_dir(ledger, round_id)
        for path in sorted((folder / SUBMISSIONS_DIR).glob(f"*/v*/{SUBMISSION_FILE}")):
            found[(round_id, str(path.parent.relative_to(folder)))] = path.parent
    return found


def adopt(ledger: Path, reason: str) -> int:
    """Record every stored version in a ledger that has no log yet (made before the log existed, or whose
    log was removed); the ``adopted`` events say so on the board. Returns how many were recorded."""
    if log_path(ledger).is_file():
        return 0
    stored = stored_versions(ledger)
    if not stored:
        return 0
    append_event(ledger, {"event": "adopted", "reason": reason, "versions": len(stored)})
    for (round_id, relative), path in sorted(stored.items()):
        append_event(ledger, {**version_event(round_id, relative, read_json(path / SUBMISSION_FILE), path),
                              "adopted": True})
    return len(stored)


def log_version(round_folder: Path, round_id: str, version_folder: Path, relative: str) -> None:
    """Log a version about to be stored (``version_folder`` holds its files; ``round_folder`` is the round
    or the staging round being opened, under ``<ledger>/rounds/``)."""
    ledger = round_folder.parent.parent
    adopt(ledger, "the ledger had versions but no submission log when a version was submitted")
    record = read_json(version_folder / SUBMISSION_FILE)
    append_event(ledger, version_event(round_id, relative, record, version_folder))


def ledger_clock(ledger: Path) -> date | None:
    """The latest KB day the ledger has seen: logged versions and ticks, and every round's cutoff."""
    seen = [load_round(ledger, round_id).cutoff for round_id in round_ids(ledger)]
    events, _ = read_log(ledger)
    for event in events:
        if event.get("kb_day"):
            try:
                seen.append(date.fromisoformat(str(event["kb_day"])))
            except ValueError:
                continue
    return max(seen) if seen else None


def _config_state(ledger: Path) -> tuple[str, dict[str, Any]] | None:
    path = ledger / LEDGER_FILE
    if not path.is_file():
        return None
    settings = load_config(ledger).model_dump(mode="json")
    return sha256_file(path), settings


def record_events(ledger: Path, day: date) -> list[str]:
    """At a tick (under the ledger's lock): adopt a log-less ledger, record the KB clock when it advanced
    and ``ledger.json`` when it is new or changed. Returns one line per change recorded."""
    actions: list[str] = []
    adopted = adopt(ledger, "the ledger had versions but no submission log at a tick")
    if adopted:
        actions.append(f"submission log started: {adopted} stored versions adopted")
    events, _ = read_log(ledger)
    clock = [date.fromisoformat(str(event["kb_day"])) for event in events if event.get("event") == "clock"]
    if not clock or day > max(clock):
        append_event(ledger, {"event": "clock", "kb_day": day.isoformat()})
    state = _config_state(ledger)
    if state is not None:
        digest, settings = state
        configs = [event for event in events if event.get("event") == "config"]
        if not configs or configs[-1].get("sha256") != digest:
            before = configs[-1].get("settings", {}) if configs else {}
            changed = {
                key: [before.get(key), value] for key, value in settings.items() if before.get(key) != value
            } if configs else {}
            append_event(ledger, {"event": "config", "sha256": digest, "settings": settings,
                                  "changed": changed, "rounds": len(round_ids(ledger))})
            if configs:
                fields = ", ".join(sorted(changed)) or "format"
                actions.append(f"recorded a change of {LEDGER_FILE}: {fields}")
    return actions


def verify(ledger: Path) -> dict[str, Any]:
    """Every stored version against the log: the problems found, the versions refused, the log's events
    worth showing (adoptions, settings changes after the first round). Deterministic given the files, and
    unchanged by ``clock`` events (a tick that only sees a new day does not rewrite the board)."""
    events, problems = read_log(ledger)
    logged: dict[tuple[str, str], dict[str, Any]] = {}
    for event in events:
        if event.get("event") == "version":
            logged[(str(event.get("round_id")), str(event.get("folder")))] = event
    stored = stored_versions(ledger)
    refused: list[dict[str, Any]] = []
    existing_rounds = set(round_ids(ledger))
    if not log_path(ledger).is_file() and stored:
        problems.append(f"no {LOG_FILE}: the next tick adopts the {len(stored)} stored versions")
    else:
        for (round_id, relative), path in sorted(stored.items()):
            record = read_json(path / SUBMISSION_FILE)
            entry = logged.get((round_id, relative))
            where = f"{round_id}/{relative}"
            if entry is None:
                problems.append(f"{where} ({record.get('method')}): not in the submission log (added by "
                                "hand); refused")
                refused.append({"round_id": round_id, "folder": relative, "method": record.get("method"),
                                "version": record.get("version"), "why": "not logged"})
                continue
            actual = version_files(path)
            edited = [name for name in ("record_sha256", "sha256", "task_sha256")
                      if actual[name] != entry.get(name)]
            if edited or record.get("method") != entry.get("method"):
                files = {"record_sha256": SUBMISSION_FILE, "sha256": ANSWERS_FILE,
                         "task_sha256": TASK_ANSWERS_FILE}
                names = ", ".join(files[name] for name in edited) or SUBMISSION_FILE
                problems.append(f"{where} ({entry.get('method')}): {names} differ from the logged sha256 "
                                "(edited by hand); refused")
                refused.append({"round_id": round_id, "folder": relative, "method": entry.get("method"),
                                "version": entry.get("version"), "why": "edited"})
        for (round_id, relative), entry in sorted(logged.items()):
            if round_id in existing_rounds and (round_id, relative) not in stored:
                problems.append(f"{round_id}/{relative} ({entry.get('method')}): logged at "
                                f"{entry.get('submitted_at')} but not stored (deleted, or its submit was "
                                "killed before the version appeared)")
    config_events = [event for event in events if event.get("event") == "config"]
    changes = [
        {"at": event.get("at"), "changed": event.get("changed", {}), "rounds": event.get("rounds", 0)}
        for event in config_events[1:]
    ]
    problems.extend(
        f"{LEDGER_FILE} changed at {change['at']} with {change['rounds']} rounds open: "
        f"{', '.join(sorted(change['changed'])) or 'format only'}"
        for change in changes if change["rounds"]
    )
    adoptions = [{"at": event.get("at"), "reason": event.get("reason"), "versions": event.get("versions")}
                 for event in events if event.get("event") == "adopted"]
    return {
        "log": LOG_FILE,
        "problems": problems,
        "refused": refused,
        "config_changes": changes,
        "adoptions": adoptions,
    }


def usable_rows(rows: list[dict[str, Any]], report: dict[str, Any]) -> list[dict[str, Any]]:
    """Score rows without those of refused versions."""
    refused = {(entry["round_id"], entry["method"], entry["version"]) for entry in report.get("refused", [])}
    if not refused:
        return rows
    return [row for row in rows if (row["round_id"], row["method"], row["version"]) not in refused]
