"""A ledger over the toy world: rounds at month ends, the KB's clock moved by truncating the toy KB."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from foresci.core.io import write_jsonl
from foresci.core.settings import Settings
from foresci.rounds.ledger import LedgerConfig, init_ledger
from foresci.rounds.tick import tick
from tests.tasks.toy import CUTOFF, ToyKB

WINDOW_END = date(2026, 3, 31)  # the 3m window after CUTOFF


def toy_settings() -> Settings:
    """Settings under which the toy world yields questions of every family."""
    settings = Settings()
    settings.tasks.min_support = 5
    return settings


def make_ledger(root: Path, min_items: int = 2) -> Path:
    """A month-end ledger starting in December 2025 (its first round opens at CUTOFF)."""
    ledger = root / "ledger"
    init_ledger(
        ledger,
        LedgerConfig(
            schedule="month-end",
            start=date(2025, 12, 1),
            windows=["3m"],
            questions=8,
            min_items=min_items,
            bootstrap=40,
            seed=1,
        ),
    )
    return ledger


def toy_tick(ledger: Path, until: date | None) -> list[str]:
    """Tick the ledger on the toy KB truncated at ``until`` (None: the whole toy world)."""
    kb = ToyKB(until=until)
    return tick(ledger, kb, toy_settings(), snapshots={"toy": ToyKB(until=CUTOFF).snapshot})


def answers_file(path: Path, questions: list[Any], probability: float, scale: float, method: str) -> Path:
    """A forecasts.jsonl made 'elsewhere': one probability on binary, baseline x scale on numeric."""
    rows = []
    for question in questions:
        if question.kind == "binary":
            rows.append({"question_id": question.question_id, "method": method, "probability": probability})
        else:
            middle = float(question.baseline or 0.0) * scale
            rows.append(
                {
                    "question_id": question.question_id,
                    "method": method,
                    "p10": middle / 2,
                    "p50": middle,
                    "p90": middle * 2,
                }
            )
    write_jsonl(path, rows)
    return path


def file_bytes(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (lock files aside) -> its bytes."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.name.startswith(".foresci.lock")
    }


def task_answers_file(path: Path, tasks: list[Any], method: str, pick: int = 0) -> Path:
    """A task answers.jsonl made 'elsewhere': each task's option at position ``pick`` first."""
    rows = []
    for task in tasks:
        order = [candidate.option_id for candidate in task.candidates]
        order = order[pick:] + order[:pick]
        if task.family == "direction_forecasting":
            payload: dict[str, Any] = {"direction": order[0], "trajectory": "steady", "rationale": "r"}
        elif task.family == "bottleneck_opportunity":  # the option named by its phrase, not its letter
            named = next(candidate.name for candidate in task.candidates if candidate.option_id == order[0])
            payload = {"bottleneck": named, "opportunity": "o", "mechanism": "m"}
        else:
            payload = {"ranking": [{"option_id": option, "reason": "r"} for option in order]}
        rows.append({"task_id": task.task_id, "family": task.family, "method": method, "payload": payload,
                     "text": f"{order[0]} first"})
    write_jsonl(path, rows)
    return path
