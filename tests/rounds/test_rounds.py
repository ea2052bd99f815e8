"""Rounds on the toy world: deadline, versions, tamper, idempotent tick, no early resolution, scoring."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from foresci.core.errors import UserError
from foresci.core.io import iter_jsonl
from foresci.rounds.ledger import check_round, load_round, round_dir, round_ids
from foresci.rounds.submit import DeadlineError, round_questions, submit, versions
from tests.rounds.helpers import WINDOW_END, answers_file, file_bytes, make_ledger, toy_tick
from tests.tasks.toy import CUTOFF, ToyKB

ROUND = f"r-{CUTOFF.isoformat()}"


@pytest.fixture()
def ledger(tmp_path: Path) -> Path:
    """A ledger whose first round was just opened at CUTOFF."""
    made = make_ledger(tmp_path)
    assert toy_tick(made, CUTOFF)[0] == f"opened {ROUND} (scheduled {CUTOFF})"
    return made


def _questions(ledger: Path) -> list:
    return round_questions(round_dir(ledger, ROUND), load_round(ledger, ROUND))


def test_open_freezes_public_files_and_baselines(ledger: Path) -> None:
    manifest = check_round(ledger, ROUND)
    questions = _questions(ledger)
    assert manifest.cutoff == CUTOFF and manifest.items == len(questions) == 8
    assert set(manifest.counts["by_family"]) == {  # 8 questions over the 6 default rules in rotation
        "bottleneck_opportunity",
        "direction_forecasting",
        "strategic_planning",
        "venue_positioning",
    }
    assert set(manifest.counts["by_rule"]) <= set(manifest.counts["supply"]["rules"])
    assert "count_growth" not in manifest.counts["supply"]["rules"]  # off by default (rounds.rules)
    assert all(name.startswith("public/") for name in manifest.files)
    folder = round_dir(ledger, ROUND)
    assert not (folder / "resolutions").exists()  # hidden targets only at resolution
    assert len(versions(folder, "always-0.5")) == 1
    assert len(versions(folder, "base-rate")) == 1


def test_submit_before_deadline_then_refused_after(ledger: Path, tmp_path: Path) -> None:
    made = answers_file(tmp_path / "mine.jsonl", _questions(ledger), 0.3, 1.0, "mine")
    first = submit(ledger, ROUND, ToyKB(until=CUTOFF), answers=made)
    assert (first / "forecasts.jsonl").is_file()
    with pytest.raises(DeadlineError, match="closed"):
        submit(ledger, ROUND, ToyKB(until=date(2026, 1, 2)), answers=made)
    toy_tick(ledger, date(2026, 1, 2))
    with pytest.raises(DeadlineError):  # recorded as closed: an older KB cannot reopen it
        submit(ledger, ROUND, ToyKB(until=CUTOFF), answers=made)
    assert len(versions(round_dir(ledger, ROUND), "mine")) == 1


def test_resubmission_keeps_both_versions(ledger: Path, tmp_path: Path) -> None:
    questions = _questions(ledger)
    first = submit(
        ledger,
        ROUND,
        ToyKB(until=CUTOFF),
        answers=answers_file(tmp_path / "a.jsonl", questions, 0.2, 1.0, "mine"),
    )
    second = submit(
        ledger,
        ROUND,
        ToyKB(until=CUTOFF),
        answers=answers_file(tmp_path / "b.jsonl", questions, 0.8, 2.0, "mine"),
    )
    assert (first.name, second.name) == ("v0001", "v0002")
    records = [json.loads((folder / "submission.json").read_text()) for folder in (first, second)]
    assert records[0]["sha256"] != records[1]["sha256"]
    assert all(record["submitted_at"] and record["kb_day"] == CUTOFF.isoformat() for record in records)
    assert [
        row["probability"]
        for row in iter_jsonl(first / "forecasts.jsonl")
        if "probability" in row and row["probability"] is not None
    ][0] == 0.2
    toy_tick(ledger, None)
    rows = list(iter_jsonl(round_dir(ledger, ROUND) / "scores.jsonl"))
    assert {row["version"] for row in rows if row["method"] == "mine"} == {1, 2}
    board = json.loads((ledger / "board.json").read_text())["boards"]["brier"]
    mine = next(entry for entry in board["methods"] if entry["method"] == "mine")
    latest = [
        row["score"]
        for row in rows
        if row["method"] == "mine" and row["version"] == 2 and row["metric"] == "brier"
    ]
    assert mine["raw_mean"] == pytest.approx(sum(latest) / len(latest), abs=1e-6)


def test_tampered_round_is_refused(ledger: Path, tmp_path: Path) -> None:
    path = round_dir(ledger, ROUND) / "public" / "3m" / "forecast.jsonl"
    path.write_text(path.read_text().replace("papers", "paper", 1))
    with pytest.raises(UserError, match="hash mismatch"):
        submit(
            ledger,
            ROUND,
            ToyKB(until=CUTOFF),
            answers=answers_file(tmp_path / "a.jsonl", [], 0.2, 1.0, "mine"),
        )
    with pytest.raises(UserError, match="hash mismatch"):
        toy_tick(ledger, None)


def test_tick_is_idempotent(ledger: Path) -> None:
    for day in (CUTOFF, date(2026, 1, 10), WINDOW_END, None):
        toy_tick(ledger, day)
        before = file_bytes(ledger)
        assert toy_tick(ledger, day) == []
        assert file_bytes(ledger) == before


def test_resolution_never_before_the_window_closes(ledger: Path) -> None:
    folder = round_dir(ledger, ROUND)
    actions = toy_tick(ledger, date(2026, 3, 30))
    assert f"closed {ROUND} on 2026-03-30" in actions
    assert not any(action.startswith("resolved") for action in actions)
    assert not (folder / "resolutions").exists() and not (folder / "scores.jsonl").exists()
    actions = toy_tick(ledger, WINDOW_END)
    assert f"resolved {ROUND} 3m (8 questions)" in actions
    outcomes = list(iter_jsonl(folder / "resolutions" / "3m.jsonl"))
    assert {row["question_id"] for row in outcomes} == {
        question.question_id for question in _questions(ledger)
    }


def test_board_entry_rule_and_reference(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path, min_items=3)
    toy_tick(ledger, CUTOFF)
    submit(
        ledger,
        ROUND,
        ToyKB(until=CUTOFF),
        answers=answers_file(tmp_path / "few.jsonl", _questions(ledger)[:2], 0.9, 1.0, "few"),
    )
    toy_tick(ledger, None)
    board = json.loads((ledger / "board.json").read_text())["boards"]["brier"]
    entries = {entry["method"]: entry for entry in board["methods"]}
    assert entries["always-0.5"]["score"] == pytest.approx(0.25)  # the stated reference
    assert entries["always-0.5"]["ranked"] and entries["always-0.5"]["rank"] is not None
    assert (
        entries["few"]["answered_items"] < 3
        and not entries["few"]["ranked"]
        and entries["few"]["rank"] is None
    )
    # unanswered items are imputed: few counts every resolved item of its round (always-0.5 also answered
    # the rounds the jump to 2026-06-30 missed, opened by the same tick)
    assert entries["few"]["answered_items"] < entries["few"]["items"] < entries["always-0.5"]["items"]
    assert round_ids(ledger) == [ROUND, *(f"r-2026-{month}" for month in
                                          ("01-31", "02-28", "03-31", "04-30", "05-31", "06-30"))]
