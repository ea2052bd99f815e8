"""A board no one can impersonate: reserved names, injective method folders, the submission log checked at
every tick (edited, deleted and hand-made versions reported and refused), the deadline after closed.json is
removed, and ledger.json changes recorded."""

from __future__ import annotations

import html
import json
import re
import shutil
from datetime import date
from pathlib import Path

import pytest

from foresci.core.errors import UserError
from foresci.core.io import read_json, write_json
from foresci.rounds.integrity import LOG_FILE, read_log, verify
from foresci.rounds.ledger import LEDGER_FILE, load_round, round_dir, slug
from foresci.rounds.site import build_site
from foresci.rounds.submit import DeadlineError, round_questions, submit, versions
from tests.rounds.helpers import answers_file, make_ledger, toy_tick
from tests.tasks.toy import CUTOFF, ToyKB

ROUND = f"r-{CUTOFF.isoformat()}"


@pytest.fixture()
def ledger(tmp_path: Path) -> Path:
    """A ledger whose first round was just opened at CUTOFF."""
    made = make_ledger(tmp_path)
    toy_tick(made, CUTOFF)
    return made


def _submit(ledger: Path, tmp_path: Path, name: str, probability: float = 0.3) -> Path:
    questions = round_questions(round_dir(ledger, ROUND), load_round(ledger, ROUND))
    path = answers_file(tmp_path / f"{len(list(tmp_path.iterdir()))}.jsonl", questions, probability, 1.0, "x")
    return submit(ledger, ROUND, ToyKB(until=CUTOFF), answers=path, name=name)


def _board(ledger: Path) -> dict:
    return json.loads((ledger / "board.json").read_text())


@pytest.mark.parametrize("name", ["always-0.5", "Always-0.5", "base-rate", "persistence", "trend", "recency"])
def test_baseline_names_are_reserved(ledger: Path, tmp_path: Path, name: str) -> None:
    before = len(versions(round_dir(ledger, ROUND), "always-0.5"))
    with pytest.raises(UserError, match="reserved"):
        _submit(ledger, tmp_path, name)
    assert len(versions(round_dir(ledger, ROUND), "always-0.5")) == before == 1


def test_method_names_map_to_folders_injectively(ledger: Path, tmp_path: Path) -> None:
    names = ["x", "../x", "x/..", ".", "..", "_x", "a b", "a_b"]
    assert len({slug(name) for name in names}) == len(names)
    assert slug("x") == "x" and slug("trend-v2.1") == "trend-v2.1"  # plain names keep their folder
    assert all("/" not in slug(name) and slug(name) not in (".", "..") for name in names)
    first = _submit(ledger, tmp_path, "x")
    second = _submit(ledger, tmp_path, "../x")
    assert first.parent != second.parent and first.name == second.name == "v0001"
    assert read_json(first / "submission.json")["method"] == "x"
    assert read_json(second / "submission.json")["method"] == "../x"
    assert second.parent.parent == round_dir(ledger, ROUND) / "submissions"  # never outside the round
    toy_tick(ledger, None)
    site = build_site(ledger, tmp_path / "site").parent
    pages = {path.name: path.read_text() for path in (site / "methods").glob("*.html")}
    assert pages[f"{slug('x')}.html"] != pages[f"{slug('../x')}.html"]
    assert "Method ../x" in html.unescape(pages[f"{slug('../x')}.html"])


def test_a_folder_of_another_name_is_refused_naming_it(ledger: Path, tmp_path: Path) -> None:
    made = _submit(ledger, tmp_path, "mine")
    made.parent.rename(made.parent.with_name("theirs"))  # as a ledger made before the injective names
    with pytest.raises(UserError, match="collides with the existing method 'mine'"):
        _submit(ledger, tmp_path, "theirs")


