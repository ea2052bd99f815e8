"""``rounds tick``: do whatever is due, given the KB's clock; idempotent and safe to kill at any point.

In order, under the ledger's write lock: (1) open the scheduled rounds whose day has come (the latest
schedule day on or before the KB's last announcement day, and any a gap between ticks missed; each named
after its schedule day, :func:`open_due_rounds`); (2) record as
closed every round whose cutoff the KB has passed; (3) resolve every window whose end the KB covers
(forecast questions, then the family tasks of each horizon: resolved or void,
:mod:`foresci.rounds.family_tasks`); (4) score every submission version of every round with resolutions
(forecasts: Brier/CRPS; tasks: top-1 and FTA, :mod:`foresci.rounds.task_scores`); (5) rewrite the board
summary.
Every file is written atomically and only when its content changes, and each step reads what the files
say is done, so a second tick changes nothing and a tick killed anywhere is completed by the next one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from foresci.core.artifacts import sha256_file, sha256_json
from foresci.core.io import dumps_line, read_json, write_json, write_jsonl
from foresci.core.locks import artifact_lock
from foresci.evaluation.fta import TextEncoder
from foresci.kb.store import last_announcement
from foresci.rounds.family_tasks import load_frozen, resolve_tasks
from foresci.rounds.integrity import record_events, usable_rows, verify
from foresci.rounds.ledger import (
    BOARD_FILE,
    CLOSED_FILE,
    PUBLIC_DIR,
    RESOLUTIONS_DIR,
    ROUND_FILE,
    SCORES_FILE,
    TASK_SCORES_FILE,
    TASK_SCORES_INPUTS,
    RoundManifest,
    check_round,
    closed_on,
    fault_point,
    load_config,
    load_round,
    round_dir,
    round_id_for,
    round_ids,
    schedule_days,
)
from foresci.rounds.open import open_round
from foresci.rounds.scores import board_sections, read_scores, resolved_outcomes, score_round, top1_chance
from foresci.rounds.slot_fta import encoder_name, round_encoder
from foresci.rounds.submit import all_submissions, round_questions, round_tasks
from foresci.rounds.task_scores import score_tasks, task_counts, task_resolution_path
from foresci.tasks.forecast import load_package, resolve_questions
from foresci.taxonomy.models import Snapshot
from foresci.taxonomy.rules import TaxonomyRules


def write_jsonl_if_changed(path: Path, rows: list[dict[str, Any]]) -> bool:
    """Write rows atomically unless the file already holds exactly them; True when written."""
    text = "".join(dumps_line(row) for row in rows)
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    write_jsonl(path, rows)
    return True


def write_json_if_changed(path: Path, value: dict[str, Any]) -> bool:
    """Write a JSON document atomically unless it already holds the same value; True when written."""
    import json

    if path.is_file() and json.loads(path.read_text(encoding="utf-8")) == json.loads(json.dumps(value)):
        return False
    write_json(path, value)
    return True


def due_schedule_days(ledger: Path, day: date) -> list[date]:
    """The schedule days on or before ``day`` that opened no round yet, oldest first: the latest one, and
    the days a gap between ticks missed (those after the ledger's latest scheduled round; a ledger that
    opened none yet starts at the latest day, not at every day since ``--start``)."""
    days = schedule_days(load_config(ledger), day)
    scheduled = [load_round(ledger, round_id).scheduled_for for round_id in round_ids(ledger)]
    opened = {when for when in scheduled if when is not None}
    if not days or days[-1] in opened:
        return []
    last = max(opened, default=days[-1] - timedelta(days=1))
    return [when for when in days if when > last]


def open_due_rounds(ledger: Path, kb: Any, day: date, open_one: Callable[..., str]) -> list[str]:
    """Open every due scheduled round (:func:`due_schedule_days`), each named after its schedule day.

    The latest is frozen at the KB's last day ``day``, so that it can still be answered; a missed one is
    frozen at its own schedule day (the KB read as it stood then), and since the KB has passed that day its
    deadline has passed too: only the baselines answer it, and it resolves and scores like any other."""
    actions: list[str] = []
    due = due_schedule_days(ledger, day)
    for scheduled in due:
        latest = scheduled == due[-1]
        round_id = round_id_for(scheduled)
        if round_dir(ledger, round_id).is_dir() or (latest and round_dir(ledger, round_id_for(day)).is_dir()):
            continue  # a round opened by hand under that name, or at this KB day
        cutoff = day if latest else scheduled
        opened = open_one(scheduled_for=scheduled, cutoff=cutoff, round_id=round_id)
        if latest and cutoff == scheduled:
            actions.append(f"opened {opened} (scheduled {scheduled})")
        elif latest:
            actions.append(f"opened {opened} (scheduled {scheduled}, frozen at the KB's last day {cutoff})")
        else:
            actions.append(f"opened {opened} (scheduled {scheduled}, missed: frozen at {cutoff}, past its "
                           "deadline: only the baselines answer it)")
        fault_point("open")
    return actions


def board_inputs(ledger: Path) -> str:
    """A fingerprint of everything the board is computed from (the board is recomputed only when it moves)."""
    state: dict[str, Any] = {"config": load_config(ledger).model_dump(mode="json")}
    for round_id in round_ids(ledger):
        folder = round_dir(ledger, round_id)
        files = [
            folder / ROUND_FILE,
            folder / CLOSED_FILE,
            folder / SCORES_FILE,
            folder / TASK_SCORES_FILE,
            *sorted((folder / RESOLUTIONS_DIR).glob("*.jsonl")),
        ]
        state[round_id] = {
            "files": {str(path.relative_to(folder)): sha256_file(path) for path in files if path.is_file()},
            "submissions": [
                (record["method"], record["version"], record["sha256"]) for record in all_submissions(folder)
            ],
        }
    state["integrity"] = verify(ledger)
    return sha256_json(state)


def summary(ledger: Path) -> dict[str, Any]:
    """The board summary: rounds, both boards, rank stability (deterministic: no clock values)."""
    config = load_config(ledger)
    ids = round_ids(ledger)
    rounds = []
    for round_id in ids:
        manifest = load_round(ledger, round_id)
        folder = round_dir(ledger, round_id)
        closed = closed_on(ledger, round_id)
        resolved = resolved_outcomes(folder, manifest)
        submissions = all_submissions(folder)
        rounds.append(
            {
                "round_id": round_id,
                "cutoff": manifest.cutoff.isoformat(),
                "scheduled_for": manifest.scheduled_for.isoformat() if manifest.scheduled_for else None,
                "closed_on": closed.isoformat() if closed else None,
                "items": manifest.items,
                "resolved": len(resolved),
                "public_hash": manifest.public_hash,
                "windows": {
                    window: {**span, "resolved": (folder / RESOLUTIONS_DIR / f"{window}.jsonl").is_file()}
                    for window, span in manifest.windows.items()
                },
                "counts": manifest.counts,
                "tasks": task_counts(folder, manifest),
                "submissions": [
                    {
                        "method": record["method"],
                        "version": record["version"],
                        "sha256": record["sha256"],
                        "submitted_at": record["submitted_at"],
                        "kb_day": record["kb_day"],
                        "rows": record["rows"],
                    }
                    for record in submissions
                ],
            }
        )
    integrity = verify(ledger)  # refused versions (edited, hand-made) never reach a board
    rows = usable_rows(read_scores(ledger, ids), integrity)
    return {
        "rounds": rounds,
        **board_sections(rows, config, top1_chance(ledger, ids)),
        "integrity": integrity,
        "config": config.model_dump(mode="json"),
    }


def resolve_due_tasks(folder: Path, manifest: RoundManifest, kb: Any, day: date,
                      encoder: TextEncoder | None = None) -> list[str]:
    """Resolve the family tasks of every horizon whose window the KB covers (once: the file stays;
    ``encoder``: the KB's embedder, for the bottleneck tasks' same-node check)."""
    actions: list[str] = []
    pending = [
        horizon
        for horizon, span in sorted(manifest.task_windows.items())
        if not task_resolution_path(folder, horizon).is_file() and day >= date.fromisoformat(span["end"])
    ]
    if not pending:
        return actions
    frozen, task_settings, snapshots = load_frozen(folder / PUBLIC_DIR)
    for horizon in pending:
        rows = resolve_tasks(frozen, horizon, kb, task_settings, snapshots,
                             None if encoder is None else encoder.encode)
        write_jsonl(task_resolution_path(folder, horizon), rows)
        void = sum(row["status"] == "void" for row in rows)
        actions.append(f"resolved {manifest.round_id} tasks-{horizon} ({len(rows)} tasks, {void} void)")
        fault_point("resolve-tasks")
    return actions


def score_due_tasks(folder: Path, manifest: RoundManifest, encoder: TextEncoder | None = None) -> list[str]:
    """Score the family tasks when their resolutions, the submissions or the slot FTA's embedder changed
    since the last scoring."""
    paths = [task_resolution_path(folder, horizon) for horizon in sorted(manifest.task_windows)]
    present = [path for path in paths if path.is_file()]
    if not present:
        return []
    inputs = sha256_json(
        {
            "resolutions": {path.name: sha256_file(path) for path in present},
            "submissions": [
                (record["method"], record["version"], record["sha256"], record.get("task_sha256"))
                for record in all_submissions(folder)
            ],
            "encoder": encoder_name(encoder),
        }
    )
    marker = folder / TASK_SCORES_INPUTS
    if marker.is_file() and read_json(marker).get("inputs") == inputs:
        return []
    rows = score_tasks(folder, manifest, round_tasks(folder), encoder)
    changed = write_jsonl_if_changed(folder / TASK_SCORES_FILE, rows)
    write_json(marker, {"inputs": inputs})  # after the rows: a kill in between rescores next tick
    return [f"scored {manifest.round_id} tasks ({len(rows)} rows)"] if changed else []


def tick(
    ledger: Path | str,
    kb: Any,
    settings: Any = None,
    *,
    snapshots: Mapping[str, Snapshot] | None = None,
    view_for: Callable[[date], Any] | None = None,
    taxonomy_dir: Path | None = None,
    encoder: TextEncoder | None = None,
    rules: TaxonomyRules | None = None,
) -> list[str]:
    """Do what is due on ``kb``'s clock; returns one line per change made (empty when nothing was due).

    ``encoder``: the embedder of the bottleneck tasks' same-node check and of the slot FTA (default: the
    KB's own model, :func:`foresci.rounds.slot_fta.round_encoder`; none when the KB names none). ``rules``:
    the taxonomy's rule files (None: read once here), handed to every round it opens."""
    from foresci.core.settings import Settings

    ledger = Path(ledger)
    settings = settings or Settings()
    if encoder is None:
        encoder = round_encoder(kb, settings)
    rules = rules or TaxonomyRules.load(settings.taxonomy)
    actions: list[str] = []
    with artifact_lock(ledger, timeout=None):
        day = last_announcement(kb)
        actions.extend(open_due_rounds(ledger, kb, day, lambda **when: open_round(
            ledger, kb, settings, snapshots=snapshots, view_for=view_for, taxonomy_dir=taxonomy_dir,
            encoder=encoder, rules=rules, **when)))
        fault_point("open")
        for round_id in round_ids(ledger):
            manifest = check_round(ledger, round_id)
            folder = round_dir(ledger, round_id)
            if closed_on(ledger, round_id) is None and day > manifest.cutoff:
                write_json(folder / CLOSED_FILE, {"closed_on": day.isoformat()})
                actions.append(f"closed {round_id} on {day}")
            fault_point("close")
            for window, span in manifest.windows.items():
                target = folder / RESOLUTIONS_DIR / f"{window}.jsonl"
                if target.is_file() or day < date.fromisoformat(span["end"]):
                    continue
                questions, frozen = load_package(folder / PUBLIC_DIR / window)
                write_jsonl(target, resolve_questions(questions, frozen, kb))
                actions.append(f"resolved {round_id} {window} ({len(questions)} questions)")
                fault_point("resolve")
            actions.extend(resolve_due_tasks(folder, manifest, kb, day, encoder))
            if resolved_outcomes(folder, manifest):
                rows = score_round(folder, manifest, round_questions(folder, manifest))
                if write_jsonl_if_changed(folder / SCORES_FILE, rows):
                    actions.append(f"scored {round_id} ({len(rows)} rows)")
                fault_point("score")
            actions.extend(score_due_tasks(folder, manifest, encoder))
        actions.extend(record_events(ledger, day))
        inputs = board_inputs(ledger)
        board_path = ledger / BOARD_FILE
        current = read_json(board_path) if board_path.is_file() else {}
        if current.get("inputs") != inputs and write_json_if_changed(
            board_path, {**summary(ledger), "inputs": inputs}
        ):
            actions.append("board updated")
    return actions
