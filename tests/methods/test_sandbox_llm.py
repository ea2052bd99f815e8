"""A sandboxed plug-in's model calls: ``inputs.llm.invoke_text``, ``invoke_structured`` with its own schema,
and ``inputs.llm.chat`` (LangChain ``ChatOpenAI``) all reach the run's endpoint through foresci, which holds
the API key, records each call in the transcript and counts it on the row; the plug-in's process never
sees the key and has no network of its own."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from foresci.agents.answers import read_answers
from foresci.core.settings import Settings
from foresci.core.transcript_log import TRANSCRIPTS_FILE, read_transcripts
from foresci.methods.loading import resolve_method
from foresci.methods.runner import ANSWERS_FILE, run_release
from tests.agents.responders import schema_name
from tests.agents.toy import toy_tasks

TALKER = '''
import json, os
from pydantic import BaseModel
from foresci.methods import method

class Pick(BaseModel):
    choice: str

@method("talker", uses_llm=True)
def talker(inputs):
    text = inputs.llm.invoke_text([("user", "say something")])
    picked = inputs.llm.invoke_structured([("user", "pick one")], Pick)
    chatted = inputs.llm.chat.invoke("hello from a LangChain model").content
    leaked = sorted(key for key, value in os.environ.items() if "sk-test" in value)
    return {"ranking": [{"option_id": option.option_id} for option in inputs.task.candidates],
            "milestones": [text, picked.choice, chatted, json.dumps(leaked),
                           inputs.llm.chat.openai_api_key.get_secret_value()]}
'''


def responder(request: dict[str, Any]) -> Any:
    """Structured requests for Pick get a choice; everything else a sentence."""
    return {"choice": "B"} if schema_name(request) == "Pick" else "plain words"


@pytest.mark.slow
def test_sandboxed_plugin_model_calls_go_through_foresci(
    llm_settings: Settings, scripted_llm: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scripted_llm.responder = responder
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "talking_agent.py").write_text(textwrap.dedent(TALKER))
    monkeypatch.syspath_prepend(str(folder))
    spec = resolve_method("talking_agent:talker")
    assert spec.isolated and spec.uses_llm
    planning = [task for task in toy_tasks() if task.family == "strategic_planning"][:1]
    run = tmp_path / "run"
    summary = run_release(planning, run, llm_settings, [spec.name], models=["m1"])
    (row,) = read_answers(run / ANSWERS_FILE)
    assert summary.errors == 0, row.error
    assert row.payload["milestones"] == ["plain words", "B", "plain words", "[]", "relayed-by-foresci"]
    assert row.llm_calls == 3 and row.prompt_tokens > 0
    assert len(scripted_llm.requests) == 3
    assert all(request["model"] == "m1" for request in scripted_llm.requests)
    assert [headers.get("authorization") for headers in scripted_llm.headers] == ["Bearer sk-test-secret"] * 3
    (transcript,) = read_transcripts(run / TRANSCRIPTS_FILE, [row.transcript or ""]).values()
    calls = [event for event in transcript["events"] if event["kind"] == "llm_call"]
    assert [event["method"] for event in calls][-1] == "chat" and len(calls) == 3
    assert [event["kind"] for event in transcript["events"]][-1] == "sandbox"
    rerun = tmp_path / "rerun"  # the same requests again: answered by the response cache, no call
    run_release(planning, rerun, llm_settings, [spec.name], models=["m1"])
    (again,) = read_answers(rerun / ANSWERS_FILE)
    assert again.status == "ok" and again.cache_hits == 3 and len(scripted_llm.requests) == 3
