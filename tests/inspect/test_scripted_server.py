"""``foresci inspect eval`` with inspect's OpenAI-compatible provider (``openai-api``) against the
scripted OpenAI-compatible server on 127.0.0.1: the model searches the KB through the bridge's tools,
answers, and the answers land in a run folder (``--import-to``) with their model calls and tokens, ready
for ``foresci eval``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from foresci.agents.answers import read_answers
from foresci.tasks.release import load_release
from tests.inspect.scripted_agent import scripted_answer
from tests.methods.conftest import Foresci
from tests.realllm.world import SmallWorld
from tests.support.openai_server import Reply, ScriptedOpenAIServer

pytestmark = pytest.mark.slow


def test_inspect_eval_on_the_scripted_server_imports_its_answers(small_world: SmallWorld, foresci: Foresci,
                                                                 tmp_path: Path) -> None:
    tasks = load_release(small_world.release_dir).tasks

    def respond(request: dict[str, Any]) -> Reply:
        messages = request["messages"]
        asked = next(str(message["content"]) for message in messages if message["role"] == "user")
        task = next(task for task in tasks if task.title in asked)
        if not any(message["role"] == "tool" for message in messages):
            return Reply.calls(("search_papers", {"query": task.title}))
        return Reply.content(f"```json\n{json.dumps(scripted_answer(task))}\n```")

    with ScriptedOpenAIServer(respond) as server:
        ran = foresci("inspect", "eval", str(small_world.release_dir), "--kb", str(small_world.kb_dir),
                      "--model", "openai-api/scripted/scripted-model", "--log-dir", str(tmp_path / "logs"),
                      "--import-to", str(tmp_path / "run"), "--label", "scripted",
                      env={"SCRIPTED_BASE_URL": server.base_url, "SCRIPTED_API_KEY": "sk-test"})
        requests = list(server.requests)
    assert ran.returncode == 0, ran.stderr[-3000:] + ran.stdout[-3000:]
    assert "top_choice" in ran.stdout, ran.stdout
    assert f"imported {len(tasks)} answer(s) (0 errors)" in ran.stdout, ran.stdout
    assert len(requests) == 2 * len(tasks)
    assert all(request["tools"][0]["function"]["name"] == "search_papers" for request in requests)
    rows = read_answers(tmp_path / "run" / "answers.jsonl")
    assert len(rows) == len(tasks) and {row.status for row in rows} == {"ok"}
    assert {row.model for row in rows} == {"openai-api/scripted/scripted-model"}
    assert {row.label for row in rows} == {"scripted"}
    assert all(row.llm_calls == 2 and row.prompt_tokens > 0 and row.support and row.support.retrieved
               for row in rows)
    evaluated = foresci("eval", str(tmp_path / "run"), "--offline")
    assert evaluated.returncode == 0, evaluated.stderr[-3000:]
