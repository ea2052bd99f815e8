"""The ledger folder: its settings, its rounds and their public manifests (paths and small readers)."""

from __future__ import annotations

import hashlib
import os
import re
import signal
from datetime import date, timedelta
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from foresci.core.artifacts import sha256_file, sha256_json
from foresci.core.errors import UserError
from foresci.core.io import read_json, write_json

LEDGER_FILE = "ledger.json"
ROUND_FILE = "round.json"
CLOSED_FILE = "closed.json"
ROUNDS_DIR = "rounds"
PUBLIC_DIR = "public"
RESOLUTIONS_DIR = "resolutions"
SUBMISSIONS_DIR = "submissions"
SCORES_FILE = "scores.jsonl"
TASK_SCORES_FILE = "task_scores.jsonl"
TASK_SCORES_INPUTS = "task_scores.inputs.json"
BOARD_FILE = "board.json"
KILL_ENV = "FORESCI_ROUNDS_KILL_AT"  # fault injection for the kill -9 tests: the name of a fault point


def fault_point(step: str) -> None:
    """SIGKILL this process when ``FORESCI_ROUNDS_KILL_AT`` names ``step`` (the kill -9 tests' hook)."""
    if os.environ.get(KILL_ENV) == step:
        os.kill(os.getpid(), signal.SIGKILL)


def default_families() -> list[str]:
    """A new ledger's ``families``: every registered family with a ``round_default`` place, by that place
    (ties in registry order)."""
    from foresci.tasks.families.lookup import registered

    placed = [family for family in registered() if family.round_default is not None]
    return [family.name for family in sorted(placed, key=lambda family: family.round_default)]


class LedgerConfig(BaseModel):
    """How a ledger opens and ranks rounds (``ledger.json``)."""

    model_config = ConfigDict(extra="forbid")

    schedule: Literal["month-end", "every-n-days", "manual"] = Field(
        default="month-end", description="when tick opens a round"
    )
    every_days: int = Field(default=14, ge=1, description="spacing of rounds for every-n-days")
    start: date | None = Field(default=None, description="no scheduled round before this day")
    end: date | None = Field(default=None, description="no scheduled round after this day (None: no end)")
    windows: list[str] = Field(default_factory=lambda: ["3m"], description="forecast windows per round")
    questions: int | None = Field(
        default=None, ge=1,
        description="node and venue questions per window (None: the `rounds.questions` setting; stratified "
        "rule in foresci.tasks.forecast.supply_questions)",
    )
    families: list[str] = Field(
        default_factory=lambda: default_families(),
        description="task families frozen prospectively, in this order (foresci.rounds.family_tasks, "
        "through each family's round hooks; default: the registered families with a `round_default` place)",
    )
    family_tasks: int = Field(default=4, ge=0, description="tasks per family and window (0: none)")
    emergence_questions: int | None = Field(
        default=None,
        ge=0,
        description="binary concept-pair (ceq-) questions per window, beside `questions` (when the family "
        "writing them is in `families`; None: the `rounds.emergence_questions` setting)",
    )
    min_items: int = Field(default=50, ge=1, description="resolved items a method needs to be ranked")
    bootstrap: int = Field(
        default=2000,
        ge=10,
        description="bootstrap resamples (of items, or of whole rounds once a board holds 8 rounds)",
    )
    seed: int = Field(default=0, description="seed of the bootstrap")
    entry_se: dict[str, float] = Field(
        default_factory=dict,
        description="entry by precision: board -> the largest bootstrap SE of a method's difference from "
        "the reference at which it is ranked (issue 41 suggests brier 0.01, top1 0.025; empty: off)",
    )


class RoundManifest(BaseModel):
    """What a frozen round publishes about itself (``round.json``)."""

    model_config = ConfigDict(extra="forbid")

    round_id: str
    cutoff: date = Field(description="the KB's last announcement day when the round was frozen")
    scheduled_for: date | None = Field(default=None, description="the schedule day that opened it")
    deadline_rule: str = "submissions are refused once the KB holds a day after the cutoff"
    windows: dict[str, dict[str, str]] = Field(description="window -> {start, end}")
    files: dict[str, str] = Field(description="public file (relative to the round) -> sha256")
    public_hash: str = Field(description="sha256 over the public files' hashes")
    items: int
    counts: dict[str, Any] = Field(default_factory=dict)
    tasks: int = Field(default=0, description="family tasks frozen (public/tasks/)")
    task_windows: dict[str, dict[str, str]] = Field(
        default_factory=dict, description="task horizon -> {start, end}"
    )
    created_at: str


