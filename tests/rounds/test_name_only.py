"""The name-only LLM baseline answers every round at open when an LLM endpoint is configured (the scripted
server on 127.0.0.1), asking one call per question and per task with no literature; without an endpoint
nothing changes."""

from __future__ import annotations

import json
from pathlib import Path

from foresci.core.io import iter_jsonl, read_json
from foresci.rounds.ledger import round_dir
from foresci.rounds.open import NAME_ONLY
from foresci.rounds.submit import all_submissions, round_tasks, versions
from foresci.rounds.tick import tick
from tests.rounds.helpers import file_bytes, make_ledger, toy_tick
from tests.rounds.llm_helpers import MODEL, llm_settings, round_responder
from tests.support.openai_server import ScriptedOpenAIServer
from tests.tasks.toy import CUTOFF, ToyKB

ROUND = f"r-{CUTOFF.isoformat()}"


def test_name_only_baseline_answers_at_open_once(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path)
    snapshots = {"toy": ToyKB(until=CUTOFF).snapshot}
    with ScriptedOpenAIServer(round_responder) as server:
        settings = llm_settings(server, tmp_path / "cache")
        actions = tick(ledger, ToyKB(until=CUTOFF), settings, snapshots=snapshots)
        assert actions[0].startswith(f"opened {ROUND}")
        folder = round_dir(ledger, ROUND)
        manifest = read_json(folder / "round.json")
        tasks = round_tasks(folder)
        assert tasks, "the toy round freezes family tasks"
        # one call per forecast question and one per family task, all to the scripted server
        assert len(server.requests) == manifest["items"] + len(tasks)
        assert server.base_url.startswith("http://127.0.0.1:")
        before = file_bytes(ledger)
        assert tick(ledger, ToyKB(until=CUTOFF), settings, snapshots=snapshots) == []
        assert len(server.requests) == manifest["items"] + len(tasks)  # a second tick asks nothing
        assert file_bytes(ledger) == before
        shown = server.all_text()
    (version,) = versions(folder, NAME_ONLY)
    record = read_json(version / "submission.json")
    assert record["source"] == {"kind": "baseline", "value": "native (name_only)", "model": MODEL}
    rows = list(iter_jsonl(version / "forecasts.jsonl"))
    assert len(rows) == manifest["items"] == record["rows"]
    assert {row["mode"] for row in rows} == {"name_only"} and {row["model"] for row in rows} == {MODEL}
    assert all(row["status"] == "ok" for row in rows), [row["error"] for row in rows if row["error"]]
    assert not any(row.get("evidence_ids") for row in rows)
    task_rows = list(iter_jsonl(version / "task_answers.jsonl"))
    assert [row["task_id"] for row in task_rows] == [task.task_id for task in tasks]
    assert {row["mode"] for row in task_rows} == {"name_only"} and record["task_rows"] == len(tasks)
    assert all(row["status"] == "ok" and row["llm_calls"] == 1 for row in task_rows)
    # name-only: no paper of the KB reaches the model beyond the titles the public tasks themselves state
    # (a venue task's project names two central pre-cutoff papers)
    public = " ".join(task.model_dump_json() for task in tasks)
    titles = [paper.title for paper in ToyKB(until=CUTOFF).papers() if paper.title not in public]
    assert titles and not any(title in shown for title in titles)
    assert json.loads(json.dumps(record))["sha256"]


def test_without_an_llm_no_name_only_submission(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path)
    toy_tick(ledger, CUTOFF)
    methods = {record["method"] for record in all_submissions(round_dir(ledger, ROUND))}
    assert NAME_ONLY not in methods and {"always-0.5", "base-rate"} <= methods
