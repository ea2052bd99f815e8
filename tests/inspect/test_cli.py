"""``foresci inspect``: the task file it writes runs under ``inspect eval``; a log whose replies are no
answers imports as error rows; a missing log is a one-line error; --help teaches the loop."""

from __future__ import annotations

from pathlib import Path

import pytest

from foresci.agents.answers import read_answers
from foresci.tasks.release import load_release
from tests.inspect.scripted_agent import scripted_model
from tests.methods.conftest import Foresci
from tests.realllm.world import SmallWorld

pytestmark = pytest.mark.slow


def test_the_task_file_runs_under_inspect_and_its_log_imports(small_world: SmallWorld, foresci: Foresci,
                                                               tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from inspect_ai import eval as inspect_eval

    task_file = tmp_path / "foresci_task.py"
    written = foresci("inspect", "task", str(small_world.release_dir), "--kb", str(small_world.kb_dir),
                      "--out", str(task_file))
    assert written.returncode == 0, written.stderr[-3000:]
    assert f"inspect eval {task_file}" in written.stdout
    # inspect loads the file as `inspect eval foresci_task.py` does (from the working folder); the model
    # searches and then gives no answer: the sample is unscored and its imported row an error row. (The
    # `inspect eval` command itself is not run: its mockllm/model counts tokens with tiktoken, which
    # downloads its encoding on first use.)
    monkeypatch.chdir(tmp_path)
    tasks = load_release(small_world.release_dir).tasks
    log = inspect_eval(task_file.name, model=scripted_model(tasks, answers=False), log_dir="logs",
                       display="none", limit=1)[0]
    assert log.status == "success", log.error
    assert log.eval.metadata["foresci_kb"] == str(small_world.kb_dir.resolve())
    assert all(score.unscored_samples == 1 for score in log.results.scores)
    run = tmp_path / "run"
    imported = foresci("inspect", "import", str(tmp_path / log.location), "--release",
                       str(small_world.release_dir), "--out", str(run), "--method", "mock_agent",
                       "--version", "1.0")
    assert imported.returncode == 0, imported.stderr[-3000:]
    assert "1 answer(s) (1 errors) of mock_agent @1.0" in imported.stdout
    (row,) = read_answers(run / "answers.jsonl")
    assert row.status == "error" and "no JSON object" in (row.error or "") and row.version == "1.0"


def test_errors_are_one_line_and_help_teaches_the_loop(small_world: SmallWorld, foresci: Foresci,
                                                      tmp_path: Path) -> None:
    missing = foresci("inspect", "import", str(tmp_path / "nope.eval"), "--release",
                      str(small_world.release_dir), "--out", str(tmp_path / "run"))
    assert missing.returncode == 1 and missing.stderr.strip().count("\n") == 0
    assert "nope.eval: no such inspect log file" in missing.stderr
    not_release = foresci("inspect", "task", str(tmp_path), "--out", str(tmp_path / "t.py"))
    assert not_release.returncode == 1 and "tasks.jsonl" in not_release.stderr
    shown = foresci("inspect", "--help")
    assert shown.returncode == 0
    for words in ("inspect eval foresci_task.py", "foresci inspect import", "task", "import"):
        assert words in shown.stdout, words