def load_config(ledger: Path) -> LedgerConfig:
    """The ledger's settings (defaults when the ledger has no ledger.json yet)."""
    path = ledger / LEDGER_FILE
    return LedgerConfig.model_validate(read_json(path)) if path.is_file() else LedgerConfig()


def init_ledger(ledger: Path, config: LedgerConfig) -> None:
    """Write ``ledger.json`` (refused when the ledger already has different settings)."""
    path = ledger / LEDGER_FILE
    if path.is_file() and load_config(ledger) != config:
        raise UserError("the ledger already has other settings", path=path)
    if not path.is_file():
        write_json(path, config)


def round_dir(ledger: Path, round_id: str) -> Path:
    """The folder of one round."""
    return ledger / ROUNDS_DIR / round_id


def round_ids(ledger: Path) -> list[str]:
    """Every frozen round (staging folders excluded), in cutoff order."""
    folder = ledger / ROUNDS_DIR
    if not folder.is_dir():
        return []
    return sorted(
        child.name
        for child in folder.iterdir()
        if child.is_dir() and not child.name.startswith(".") and (child / ROUND_FILE).is_file()
    )


def round_id_for(cutoff: date) -> str:
    """The id of the round frozen at ``cutoff``."""
    return f"r-{cutoff.isoformat()}"


def load_round(ledger: Path, round_id: str) -> RoundManifest:
    """A round's manifest; a one-line error when the round does not exist."""
    path = round_dir(ledger, round_id) / ROUND_FILE
    if not path.is_file():
        raise UserError(f"no round {round_id!r} in the ledger", path=path)
    return RoundManifest.model_validate(read_json(path))


def public_files(folder: Path) -> dict[str, str]:
    """sha256 of every file under ``folder/public`` (relative paths)."""
    base = folder / PUBLIC_DIR
    return {
        str(path.relative_to(folder)): sha256_file(path)
        for path in sorted(base.rglob("*"))
        if path.is_file() and not path.name.startswith(".")
    }


def check_round(ledger: Path, round_id: str) -> RoundManifest:
    """The round's manifest after checking every public file against its frozen hash (tamper refused)."""
    manifest = load_round(ledger, round_id)
    folder = round_dir(ledger, round_id)
    actual = public_files(folder)
    if sha256_json(manifest.files) != manifest.public_hash:
        raise UserError(
            "public_hash does not match the listed file hashes (tampered manifest)",
            path=folder / ROUND_FILE,
            field="public_hash",
        )
    for name, digest in manifest.files.items():
        if actual.get(name) != digest:
            raise UserError(f"hash mismatch: {name} differs from the frozen round", path=folder / name)
    extra = sorted(set(actual) - set(manifest.files))
    if extra:
        raise UserError(f"file not in the frozen round: {extra[0]}", path=folder / extra[0])
    return manifest


def closed_on(ledger: Path, round_id: str) -> date | None:
    """The deadline day recorded for the round (None while it is open)."""
    path = round_dir(ledger, round_id) / CLOSED_FILE
    return date.fromisoformat(read_json(path)["closed_on"]) if path.is_file() else None


def month_ends(start: date, until: date) -> list[date]:
    """Every month's last day in [start, until]."""
    days = []
    cursor = date(start.year, start.month, 1)
    while cursor <= until:
        following = date(cursor.year + cursor.month // 12, cursor.month % 12 + 1, 1)
        last = following - timedelta(days=1)
        if start <= last <= until:
            days.append(last)
        cursor = following
    return days


def schedule_days(config: LedgerConfig, until: date) -> list[date]:
    """The schedule's days up to ``until`` (from ``config.start``, and at most ``config.end``)."""
    if config.schedule == "manual" or config.start is None:
        return []
    if config.end is not None:
        until = min(until, config.end)
    if config.schedule == "month-end":
        return month_ends(config.start, until)
    days = []
    cursor = config.start
    while cursor <= until:
        days.append(cursor)
        cursor += timedelta(days=config.every_days)
    return days


PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*")


def slug(name: str) -> str:
    """The folder (and page) name of a method, injective: a plain name (letters, digits, ``_``, ``-`` and
    inner dots, at most 80 characters) is its own folder; any other name gets a readable stem and
    ``~`` + 12 hex digits of its sha256 (``~`` never occurs in a plain name), so ``../x`` and ``x``, or
    ``.`` and ``..``, never share a folder."""
    if len(name) <= 80 and PLAIN_NAME.fullmatch(name):
        return name
    stem = re.sub(r"[^A-Za-z0-9_-]+", "_", name).strip("_")[:60] or "method"
    return f"{stem}~{hashlib.sha256(name.encode('utf-8')).hexdigest()[:12]}"
