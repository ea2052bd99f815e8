"""Bring your own agent, as a user does it: ``foresci run`` / ``foresci eval`` in a subprocess on a
generated world, with the installed example plug-in, a ``module:obj`` plug-in from a temp folder, an HTTP
agent served by the test, and a plug-in that tries to reach hidden targets and post-cutoff papers."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

from foresci.agents.answers import read_answers, read_forecasts
from foresci.contracts import family_schema
from foresci.tasks.models import Task
from foresci.tasks.release import load_release
from tests.methods.conftest import Foresci
from tests.realllm.world import SmallWorld

EXAMPLE = "momentum_vote"


def _rows(run: Path) -> list[Any]:
    return read_answers(run / "answers.jsonl")


def _tasks(world: SmallWorld) -> list[Task]:
    return load_release(world.release_dir).tasks


def _answer_for(task: dict[str, Any]) -> dict[str, Any]:
    """A valid answer to a public task JSON: the first option / the options in task order."""
    options = [candidate["option_id"] for candidate in task.get("candidates", [])]
    if task["family"] == "direction_forecasting":
        return {"direction": options[0], "trajectory": "steady", "rationale": "first option"}
    if task["family"] == "bottleneck_opportunity":
        return {"bottleneck": "data scarcity", "opportunity": "synthetic data", "mechanism": "more data"}
    return {"ranking": [{"option_id": option} for option in options]}


def test_installed_example_plugin_runs_and_is_evaluated(small_world: SmallWorld, foresci: Foresci,
                                                         tmp_path: Path) -> None:
    installed = {entry.name for entry in entry_points(group="foresci.methods")}
    if EXAMPLE not in installed:
        pytest.fail("the example plug-in is not installed: make examples "
                    "(pip install -e examples/foresci-example-agent)")
    run = tmp_path / "run"
    result = foresci("run", str(small_world.release_dir), "--kb", str(small_world.kb_dir),
                     "--method", EXAMPLE, "--out", str(run), "--no-progress")
    assert result.returncode == 0, result.stderr[-3000:]
    rows = _rows(run)
    assert len(rows) == len(_tasks(small_world)) and all(row.status == "ok" for row in rows), rows
    for row in rows:
        family_schema(row.family).model_validate(row.payload)
        assert row.method == EXAMPLE and row.model is None and row.llm_calls == 0
        assert row.support is not None and row.support.tool_calls and row.evidence == "retrieved"
        assert row.support.evidence, "the cited ids are linked as evidence"
    result = foresci("eval", str(run), "--release", str(small_world.release_dir), "--offline")
    assert result.returncode == 0, result.stderr[-3000:]
    summary = json.loads((run / "summary.json").read_text())
    assert summary["counts"]["scored"] == len(rows)
    scores = [json.loads(line) for line in (run / "scores.jsonl").read_text().splitlines()]
    versions = {row.version for row in rows}
    assert len(versions) == 1 and next(iter(versions)).startswith("src:"), "the plug-in's source hash"
    assert {score["method"] for score in scores} == {f"{EXAMPLE}@{next(iter(versions))}"}
    assert all(score["trace_offline"] is not None for score in scores if "trace_offline" in score)


TUTORIAL = Path(__file__).resolve().parents[2] / "docs" / "tutorials" / "your-own-agent.md"


def readme_blocks() -> list[str]:
    """The Python code blocks of the tutorial 'Your own agent' (the plug-in, the HTTP agent), in order."""
    text = TUTORIAL.read_text(encoding="utf-8")
    return [block.split("```", 1)[0] for block in text.split("```python\n")[1:]]


def test_plugin_loaded_by_module_and_object_from_a_folder(small_world: SmallWorld, foresci: Foresci,
                                                           tmp_path: Path) -> None:
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "my_agent.py").write_text(readme_blocks()[0])  # the tutorial's plug-in, as a user copies it
    run = tmp_path / "run"
    arguments = ["run", str(small_world.release_dir), "--kb", str(small_world.kb_dir), "--method",
                 "my_agent:first_option", "--out", str(run), "--no-progress"]
    result = foresci(*arguments, path=(folder,))
    assert result.returncode == 0, result.stderr[-3000:]
    rows = _rows(run)
    assert {row.method for row in rows} == {"first_option"}
    assert all(row.status == "ok" and row.support and row.support.retrieved for row in rows), rows
    # the tutorial's plug-in cites the first paper it found in every answer
    assert all(row.support.evidence for row in rows), "the cited id is linked as evidence"
    cutoff = max(task.cutoff for task in _tasks(small_world))
    assert all(item.announced <= cutoff for row in rows for item in row.support.retrieved)
    missing = foresci("run", str(small_world.release_dir), "--method", "my_agent:nothing", "--out",
                      str(tmp_path / "r2"), path=(folder,))
    assert missing.returncode != 0
    message = [line for line in missing.stderr.splitlines() if "nothing" in line]
    assert message == ["error: foresci run: Invalid value for --method: cannot load method "
                       "'my_agent:nothing': my_agent has no attribute 'nothing'"], missing.stderr[-2000:]


class _Agent(BaseHTTPRequestHandler):
    """An HTTP agent: answers each task it is POSTed; fails the first request with 503."""

    bodies: list[dict[str, Any]]
    fail_first: list[bool]

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.bodies.append(body)
        if self.fail_first:
            self.fail_first.pop()
            self._send(503, {"error": "warming up"})
            return
        if body.get("task_id", "").startswith("bo-"):
            self._send(200, {"direction": "A"})  # not a bottleneck answer: an error row
            return
        self._send(200, {"answer": _answer_for(body), "support": {"queries": ["remote query"]}})

    def _send(self, status: int, data: Any) -> None:
        payload = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        return None


@pytest.fixture
def http_agent() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    bodies: list[dict[str, Any]] = []
    handler = type("Agent", (_Agent,), {"bodies": bodies, "fail_first": [True]})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/answer", bodies
    finally:
        server.shutdown()
        server.server_close()


def test_http_agent_gets_the_public_task_and_its_answer_is_validated(
    small_world: SmallWorld, foresci: Foresci, tmp_path: Path, http_agent: tuple[str, list[dict[str, Any]]]
) -> None:
    url, bodies = http_agent
    run = tmp_path / "run"
    result = foresci("run", str(small_world.release_dir), "--method", url, "--out", str(run), "--no-progress",
                     env={"FORESCI_LLM__MAX_RETRIES": "2"})
    rows = {row.task_id: row for row in _rows(run)}
    tasks = {task.task_id: task for task in _tasks(small_world)}
    assert result.returncode == 0, result.stderr[-3000:]
    assert set(rows) == set(tasks) and {row.method for row in rows.values()} == {url}
    # the body is the public task and nothing else (the first request was answered 503 and retried)
    assert len(bodies) == len(tasks) + 1
    for body in bodies:
        expected = tasks[body["task_id"]].model_dump(mode="json")
        assert Task.model_validate(body).model_dump(mode="json") == expected
    hidden = (small_world.release_dir / "hidden.jsonl").read_text()
    targets = [json.loads(line) for line in hidden.splitlines()]
    sent = json.dumps(bodies)
    for target in targets:
        for slot in ("primary_bottleneck", "preferred_order", "unlocked_opportunity"):
            value = target.get(slot)
            if isinstance(value, str) and len(value) > 12:
                assert value not in sent, f"hidden {slot} reached the agent"
    for task_id, row in rows.items():
        if task_id.startswith("bo-"):
            assert row.status == "error"
            assert "answered outside the BottleneckAnswer schema" in (row.error or ""), row.error
        else:
            assert row.status == "ok", row.error
            assert row.payload == family_schema(row.family).model_validate(_answer_for(
                tasks[task_id].model_dump(mode="json"))).model_dump(mode="json")
            assert row.support is not None and row.support.queries == ["remote query"]


def _with_questions(world: SmallWorld, folder: Path) -> Path:
    """A copy of the world's public tasks with a numeric and a binary forecast question."""
    folder.mkdir()
    (folder / "tasks.jsonl").write_text((world.release_dir / "tasks.jsonl").read_text())
    task = _tasks(world)[0]
    common = {"domain": task.domain, "cutoff": task.cutoff.isoformat(), "window_start": "2030-01-01",
              "window_end": "2030-06-30", "resolution_rule": "count"}
    questions = [{"question_id": "q-count", "kind": "numeric", "text": "How many?", "baseline": 10.0,
                  **common},
                 {"question_id": "q-yes", "kind": "binary", "text": "Will it?", "baseline": 0.3, **common}]
    (folder / "forecast.jsonl").write_text("".join(json.dumps(row) + "\n" for row in questions))
    return folder


