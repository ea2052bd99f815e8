"""Citations are checked against a KB, never against an agent's own word (issue 39.7): an HTTP agent that
cites post-cutoff papers as "retrieved" before the cutoff gets no Trace~off without a KB (the report says
why), and with the KB its forged citations are flagged and score no more than an honest answer."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from foresci.core.settings import Settings
from foresci.evaluation.models import NO_KB, Score
from foresci.evaluation.runner import evaluate_run
from foresci.kb.store import KnowledgeBase
from foresci.methods.runner import run_release
from foresci.methods.sandbox.json_http import JSONHandler
from foresci.tasks.release import load_release
from tests.evaluation.conftest import WordEncoder
from tests.realllm.world import SmallWorld

RATIONALE = "The first option gains momentum in the window."


class ForgingAgent(JSONHandler):
    """Answers ranking tasks; with ``forge`` its support cites late papers dated before the cutoff."""

    forge: bool
    late_ids: list[str]

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        task = json.loads(self.rfile.read(int(self.headers["content-length"])))
        reason = RATIONALE + (f" [{self.late_ids[0]}]" if self.forge else "")
        answer = {"ranking": [{"option_id": candidate["option_id"], "reason": reason if number == 0 else "r"}
                              for number, candidate in enumerate(task["candidates"])]}
        support: dict[str, Any] = {"queries": [task["title"]], "evidence": [], "retrieved": []}
        if self.forge:
            support["retrieved"] = [{"paper_id": pid, "title": "a paper", "announced": task["cutoff"]}
                                    for pid in self.late_ids]
            support["evidence"] = [{"claim": RATIONALE, "paper_ids": self.late_ids}]
        self._send(200, {"answer": answer, "support": support})


@pytest.fixture
def agents(small_world: SmallWorld) -> Iterator[dict[str, str]]:
    tasks = load_release(small_world.release_dir).tasks
    last = max(task.cutoff for task in tasks)
    kb = KnowledgeBase.open(small_world.kb_dir, small_world.settings)
    late_ids = [paper.paper_id for paper in kb.all_papers() if paper.announced > last][:2]
    servers, urls = [], {}
    for name, forge in (("forged", True), ("honest", False)):
        server = ThreadingHTTPServer(("127.0.0.1", 0), type(name, (ForgingAgent,), {
            "forge": forge, "late_ids": late_ids}))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        urls[name] = f"http://127.0.0.1:{server.server_address[1]}/{name}"
    try:
        yield urls
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()


def _scores(run: Path) -> dict[str, Score]:
    rows = [Score.model_validate_json(line) for line in (run / "scores.jsonl").read_text().splitlines()]
    return {row.method.rsplit("/", 1)[-1].split("@")[0]: row for row in rows}


def test_forged_retrieval_earns_no_trace(small_world: SmallWorld, agents: dict[str, str],
                                         tmp_path: Path) -> None:
    tasks = [task for task in load_release(small_world.release_dir).tasks
             if task.family in ("strategic_planning", "venue_positioning")][:1]
    assert tasks
    run = tmp_path / "run"
    summary = run_release(tasks, run, small_world.settings, list(agents.values()))  # no --kb
    assert summary.errors == 0
    settings = Settings(cache_dir=tmp_path / "cache", evaluation={"bootstrap_samples": 20})
    evaluate_run(run, small_world.release_dir, settings, offline=True, encoder=WordEncoder())
    scores = _scores(run)
    forged = scores["forged"].metrics["trace_offline"]
    assert forged.value is None and forged.reason == NO_KB, forged  # main: 0.25 from the agent's word
    assert scores["forged"].citations is None
    summary_json = json.loads((run / "summary.json").read_text())
    assert summary_json["counts"]["citations_not_checked"] == 2
    assert "the run recorded no KB" in summary_json["citations_not_checked"]
    # with the KB: the late ids are flagged, and citing them scores no more than the honest answer
    evaluate_run(run, small_world.release_dir, settings, offline=True, encoder=WordEncoder(),
                 kb=small_world.kb_dir)
    scores = _scores(run)
    forged_row, honest_row = scores["forged"], scores["honest"]
    assert forged_row.citations is not None and len(forged_row.citations["after_cutoff_ids"]) == 2
    forged_value = forged_row.metrics["trace_offline"].value
    honest_value = honest_row.metrics["trace_offline"].value
    assert forged_value is not None and honest_value is not None
    assert forged_value <= honest_value, (forged_value, honest_value)  # main: 0.25 > 0.0
