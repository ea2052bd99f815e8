"""LLMClient against the scripted OpenAI server: a real ChatOpenAI over real HTTP, every fault path."""

from __future__ import annotations

import threading
import time
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, Field

from foresci.core.settings import Settings
from foresci.llm import (
    LLMClient,
    LLMError,
    LLMOutputError,
    ModelInfo,
    contamination_risk,
    get_chat_model,
    load_model_registry,
)
from tests.support.openai_server import Reply, ScriptedOpenAIServer


class Verdict(BaseModel):
    label: str
    score: float = Field(ge=0.0, le=1.0)


def _client(settings: Settings, **changes: Any) -> LLMClient:
    llm = settings.llm.model_copy(update=changes)
    return LLMClient(settings.model_copy(update={"llm": llm}), "judge", backoff_s=0.01)


def test_text_call_counts_tokens_and_sends_the_key(
    llm_settings: Settings, scripted_llm: ScriptedOpenAIServer
) -> None:
    scripted_llm.enqueue(Reply.content("a short answer"))
    client = _client(llm_settings)
    assert client.invoke_text([("system", "be brief"), ("user", "what rises?")]) == "a short answer"
    assert client.usage.calls == 1
    assert client.usage.prompt_tokens > 0 and client.usage.completion_tokens > 0
    assert scripted_llm.requests[0]["model"] == "scripted-model"
    assert scripted_llm.headers[0]["authorization"] == "Bearer sk-test-secret"
    cache_bytes = (llm_settings.cache_dir / "llm_responses.sqlite").read_bytes()
    assert b"sk-test-secret" not in cache_bytes


@pytest.mark.parametrize("method", ["json_schema", "function_calling", "json_mode"])
def test_structured_output_each_method(
    llm_settings: Settings, scripted_llm: ScriptedOpenAIServer, method: str
) -> None:
    scripted_llm.enqueue({"label": "accelerating", "score": 0.75})
    verdict = _client(llm_settings, structured_output_method=method).invoke_structured(
        [("user", "label it")], Verdict
    )
    assert verdict == Verdict(label="accelerating", score=0.75)
    request = scripted_llm.requests[0]
    if method == "function_calling":
        assert request["tools"][0]["function"]["parameters"]["properties"].keys() == {"label", "score"}
    elif method == "json_schema":
        assert request["response_format"]["type"] == "json_schema"
    else:
        assert request["response_format"]["type"] == "json_object"
        assert '"label"' in request["messages"][-1]["content"]


def test_timeout_is_retried(llm_settings: Settings, scripted_llm: ScriptedOpenAIServer) -> None:
    scripted_llm.enqueue(Reply.delayed(2.0), Reply.content("on time"))
    client = _client(llm_settings, timeout_s=0.3)
    assert client.invoke_text([("user", "hurry")]) == "on time"
    assert client.usage.retries == 1
    assert len(scripted_llm.requests) == 2


def test_timeouts_exhaust_retries(llm_settings: Settings, scripted_llm: ScriptedOpenAIServer) -> None:
    scripted_llm.enqueue(*[Reply.delayed(1.0) for _ in range(2)])
    client = _client(llm_settings, timeout_s=0.2, max_retries=1)
    with pytest.raises(LLMError, match="gave up after 2 attempt"):
        client.invoke_text([("user", "hurry")])


def test_429_honours_retry_after(llm_settings: Settings, scripted_llm: ScriptedOpenAIServer) -> None:
    scripted_llm.enqueue(Reply.error(429, retry_after=1), Reply.content("after the wait"))
    client = _client(llm_settings)
    assert client.invoke_text([("user", "again")]) == "after the wait"
    first, second = scripted_llm.request_times
    assert second - first >= 0.95, "Retry-After: 1 was not honoured"
    assert client.usage.retries == 1


def test_500_is_retried_then_fails(llm_settings: Settings, scripted_llm: ScriptedOpenAIServer) -> None:
    scripted_llm.enqueue(Reply.error(500), Reply.error(503), Reply.content("recovered"))
    client = _client(llm_settings)
    assert client.invoke_text([("user", "x")]) == "recovered"
    scripted_llm.enqueue(*[Reply.error(500) for _ in range(4)])
    with pytest.raises(LLMError):
        client.invoke_text([("user", "y")])
    assert len(scripted_llm.requests) == 3 + 4


def test_client_errors_are_not_retried(llm_settings: Settings, scripted_llm: ScriptedOpenAIServer) -> None:
    scripted_llm.enqueue(Reply.error(400, message="bad request"))
    with pytest.raises(LLMError, match="HTTP 400"):
        _client(llm_settings).invoke_text([("user", "x")])
    assert len(scripted_llm.requests) == 1


