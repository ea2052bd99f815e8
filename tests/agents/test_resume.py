"""Kill-and-resume: ``foresci run`` killed with SIGKILL mid-run completes the missing rows, no duplicates."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from foresci.agents.answers import answer_key, read_answers, repair_torn_tail
from foresci.core.io import write_jsonl
from tests.agents.responders import answering_responder
from tests.agents.toy import toy_tasks
from tests.support.openai_server import ScriptedOpenAIServer


def _release(folder: Path, copies: int) -> int:
    tasks = []
    for copy in range(copies):
        for task in toy_tasks():
            tasks.append(task.model_copy(update={"task_id": f"{task.task_id}-{copy}"}))
    write_jsonl(folder / "tasks.jsonl", tasks)
    return len(tasks)


def scripted_env(server: ScriptedOpenAIServer, cache: Path) -> dict[str, str]:
    """The environment of a `foresci run` subprocess answering through the scripted server."""
    return {
        **os.environ,
        "FORESCI_LLM__BASE_URL": server.base_url,
        "FORESCI_CACHE_DIR": str(cache),
        "FORESCI_AGENTS__CONCURRENCY": "1",
        "FORESCI_LLM__MODEL": "scripted-model",
    }


def _run_cli(release: Path, out: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    command = [
        sys.executable,
        "-c",
        "from foresci.cli import main; main()",
        "run",
        str(release),
        "--method",
        "native",
        "--out",
        str(out),
        "--no-progress",
    ]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


@pytest.mark.slow
def test_kill_and_resume(tmp_path: Path) -> None:
    total = _release(tmp_path, copies=3)
    out = tmp_path / "run"
    slow_down = {"on": True}

    def slow(request: dict[str, Any]) -> Any:
        if slow_down["on"]:
            time.sleep(0.4)
        return answering_responder(request)

    with ScriptedOpenAIServer(responder=slow) as server:
        env = scripted_env(server, tmp_path / "c")
        process = _run_cli(tmp_path, out, env)
        answers = out / "answers.jsonl"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if answers.is_file() and answers.read_text().count("\n") >= 3:
                break
            assert process.poll() is None, process.stdout.read().decode() if process.stdout else ""
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait()
        before = read_answers(answers)
        assert 3 <= len(before) < total, "the kill must land mid-run"
        with answers.open("a") as handle:  # a row torn by the kill
            handle.write('{"task_id": "toy-direction_forecasting-2", "fam')
        slow_down["on"] = False
        rerun = _run_cli(tmp_path, out, env)
        output = rerun.communicate(timeout=120)[0].decode()
        assert rerun.returncode == 0, output
    rows = read_answers(answers)
    keys = [answer_key(row) for row in rows]
    assert len(keys) == len(set(keys)) == total
    assert rows[: len(before)] == before, "rows written before the kill must stay as they were"
    assert all(row.status == "ok" for row in rows)
    assert (out / "manifest.json").is_file()


def test_repair_torn_tail(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text('{"a": 1}\n{"b": 2}\n{"c":')
    assert repair_torn_tail(path) == len('{"c":')
    assert path.read_text() == '{"a": 1}\n{"b": 2}\n'
    path.write_text('{"a": 1}\n{"b": \n')
    repair_torn_tail(path)
    assert path.read_text() == '{"a": 1}\n'
    assert repair_torn_tail(path) == 0
