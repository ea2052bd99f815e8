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


RELAY_PROBE = '''
import json, urllib.error, urllib.request
from foresci.methods import method

ASKS = {
    "models": {"models": ["other-model", "another"]},
    "plugins": {"plugins": [{"id": "web"}]},
    "web_search_options": {"web_search_options": {"search_context_size": "high"}},
    "n": {"n": 8},
    "max_tokens": {"max_tokens": 1000000},
    "server tools": {"tools": [{"type": "web_search_preview"}]},
    "plain": {"temperature": 0.2,
              "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}]},
}

@method("relay_probe", uses_llm=True)
def relay_probe(inputs):
    base = inputs.llm.chat.openai_api_base
    seen = {}
    for name, fields in ASKS.items():
        body = {"model": "m", "messages": [{"role": "user", "content": name}], **fields}
        request = urllib.request.Request(base + "/chat/completions", data=json.dumps(body).encode(),
                                         headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as reply:
                seen[name] = f"{reply.status}"
        except urllib.error.HTTPError as error:
            seen[name] = f"{error.code} {json.loads(error.read())['error']['message']}"
    return {"ranking": [{"option_id": option.option_id} for option in inputs.task.candidates],
            "milestones": [json.dumps(seen)]}
'''


@pytest.mark.slow
def test_the_relay_forwards_only_allowed_fields_within_the_run_s_bounds(
    llm_settings: Settings, scripted_llm: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    scripted_llm.responder = responder
    folder = tmp_path / "plugins"
    folder.mkdir()
    (folder / "relay_probe.py").write_text(textwrap.dedent(RELAY_PROBE))
    monkeypatch.syspath_prepend(str(folder))
    spec = resolve_method("relay_probe:relay_probe")
    planning = [task for task in toy_tasks() if task.family == "strategic_planning"][:1]
    run_release(planning, tmp_path / "run", llm_settings, [spec.name], models=["m1"])
    (row,) = read_answers(tmp_path / "run" / ANSWERS_FILE)
    assert row.status == "ok", row.error
    seen = json.loads(row.payload["milestones"][0])
    refused = "400 RuntimeError: RelayRefused: "
    for field in ("models", "plugins", "web_search_options"):
        assert seen[field].startswith(f"{refused}request fields {field} are not relayed"), seen[field]
    assert seen["n"] == f"{refused}n=8: at most 1 completion(s) per request (sandbox.llm_max_choices)"
    assert seen["max_tokens"] == (f"{refused}max_tokens=1000000: over the run's limit of 1024 tokens for the "
                                  "agent (llm.max_tokens)")
    assert seen["server tools"] == (f"{refused}only function tools are relayed (the plug-in runs them), not "
                                    "'web_search_preview'")
    assert seen["plain"] == "200"
    (sent,) = scripted_llm.requests  # only the allowed request reached the endpoint
    assert set(sent) == {"model", "messages", "temperature", "tools",
                         llm_settings.llm.effective_token_limit_param}
    assert sent["model"] == "m1" and sent[llm_settings.llm.effective_token_limit_param] == 1024
