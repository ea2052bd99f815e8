"""The curation step end to end on a small generated release: review sheet, filled sheet applied, the
manifest holding the review's hash, and reports saying the release was reviewed (#44)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from typer.testing import CliRunner

from foresci.cli import app
from foresci.core.artifacts import sha256_file
from foresci.core.io import iter_jsonl
from foresci.core.settings import Settings
from foresci.tasks.build import build_release
from foresci.tasks.hidden_io import load_hidden
from foresci.tasks.release import load_release
from foresci.tasks.validate import validate_release
from tests.tasks.toy import CUTOFF, ToyKB


@pytest.fixture()
def release(tmp_path: Path) -> Path:
    kb = ToyKB()
    settings = Settings()
    settings.tasks.min_support = 5
    settings.tasks.enforce_gates = False
    return build_release(kb, tmp_path / "release", CUTOFF, settings=settings, per_family=3,
                         snapshots={"toy": kb.snapshot})


def _fill(sheet: Path, decisions: dict[int, tuple[str, str, str]]) -> list[dict[str, str]]:
    with sheet.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for index, (decision, note, question) in decisions.items():
        rows[index].update({"decision": decision, "note": note, "question": question})
    with sheet.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return rows


def test_review_sheet_applied_end_to_end(release: Path) -> None:
    runner = CliRunner()
    before = load_release(release)
    assert len(before.tasks) >= 3
    written = runner.invoke(app, ["tasks", "review", str(release)])
    assert written.exit_code == 0, written.output
    page = (release / "review" / "sheet.html").read_text(encoding="utf-8")
    assert all(task.task_id in page for task in before.tasks) and "key</b>" in page and "flags" in page
    rows = _fill(release / "review" / "sheet.csv",
                 {0: ("approve", "clear target", ""), 1: ("reject", "premise false", ""),
                  2: ("edit", "reworded", "Which of these grows fastest?")})
    assert [row["task_id"] for row in rows] == [task.task_id for task in before.tasks]
    assert rows[0]["key"]  # the hidden key is on the sheet for the reviewer
    refused = runner.invoke(app, ["tasks", "review", str(release), "--apply",
                                  str(release / "review" / "sheet.csv")])
    assert refused.exit_code != 0  # no reviewer named
    applied = runner.invoke(app, ["tasks", "review", str(release), "--apply",
                                  str(release / "review" / "sheet.csv"), "--reviewer", "ada"])
    assert applied.exit_code == 0, applied.output
    after = load_release(release)  # verifies the re-hashed files
    ids = [task.task_id for task in after.tasks]
    assert rows[1]["task_id"] not in ids and len(ids) == len(before.tasks) - 1
    assert set(load_hidden(release)) == set(ids)
    assert after.task(rows[2]["task_id"]).question == "Which of these grows fastest?"
    review = after.manifest["counts"]["review"]
    assert review["sha256"] == sha256_file(release / "review.jsonl")
    assert (review["approved"], review["rejected"], review["edited"]) == (1, 1, 1)
    assert review["undecided"] == len(before.tasks) - 3
    recorded = list(iter_jsonl(release / "review.jsonl"))
    assert [(row["task_id"], row["decision"], row["note"], row["reviewer"]) for row in recorded] == [
        (rows[0]["task_id"], "approve", "clear target", "ada"),
        (rows[1]["task_id"], "reject", "premise false", "ada"),
        (rows[2]["task_id"], "edit", "reworded", "ada")]
    assert validate_release(release) == []
    for command in (["tasks", "audit", str(release)], ["tasks", "validate", str(release)]):
        shown = runner.invoke(app, command)
        assert shown.exit_code == 0 and "reviewed by ada" in shown.output, shown.output


def test_a_bad_sheet_row_names_file_line_and_field(release: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["tasks", "review", str(release)]).exit_code == 0
    sheet = release / "review" / "sheet.csv"
    _fill(sheet, {1: ("maybe", "", "")})
    result = runner.invoke(app, ["tasks", "review", str(release), "--apply", str(sheet), "--reviewer", "ada"])
    assert result.exit_code != 0
    assert str(result.exception).startswith(f"{sheet}:3: decision:")  # the CLI prints it as one line
    _fill(sheet, {1: ("edit", "", "")})
    result = runner.invoke(app, ["tasks", "review", str(release), "--apply", str(sheet), "--reviewer", "ada"])
    assert str(result.exception).startswith(f"{sheet}:3: question:")
    assert "review" not in load_release(release).manifest["counts"]  # nothing recorded