def test_readme_http_agent_answers_every_task(small_world: SmallWorld, foresci: Foresci,
                                              tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = tmp_path / "agent_server.py"
    server.write_text(readme_blocks()[1].replace("8765", str(port)))
    process = subprocess.Popen([sys.executable, str(server)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as client:
                if client.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)
        run = tmp_path / "run"
        release = _with_questions(small_world, tmp_path / "release")
        result = foresci("run", str(release), "--method", f"http://127.0.0.1:{port}/",
                         "--out", str(run), "--no-progress")
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert result.returncode == 0, result.stderr[-3000:]
    rows = _rows(run)
    assert len(rows) == len(_tasks(small_world)) and all(row.status == "ok" for row in rows), rows
    forecasts = {row.question_id: row for row in read_forecasts(run / "forecasts.jsonl")}
    assert all(row.status == "ok" for row in forecasts.values()), forecasts
    count, yes = forecasts["q-count"], forecasts["q-yes"]
    assert count.p10 is not None and count.p50 is not None and count.p90 is not None
    assert count.p10 <= count.p50 <= count.p90 and yes.probability is not None and 0 <= yes.probability <= 1


def test_unreachable_http_agent_is_an_error_row_after_retries(small_world: SmallWorld, foresci: Foresci,
                                                              tmp_path: Path) -> None:
    run = tmp_path / "run"
    result = foresci("run", str(small_world.release_dir), "--method", "http://127.0.0.1:9/none", "--out",
                     str(run), "--no-progress", "--limit", "1", env={"FORESCI_LLM__MAX_RETRIES": "1"})
    assert result.returncode == 1
    (row,) = _rows(run)
    assert row.status == "error"
    assert "gave up after 2 attempt(s) (unreachable)" in (row.error or ""), row.error


CHEATER = '''
import json, os, sqlite3
from pathlib import Path
from foresci.methods import method

def attempt(report, name, action):
    try:
        report[name] = f"allowed: {{action()!r}}"[:300]
    except Exception as error:
        report[name] = f"{{type(error).__name__}}: {{error}}"

@method("cheater", needs_kb=True)
def cheater(inputs):
    report = {{}}
    tools = inputs.tools
    attempt(report, "import hidden readers", lambda: __import__("foresci.tasks.hidden_io"))
    attempt(report, "import evaluation", lambda: __import__("foresci.evaluation.fta"))
    attempt(report, "open hidden file", lambda: open("{release}/hidden.jsonl").read(100))
    attempt(report, "open world truth", lambda: open("{world}/ground_truth.json").read(100))
    attempt(report, "open kb manifest", lambda: open("{kb}/manifest.json").read(100))
    databases = sorted(Path("{kb}").rglob("*.sqlite"))
    attempt(report, "sqlite kb", lambda: [sqlite3.connect(str(path)) for path in databases])
    attempt(report, "post-cutoff paper", lambda: tools.get_paper("{post_id}"))
    attempt(report, "post-cutoff related", lambda: tools.related_papers("{post_id}"))
    found = lambda: max(str(paper.announced) for paper in tools.search("{post_title}", 20))
    attempt(report, "search dates", found)
    attempt(report, "view", lambda: tools.view)
    attempt(report, "vars", lambda: vars(tools))
    attempt(report, "attributes", lambda: sorted(name for name in dir(tools) if not name.startswith("__")))
    Path("{report}").write_text(json.dumps(report))
    options = [candidate.option_id for candidate in inputs.task.candidates]
    if inputs.task.family == "bottleneck_opportunity":
        return {{"bottleneck": "b", "opportunity": "o", "mechanism": "m"}}
    return {{"ranking": [{{"option_id": option}} for option in options]}}

@method("blunt_cheater")
def blunt_cheater(inputs):
    from foresci.tasks.hidden_io import read_hidden  # noqa: F401
    return {{}}
'''


def test_a_trusted_plugin_that_cheats_by_mistake_is_walled(small_world: SmallWorld, foresci: Foresci,
                                                           tmp_path: Path) -> None:
    """--trust-plugin: in foresci's process, behind the wall (mistakes refused, not deliberate escapes)."""
    from foresci.kb.store import KnowledgeBase

    kb = KnowledgeBase.open(small_world.kb_dir, small_world.settings)
    cutoff = max(task.cutoff for task in _tasks(small_world))
    late = [paper for paper in kb.all_papers() if paper.announced > cutoff]
    assert late, "the world has papers after the cutoff"
    folder = tmp_path / "plugins"
    folder.mkdir()
    report_path = tmp_path / "report.json"
    (folder / "cheats.py").write_text(textwrap.dedent(CHEATER.format(
        release=small_world.release_dir, world=small_world.root / "world", kb=small_world.kb_dir,
        post_id=late[0].paper_id, post_title=late[0].title, report=report_path,
    )))
    run = tmp_path / "run"
    result = foresci("run", str(small_world.release_dir), "--kb", str(small_world.kb_dir), "--method",
                     "cheats:cheater", "--method", "cheats:blunt_cheater", "--out", str(run), "--no-progress",
                     "--limit", "1", "--trust-plugin", path=(folder,))
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(report_path.read_text())
    refused = ("import hidden readers", "import evaluation", "open hidden file", "open world truth",
               "open kb manifest")
    for name in refused:
        assert report[name].startswith("WallViolation: plug-in method cheater may not"), (name, report[name])
    assert report["sqlite kb"].startswith("WallViolation: plug-in method cheater may not open "), report
    assert report["sqlite kb"].endswith("papers.sqlite (hidden targets or post-cutoff data)")
    assert report["post-cutoff paper"] == "allowed: None"
    assert report["post-cutoff related"] == "allowed: []"
    assert report["search dates"].startswith("allowed: ") and report["search dates"][10:20] <= str(cutoff)
    assert report["view"].startswith("AttributeError") and report["vars"].startswith("TypeError")
    assert report["attributes"] == ("allowed: ['as_langchain', 'calls_left', 'cutoff', 'get_paper', "
                                    "'related_papers', 'search', 'timeline']")
    rows = {row.method: row for row in _rows(run)}
    assert rows["cheater"].status == "ok"
    assert rows["blunt_cheater"].status == "error"
    assert "WallViolation: plug-in method blunt_cheater may not import foresci.tasks.hidden" in (
        rows["blunt_cheater"].error or "")
    assert os.path.getsize(small_world.release_dir / "hidden.jsonl") > 0
