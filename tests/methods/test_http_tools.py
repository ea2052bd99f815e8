"""HTTP agents may search the KB: each request carries a tools URL (header ``x-foresci-tools``) bound to the
task's cutoff and tool budget; the calls are logged into the row's support artifact and transcript, and the
URL stops working once the answer is in."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from foresci.agents.answers import read_answers
from foresci.core.transcript_log import TRANSCRIPTS_FILE, read_transcripts
from foresci.kb.store import KnowledgeBase
from foresci.methods.loading import resolve_method
from foresci.methods.runner import ANSWERS_FILE, run_release
from foresci.methods.sandbox.json_http import JSONHandler
from foresci.tasks.release import load_release
from tests.realllm.world import SmallWorld


def call_tool(url: str, **request: Any) -> tuple[int, Any]:
    """POST one tool request; (status, body)."""
    data = json.dumps(request).encode()
    try:
        request_ = urllib.request.Request(url, data=data, method="POST")
        with urllib.request.urlopen(request_, timeout=30) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


class SearchingAgent(JSONHandler):
    """Searches the KB through the tools URL it is sent, asks for a post-cutoff paper, answers."""

    seen: list[dict[str, Any]]
    late_id: str

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        task = json.loads(self.rfile.read(int(self.headers["content-length"])))
        tools = self.headers.get("x-foresci-tools")
        found = call_tool(tools, tool="search", query=task["title"], k=5)
        late = call_tool(tools, tool="get_paper", paper_id=self.late_id)
        left = call_tool(tools, tool="calls_left")
        bad = call_tool(tools, tool="read_file", path="/etc/passwd")
        self.seen.append({"task": task, "tools": tools, "found": found, "late": late, "left": left,
                          "bad": bad})
        options = [candidate["option_id"] for candidate in task.get("candidates", [])]
        cite = f" [{found[1]['result'][0]['paper_id']}]" if found[0] == 200 and found[1]["result"] else ""
        if task["family"] == "direction_forecasting":
            answer = {"direction": options[0], "trajectory": "steady", "rationale": "first" + cite}
        elif task["family"] == "bottleneck_opportunity":
            answer = {"bottleneck": "scarce data" + cite, "opportunity": "synthetic data", "mechanism": "m"}
        else:
            answer = {"ranking": [{"option_id": option} for option in options]}
        self._send(200, {"answer": answer})


@pytest.fixture
def searching_agent(small_world: SmallWorld) -> Iterator[tuple[str, list[dict[str, Any]], str]]:
    cutoff = min(task.cutoff for task in load_release(small_world.release_dir).tasks)
    kb = KnowledgeBase.open(small_world.kb_dir, small_world.settings)
    late_id = next(paper.paper_id for paper in kb.all_papers() if paper.announced > cutoff)
    seen: list[dict[str, Any]] = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), type("Agent", (SearchingAgent,),
                                                        {"seen": seen, "late_id": late_id}))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/answer", seen, late_id
    finally:
        server.shutdown()
        server.server_close()


def test_http_agent_searches_the_kb_through_its_tools_url(
    small_world: SmallWorld, searching_agent: tuple[str, list[dict[str, Any]], str], tmp_path: Path
) -> None:
    url, seen, late_id = searching_agent
    spec = resolve_method(url, kb_tools=True)
    assert spec.needs_kb and resolve_method(url) is spec  # the runner finds the KB-reading agent by name
    tasks = load_release(small_world.release_dir).tasks
    run = tmp_path / "run"
    summary = run_release(tasks, run, small_world.settings, [url], view_factory=small_world.view_factory())
    assert summary.errors == 0
    rows = {row.task_id: row for row in read_answers(run / ANSWERS_FILE)}
    cutoffs = {task.task_id: task.cutoff for task in tasks}
    budget = small_world.settings.agents.tool_budget
    assert len(seen) == len(tasks) and len({visit["tools"] for visit in seen}) == len(tasks)
    for visit in seen:
        task_id = visit["task"]["task_id"]
        status, found = visit["found"]
        assert status == 200 and found["result"], visit
        assert all(paper["announced"] <= cutoffs[task_id].isoformat() for paper in found["result"])
        assert visit["late"] == (200, {"result": None})  # after the cutoff: not there
        assert visit["left"] == (200, {"result": budget - 2})
        assert visit["bad"][0] == 400 and visit["bad"][1]["error"].startswith("ValidationError: 2 validation")
        assert late_id not in json.dumps(visit)
        row = rows[task_id]
        assert row.status == "ok" and row.evidence == "retrieved", row.error
        assert [call.tool for call in row.support.tool_calls] == ["search_papers", "get_paper"]
        assert all(item.announced <= cutoffs[task_id] for item in row.support.retrieved)
        (transcript,) = read_transcripts(run / TRANSCRIPTS_FILE, [row.transcript or ""]).values()
        assert [event["tool"] for event in transcript["events"] if event["kind"] == "tool_call"] == [
            "search_papers", "get_paper"]
        assert call_tool(visit["tools"], tool="search", query="x") == (
            403, {"error": "unknown or expired tools URL"})


class ClaimingAgent(SearchingAgent):
    """Searches through its tools URL like :class:`SearchingAgent`, then returns its own ``support``:
    queries, evidence and notes, a post-cutoff paper claimed as retrieved before the cutoff, and tool
    calls it never made (issue 42.1: such a reply erased foresci's record)."""

    cutoff: str

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        task = json.loads(self.rfile.read(int(self.headers["content-length"])))
        tools = self.headers.get("x-foresci-tools")
        found = call_tool(tools, tool="search", query=task["title"], k=3)
        first = found[1]["result"][0]["paper_id"]
        options = [candidate["option_id"] for candidate in task.get("candidates", [])]
        if task["family"] == "direction_forecasting":
            answer = {"direction": options[0], "trajectory": "steady", "rationale": f"first [{first}]"}
        elif task["family"] == "bottleneck_opportunity":
            answer = {"bottleneck": f"scarce data [{first}]", "opportunity": "synthetic data",
                      "mechanism": "m"}
        else:
            answer = {"ranking": [{"option_id": option} for option in options]}
        support = {
            "queries": ["my own query"],
            "retrieved": [{"paper_id": self.late_id, "title": "from the future", "announced": self.cutoff}],
            "evidence": [{"claim": "the future says so", "paper_ids": [self.late_id]}],
            "tool_calls": [{"tool": "search_papers", "arguments": {"query": "x"}}] * 3,
            "notes": ["agent's own note"],
        }
        payload = json.dumps({"answer": answer, "support": support}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def test_an_agents_own_support_is_merged_into_the_record_never_in_its_place(
    small_world: SmallWorld, tmp_path: Path
) -> None:
    tasks = load_release(small_world.release_dir).tasks
    cutoff = min(task.cutoff for task in tasks)
    kb = KnowledgeBase.open(small_world.kb_dir, small_world.settings)
    last = max(task.cutoff for task in tasks)
    late_id = next(paper.paper_id for paper in kb.all_papers() if paper.announced > last)
    server = ThreadingHTTPServer(("127.0.0.1", 0), type("Agent", (ClaimingAgent,), {
        "late_id": late_id, "cutoff": cutoff.isoformat(), "seen": []}))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/claims"
    try:
        resolve_method(url, kb_tools=True)
        run = tmp_path / "run"
        summary = run_release(tasks, run, small_world.settings, [url],
                              view_factory=small_world.view_factory())
    finally:
        server.shutdown()
        server.server_close()
    assert summary.errors == 0
    for row in read_answers(run / ANSWERS_FILE):
        support = row.support
        assert support is not None and row.evidence == "retrieved", row  # was "none" (record erased)
        assert [call.tool for call in support.tool_calls] == ["search_papers"]  # recorded, not claimed
        (transcript,) = read_transcripts(run / TRANSCRIPTS_FILE, [row.transcript or ""]).values()
        logged = [event for event in transcript["events"] if event["kind"] == "tool_call"]
        assert len(logged) == len(support.tool_calls) == 1  # the report card's count agrees
        assert support.retrieved and late_id not in {item.paper_id for item in support.retrieved}
        assert "my own query" in support.queries and "agent's own note" in support.notes
        assert any(item.claim == "the future says so" for item in support.evidence)  # its word, kept
        assert any(f"left out: {late_id}" in note for note in support.notes), support.notes


class CrossingAgent(JSONHandler):
    """Answers each task after calling the tools URL of another task it was sent (issue 39.8): the URL of
    a task in flight beside it when one arrives within a second, else the last one it saw."""

    urls: list[str]
    crossed: list[tuple[int, Any]]
    arrived: threading.Condition

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        task = json.loads(self.rfile.read(int(self.headers["content-length"])))
        mine = self.headers["x-foresci-tools"]
        with self.arrived:
            self.urls.append(mine)
            self.arrived.notify_all()
            self.arrived.wait_for(lambda: self.urls[-1] != mine, timeout=1.0)
            others = [url for url in self.urls if url != mine]
        if others:
            self.crossed.append(call_tool(others[-1], tool="search", query=task["title"], k=3))
        options = [candidate["option_id"] for candidate in task.get("candidates", [])]
        if task["family"] == "direction_forecasting":
            answer = {"direction": options[0], "trajectory": "steady", "rationale": "first"}
        elif task["family"] == "bottleneck_opportunity":
            answer = {"bottleneck": "scarce data", "opportunity": "synthetic data", "mechanism": "m"}
        else:
            answer = {"ranking": [{"option_id": option} for option in options]}
        self._send(200, {"answer": answer})


def test_an_agent_cannot_use_another_tasks_tools_url(small_world: SmallWorld, tmp_path: Path) -> None:
    tasks = load_release(small_world.release_dir).tasks
    assert len(tasks) >= 2
    urls: list[str] = []
    crossed: list[tuple[int, Any]] = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), type("Agent", (CrossingAgent,), {
        "urls": urls, "crossed": crossed, "arrived": threading.Condition()}))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/crossing"
    settings = small_world.settings.model_copy(update={
        "agents": small_world.settings.agents.model_copy(update={"concurrency": 4})})
    try:
        resolve_method(url, kb_tools=True)
        run = tmp_path / "run"
        summary = run_release(tasks, run, settings, [url], view_factory=small_world.view_factory())
    finally:
        server.shutdown()
        server.server_close()
    assert summary.errors == 0 and len(set(urls)) == len(tasks)
    assert len(crossed) >= len(tasks) - 1, crossed  # every task but the first tried another's URL
    assert all(status == 403 for status, _ in crossed), crossed  # main: 200, another task's search
    for row in read_answers(run / ANSWERS_FILE):
        assert row.support is not None and row.support.tool_calls == [], "no task shows calls it never made"
