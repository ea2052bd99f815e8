"""An inspect eval log made on a round's public tasks (``rounds inspect-task``: the round as an inspect task,
run with inspect's ``mockllm/model``, no network) is a submission like any other: a new hashed, time-stamped
version of task answers, refused after the deadline and when made on another round's files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from foresci.core.errors import UserError
from foresci.core.io import iter_jsonl, read_json
from foresci.rounds.ledger import round_dir
from foresci.rounds.submit import DeadlineError, round_tasks, submit, versions
from tests.inspect.conftest import inspect_installed, only_loopback  # noqa: F401  (autouse guards)
from tests.inspect.scripted_agent import scripted_answer, scripted_model
from tests.rounds.helpers import make_ledger, toy_tick
from tests.tasks.toy import CUTOFF, ToyKB

ROUND = f"r-{CUTOFF.isoformat()}"


def _eval(task: Any, tasks: list[Any], logs: Path) -> Path:
    from inspect_ai import eval as inspect_eval

    (log,) = inspect_eval(task, model=scripted_model(tasks), log_dir=str(logs), display="none")
    assert log.status == "success", log.error
    return Path(log.location)


def test_inspect_log_is_a_round_submission(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from foresci.rounds.inspect_round import write_task_file

    ledger = make_ledger(tmp_path)
    toy_tick(ledger, CUTOFF)
    folder = round_dir(ledger, ROUND)
    tasks = round_tasks(folder)
    assert tasks
    task_file = write_task_file(ledger, ROUND, tmp_path / "round_task.py")
    monkeypatch.chdir(tmp_path)  # inspect globs a task file relative to the working directory
    log = _eval(task_file.name, tasks, tmp_path / "logs")
    first = submit(ledger, ROUND, ToyKB(until=CUTOFF), inspect_log=log, name="my-agent")
    second = submit(ledger, ROUND, ToyKB(until=CUTOFF), inspect_log=log, name="my-agent")
    assert [path.name for path in versions(folder, "my-agent")] == ["v0001", "v0002"]
    record = read_json(first / "submission.json")
    assert record["source"]["kind"] == "inspect-log" and record["source"]["model"] == "mockllm/model"
    assert record["source"]["samples"] == len(tasks) == record["task_rows"]
    assert record["rows"] == 0 and record["task_errors"] == 0 and record["submitted_at"]
    assert record["task_sha256"] == read_json(second / "submission.json")["task_sha256"]
    rows = list(iter_jsonl(first / "task_answers.jsonl"))
    assert [row["task_id"] for row in rows] == [task.task_id for task in tasks]
    for task, row in zip(tasks, rows, strict=True):
        assert row["method"] == "my-agent" and row["status"] == "ok"
        expected = scripted_answer(task)
        if "ranking" in expected:
            assert [item["option_id"] for item in row["payload"]["ranking"]] == [
                item["option_id"] for item in expected["ranking"]
            ]
        else:  # direction or bottleneck: the scripted fields as given
            assert {key: row["payload"].get(key) for key in expected} == expected
    with pytest.raises(DeadlineError):
        submit(ledger, ROUND, ToyKB(until=CUTOFF.replace(year=2026, month=1, day=2)), inspect_log=log)
    assert len(versions(folder, "my-agent")) == 2
    toy_tick(ledger, None)  # the windows close: the tick scores the inspect submission like the others
    scored = [row for row in iter_jsonl(folder / "task_scores.jsonl") if row["method"] == "my-agent"]
    assert scored and {row["version"] for row in scored} == {1, 2}
    top1 = read_json(ledger / "board.json")["family_boards"]["top1"]
    assert "my-agent" in {entry["method"] for entry in top1["methods"]}


def test_inspect_log_of_other_files_is_refused(tmp_path: Path) -> None:
    from foresci.rounds.inspect_round import round_task

    ledger = make_ledger(tmp_path)
    toy_tick(ledger, CUTOFF)
    folder = round_dir(ledger, ROUND)
    tasks = round_tasks(folder)
    task = round_task(ledger, ROUND)
    task.metadata["foresci_round_hash"] = "0" * 64  # a log made on other public files
    log = _eval(task, tasks, tmp_path / "logs")
    with pytest.raises(UserError, match="other public files"):
        submit(ledger, ROUND, ToyKB(until=CUTOFF), inspect_log=log)
    assert versions(folder, "inspect") == []