def test_malformed_json_is_reasked(llm_settings: Settings, scripted_llm: ScriptedOpenAIServer) -> None:
    scripted_llm.enqueue(Reply.malformed_content(), {"label": "steady", "score": 0.5})
    client = _client(llm_settings)
    assert client.invoke_structured([("user", "label it")], Verdict).label == "steady"
    assert client.usage.reasks == 1
    reask = scripted_llm.requests[1]["messages"]
    assert reask[-2]["role"] == "assistant" and "rejected" in reask[-1]["content"]


def test_malformed_http_body_is_retried(llm_settings: Settings, scripted_llm: ScriptedOpenAIServer) -> None:
    scripted_llm.enqueue(Reply.malformed_body(), Reply.content("fine"))
    assert _client(llm_settings).invoke_text([("user", "x")]) == "fine"


def test_schema_violation_reasked_then_error(
    llm_settings: Settings, scripted_llm: ScriptedOpenAIServer
) -> None:
    scripted_llm.enqueue({"label": "x", "score": 7.0}, {"label": "x"})
    client = _client(llm_settings, reask=1)
    with pytest.raises(LLMOutputError, match="does not match the schema Verdict") as caught:
        client.invoke_structured([("user", "label it")], Verdict)
    assert len(caught.value.raw_outputs) == 2
    assert len(scripted_llm.requests) == 2


def test_cache_hit_makes_zero_requests(llm_settings: Settings, scripted_llm: ScriptedOpenAIServer) -> None:
    scripted_llm.enqueue({"label": "cooling", "score": 0.2}, "text once")
    messages = [("user", "label it")]
    first = _client(llm_settings).invoke_structured(messages, Verdict)
    _client(llm_settings).invoke_text(messages)
    assert len(scripted_llm.requests) == 2
    rerun = _client(llm_settings)
    assert rerun.invoke_structured(messages, Verdict) == first
    assert rerun.invoke_text(messages) == "text once"
    assert len(scripted_llm.requests) == 2
    assert rerun.usage.calls == 0 and rerun.usage.cache_hits == 2


def test_child_usage_adds_into_parent(llm_settings: Settings, scripted_llm: ScriptedOpenAIServer) -> None:
    parent = _client(llm_settings)
    child = parent.child()
    child.invoke_text([("user", "one")])
    assert child.usage.calls == 1 and parent.usage.calls == 1
    assert parent.usage.prompt_tokens == child.usage.prompt_tokens > 0


def test_concurrency_limit(llm_settings: Settings, scripted_llm: ScriptedOpenAIServer) -> None:
    in_flight = 0
    peak = 0
    lock = threading.Lock()

    def slow(request: dict[str, Any]) -> str:
        nonlocal in_flight, peak
        with lock:
            in_flight += 1
            peak = max(peak, in_flight)
        time.sleep(0.15)
        with lock:
            in_flight -= 1
        return "done"

    scripted_llm.responder = slow
    client = _client(llm_settings, concurrency=2)
    threads = [threading.Thread(target=client.invoke_text, args=([("user", f"q{i}")],)) for i in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert client.usage.calls == 5
    assert peak == 2


def test_role_override_and_missing_endpoint(tmp_path: Path) -> None:
    settings = Settings(
        cache_dir=tmp_path, llm={"base_url": "http://127.0.0.1:9/v1", "roles": {"judge": "big"}}
    )
    assert get_chat_model("judge", settings).model_name == "big"
    assert get_chat_model("agent", settings).model_name == settings.llm.model
    with pytest.raises(LLMError, match="FORESCI_LLM__BASE_URL"):
        get_chat_model("agent", Settings(cache_dir=tmp_path))


def test_contamination_risk_and_registry(tmp_path: Path) -> None:
    registry = {"old": ModelInfo(name="old", knowledge_cutoff=date(2024, 1, 1))}
    assert contamination_risk("old", date(2025, 6, 1), registry) is False
    assert contamination_risk("old", date(2023, 6, 1), registry) is True
    assert contamination_risk("never-heard-of", date(2025, 6, 1), registry) is True
    assert contamination_risk(None, date(2025, 6, 1), registry) is False
    shipped = load_model_registry()
    assert shipped and all(info.knowledge_cutoff.year >= 2020 for info in shipped.values())
    broken = tmp_path / "models.yaml"
    broken.write_text("models:\n  m1:\n    knowledge_cutof: 2024-01-01\n")
    with pytest.raises(ValueError, match=r"models\.yaml: models\.m1"):
        load_model_registry(broken)