def test_edited_deleted_and_hand_made_versions_are_refused(ledger: Path, tmp_path: Path) -> None:
    edited = _submit(ledger, tmp_path, "edited", 0.9)
    deleted = _submit(ledger, tmp_path, "deleted", 0.2)
    forged_from = _submit(ledger, tmp_path, "forger", 0.9)
    toy_tick(ledger, None)
    before = {entry["method"]: entry for entry in _board(ledger)["boards"]["brier"]["methods"]}
    assert {"edited", "deleted", "forger"} <= set(before) and _board(ledger)["integrity"]["problems"] == []
    path = edited / "forecasts.jsonl"
    assert '"probability": 0.9' in path.read_text()
    path.write_text(path.read_text().replace('"probability": 0.9', '"probability": 0.1'))
    shutil.rmtree(deleted)
    forged = forged_from.with_name("v0002")  # a version folder made by hand, with a forged time stamp
    shutil.copytree(forged_from, forged)
    record = read_json(forged / "submission.json")
    write_json(forged / "submission.json", {**record, "version": 2, "submitted_at": "2025-12-30T00:00Z"})
    forged_rows = path.read_text().replace('"method": "edited"', '"method": "forger"')
    (forged / "forecasts.jsonl").write_text(forged_rows)
    toy_tick(ledger, None)
    board = _board(ledger)
    problems = "\n".join(board["integrity"]["problems"])
    assert "edited/v0001 (edited): forecasts.jsonl differ from the logged sha256" in problems
    assert "deleted/v0001 (deleted): logged at" in problems and "but not stored (deleted" in problems
    assert "forger/v0002 (forger): not in the submission log (added by hand)" in problems
    shown = {entry["method"]: entry for entry in board["boards"]["brier"]["methods"]}
    assert "edited" not in shown and "deleted" not in shown  # refused / gone: never scored silently
    assert shown["forger"]["raw_mean"] == before["forger"]["raw_mean"]  # v0001 counts, the forgery not
    refused = {(entry["method"], entry["why"]) for entry in board["integrity"]["refused"]}
    assert refused == {("edited", "edited"), ("forger", "not logged")}
    index = build_site(ledger, tmp_path / "site")
    page = index.read_text()  # the front page lists every problem
    scores = (index.parent / "data" / "scores.csv").read_text()
    assert ",edited," not in scores and ",forger,2," not in scores and ",forger,1," in scores
    shown = re.findall(r'<li class="problem">([^<]*)</li>', page)
    assert [html.unescape(text) for text in shown] == board["integrity"]["problems"]


def test_a_removed_closed_file_does_not_reopen_a_round(ledger: Path, tmp_path: Path) -> None:
    toy_tick(ledger, date(2026, 1, 5))
    assert toy_tick(ledger, date(2026, 1, 6)) == []  # a new day alone is logged, the board not rewritten
    (round_dir(ledger, ROUND) / "closed.json").unlink()
    with pytest.raises(DeadlineError, match="closed"):
        _submit(ledger, tmp_path, "late")  # a KB still at the cutoff: stale, the ledger saw 2026-01-05
    assert versions(round_dir(ledger, ROUND), "late") == []


def test_settings_changes_and_log_edits_are_recorded_and_shown(ledger: Path, tmp_path: Path) -> None:
    _submit(ledger, tmp_path, "mine")
    config = read_json(ledger / LEDGER_FILE)
    write_json(ledger / LEDGER_FILE, {**config, "min_items": 1, "seed": 5})
    actions = toy_tick(ledger, date(2026, 1, 5))
    assert f"recorded a change of {LEDGER_FILE}: min_items, seed" in actions
    board = _board(ledger)
    assert board["integrity"]["config_changes"][0]["changed"] == {"min_items": [2, 1], "seed": [1, 5]}
    assert any("ledger.json changed at" in problem for problem in board["integrity"]["problems"])
    log = ledger / LOG_FILE
    lines = log.read_text().splitlines()
    log.write_text("\n".join(lines[:1] + lines[2:]) + "\n")  # a line removed by hand
    assert any("the chain breaks" in problem for problem in read_log(ledger)[1])
    assert any("the chain breaks" in problem for problem in verify(ledger)["problems"])
