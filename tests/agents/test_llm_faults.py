"""What real local models do to the LLM layer, reproduced on the scripted server (issue #18 items 3-6):
length-cut output, cut-off tool calls, invalid-request 500s, refused output methods, token limits,
local-endpoint defaults and the context budget."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from foresci.agents.answers import read_answers
from foresci.core.settings import Settings
from foresci.llm import LLMClient, LLMError, LLMOutputError, LLMRequestError
from foresci.llm.bounds import bounded_schema, reply_char_bound, reply_token_bound
from foresci.llm.budget import fit_to_window
from foresci.llm.capabilities import capability_record
from foresci.methods.runner import ANSWERS_FILE, run_release
from tests.agents.conftest import ToyWorld
from tests.agents.responders import answering_responder
from tests.agents.toy import toy_tasks
from tests.support.openai_server import Reply, ScriptedOpenAIServer, requested_schema


class Verdict(BaseModel):
    label: str
    reason: str


VERDICT = {"label": "steady", "reason": "the share holds"}


def _client(settings: Settings, role: str = "judge", **changes: Any) -> LLMClient:
    llm = settings.llm.model_copy(update=changes)
    return LLMClient(settings.model_copy(update={"llm": llm}), role, backoff_s=0.01)  # type: ignore[arg-type]


# ---- #18.3: length-cut output is an LLMOutputError, never a provider exception --------------------

def test_length_cut_json_schema_output_is_a_truncated_output_error(
    llm_settings: Settings, scripted_llm: ScriptedOpenAIServer
) -> None:
    scripted_llm.enqueue(Reply.cut(VERDICT, 12), Reply.cut(VERDICT, 12))
    with pytest.raises(LLMOutputError, match="truncated at the token limit") as caught:
        _client(llm_settings, structured_output_method="json_schema", reask=1).invoke_structured(
            [("user", "label it")], Verdict)
    assert caught.value.truncated and caught.value.raw_outputs == [json.dumps(VERDICT)[:12]] * 2
    assert "shorter" in scripted_llm.requests[1]["messages"][-1]["content"]


def test_length_cut_answer_is_an_error_row_naming_the_graph_step(
    toy_world: ToyWorld, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    def responder(request: dict[str, Any]) -> Any:
        answer = answering_responder(request)
        return Reply.cut(answer, 20) if isinstance(answer, dict) else answer

    scripted_llm.responder = responder
    settings = llm_settings.model_copy(update={"llm": llm_settings.llm.model_copy(
        update={"structured_output_method": "json_schema"})})
    view = toy_world.view()
    run_release(toy_tasks()[:2], tmp_path / "run", settings, ["native", "hybrid_rag"],
                view_factory=lambda cutoff: view)  # type: ignore[arg-type, return-value]
    rows = read_answers(tmp_path / "run" / ANSWERS_FILE)
    assert len(rows) == 4 and all(row.status == "error" for row in rows)
    for row in rows:
        assert "LLMOutputError" in (row.error or "") and "truncated" in (row.error or "")
        assert "step 'answer'" in (row.error or ""), row.error


# ---- #18.4: per-role max_tokens; a cut-off tool call is truncated, not "empty output" -------------

def test_each_role_sends_its_max_tokens(llm_settings: Settings, scripted_llm: ScriptedOpenAIServer) -> None:
    settings = llm_settings.model_copy(update={"llm": llm_settings.llm.model_copy(
        update={"max_tokens": {"agent": 300, "judge": 90}})})
    LLMClient(settings, "agent").invoke_text([("user", "one")])
    LLMClient(settings, "judge").invoke_structured([("user", "two")], Verdict)
    assert [request["max_tokens"] for request in scripted_llm.requests] == [300, 90]
    remote = settings.llm.model_copy(update={"token_limit_param": "max_completion_tokens"})
    LLMClient(settings.model_copy(update={"llm": remote}), "agent").invoke_text([("user", "three")])
    assert scripted_llm.requests[-1]["max_completion_tokens"] == 300
    assert "max_tokens" not in scripted_llm.requests[-1]


def test_cut_off_tool_call_is_reported_truncated(
    llm_settings: Settings, scripted_llm: ScriptedOpenAIServer
) -> None:
    cut = Reply.cut(VERDICT, 15, finish_reason="tool_calls")
    scripted_llm.enqueue(cut, cut)
    client = _client(llm_settings, structured_output_method="function_calling", reask=1)
    with pytest.raises(LLMOutputError) as caught:
        client.invoke_structured([("user", "label it")], Verdict)
    message = str(caught.value)
    assert caught.value.truncated and "tool call truncated at the token limit" in message
    assert "empty" not in message and "finish_reason=tool_calls" in message
    assert client.usage.truncated == 2


# ---- #15: capped free text, so a looping small model's reply ends as valid JSON -------------------

class Plan(BaseModel):
    kind: Literal["go", "stop"]
    rationale: str
    steps: list[str]
    ranking: list[str] = Field(json_schema_extra={"minItems": 3, "maxItems": 3})
    confidence: float = 0.5


def _longest_reply(schema: dict[str, Any]) -> Any:
    """The longest JSON value the bounded schema allows (every cap filled)."""
    if "enum" in schema:
        return max(schema["enum"], key=lambda value: len(str(value)))
    if schema["type"] == "string":
        return "x" * schema["maxLength"]
    if schema["type"] == "array":
        return [_longest_reply(schema["items"])] * schema["maxItems"]
    if schema["type"] == "number":
        return -1.2345678901234567e-300
    return {name: _longest_reply(value) for name, value in schema["properties"].items()}


def test_capped_schema_is_sent_with_a_token_limit_that_fits_it(
    llm_settings: Settings, scripted_llm: ScriptedOpenAIServer
) -> None:
    client = _client(llm_settings, structured_output_method="function_calling", max_field_chars=40,
                     max_list_items=2, max_tokens={"judge": 20})
    client.invoke_structured([("user", "plan it")], Plan)
    request = scripted_llm.requests[-1]
    sent, _ = requested_schema(request)
    assert sent is not None
    fields = sent["properties"]
    assert fields["rationale"]["maxLength"] == 40 and fields["steps"]["items"]["maxLength"] == 40
    assert fields["steps"]["maxItems"] == 2
    assert fields["ranking"]["maxItems"] == 3, "a sized list (a ranking) keeps its size"
    assert "maxLength" not in fields["kind"], "an enum is not free text"
    longest = json.dumps(_longest_reply(sent), separators=(",", ":"))
    assert len(longest) <= reply_char_bound(sent)
    assert request["max_tokens"] == reply_token_bound(sent) > 20
    assert Plan.model_validate_json(longest)

    _client(llm_settings, structured_output_method="function_calling", max_tokens={"judge": 20}) \
        .invoke_structured([("user", "plan it again")], Plan)
    uncapped, _ = requested_schema(scripted_llm.requests[-1])
    assert uncapped == Plan.model_json_schema() and scripted_llm.requests[-1]["max_tokens"] == 20


def test_unbounded_schemas_keep_the_role_token_limit() -> None:
    assert reply_char_bound(Plan.model_json_schema()) is None
    assert reply_token_bound(bounded_schema(Plan.model_json_schema(), 40, None)) is None, "steps unsized"
    assert bounded_schema(Verdict.model_json_schema(), None, None) == Verdict.model_json_schema()


# ---- #18.5: errors classified; local endpoints get concurrency 1 and a long timeout --------------

def test_invalid_request_500_is_not_retried(
    llm_settings: Settings, scripted_llm: ScriptedOpenAIServer
) -> None:
    scripted_llm.enqueue(Reply.invalid_request_500("messages.0.role"))
    client = _client(llm_settings)
    with pytest.raises(LLMRequestError, match="HTTP 500"):
        client.invoke_text([("user", "x")])
    assert len(scripted_llm.requests) == 1 and client.usage.retries == 0


def test_timeouts_are_retried_once_and_overload_with_backoff(
    llm_settings: Settings, scripted_llm: ScriptedOpenAIServer
) -> None:
    scripted_llm.enqueue(*[Reply.delayed(1.0) for _ in range(3)])
    client = _client(llm_settings, timeout_s=0.2, max_retries=4, timeout_retries=1)
    with pytest.raises(LLMError, match="timed out") as caught:
        client.invoke_text([("user", "slow")])
    assert caught.value.kind == "timeout" and len(scripted_llm.requests) == 2
    scripted_llm.reset()
    scripted_llm.enqueue(Reply.error(503), Reply.error(502), Reply.content("back"))
    assert _client(llm_settings, max_retries=4).invoke_text([("user", "busy")]) == "back"
    assert len(scripted_llm.requests) == 3


def test_local_endpoint_defaults() -> None:
    local = Settings(llm={"base_url": "http://127.0.0.1:8080/v1"}).llm
    other_port = Settings(llm={"base_url": "http://127.0.0.1:9/v1"}).llm
    assert local.endpoint_identity != other_port.endpoint_identity  # a dead port is not the live server
    served = {"endpoint_id": "local:smollm2-135m"}  # foresci's own server names itself, not its port
    assert (Settings(llm={"base_url": "http://127.0.0.1:8080/v1", **served}).llm.endpoint_identity
            == Settings(llm={"base_url": "http://127.0.0.1:9/v1", **served}).llm.endpoint_identity)
    remote = Settings(llm={"base_url": "https://api.example.org/v1"}).llm
    assert (local.effective_concurrency, local.effective_timeout_s) == (1, 900.0)
    assert (remote.effective_concurrency, remote.effective_timeout_s) == (4, 60.0)
    assert local.effective_token_limit_param == "max_tokens"
    assert remote.effective_token_limit_param == "max_completion_tokens"


# ---- capability detection: a refused method falls back once per endpoint ------------------------

def _refuse_json_schema(request: dict[str, Any]) -> Any:
    if (request.get("response_format") or {}).get("type") == "json_schema":
        return Reply.invalid_request_500()
    schema, _ = requested_schema(request)
    return VERDICT if schema is not None else "text"


def test_refused_method_falls_back_and_is_remembered(
    llm_settings: Settings, scripted_llm: ScriptedOpenAIServer
) -> None:
    scripted_llm.responder = _refuse_json_schema
    client = _client(llm_settings)
    assert client.invoke_structured([("user", "first")], Verdict).label == "steady"
    assert [bool(request.get("tools")) for request in scripted_llm.requests] == [False, True]
    assert client.usage.fallbacks == 1 and client.usage.retries == 0
    scripted_llm.reset()
    fresh = _client(llm_settings)  # a later run, same endpoint and cache: straight to the working method
    assert fresh.invoke_structured([("user", "second")], Verdict).label == "steady"
    assert len(scripted_llm.requests) == 1 and scripted_llm.requests[0]["tools"]
    record = capability_record(fresh.cache, llm_settings.llm.endpoint_identity, ["scripted-model"])
    assert record["scripted-model"]["method"] == "function_calling"
    assert "response_format.type" in record["scripted-model"]["refused"]["json_schema"]


def test_run_manifest_records_the_detected_method(
    toy_world: ToyWorld, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    from foresci.agents.cli import write_run_manifest

    def responder(request: dict[str, Any]) -> Any:
        if (request.get("response_format") or {}).get("type") == "json_schema":
            return Reply.invalid_request_500()
        return answering_responder(request)

    scripted_llm.responder = responder
    release = tmp_path / "release"
    release.mkdir()
    (release / "tasks.jsonl").write_text("".join(task.model_dump_json() + "\n" for task in toy_tasks()))
    run_release(toy_tasks(), tmp_path / "run", llm_settings, ["native"])
    rows = read_answers(tmp_path / "run" / ANSWERS_FILE)
    assert all(row.status == "ok" for row in rows)
    refused = sum(1 for request in scripted_llm.requests
                  if (request.get("response_format") or {}).get("type") == "json_schema")
    assert refused == 1, "the refused method must be tried once per endpoint, not once per row"
    write_run_manifest(tmp_path / "run", release, None, llm_settings, ["native"], [], "full")
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["config"]["llm_capabilities"]["scripted-model"]["method"] == "function_calling"


# ---- #18.6: json_mode sends the schema ------------------------------------------------------------

def test_json_mode_sends_the_schema(llm_settings: Settings, scripted_llm: ScriptedOpenAIServer) -> None:
    scripted_llm.enqueue(VERDICT)
    _client(llm_settings, structured_output_method="json_mode").invoke_structured([("user", "x")], Verdict)
    response_format = scripted_llm.requests[0]["response_format"]
    assert response_format["type"] == "json_object"
    assert response_format["schema"] == Verdict.model_json_schema()


def test_json_mode_refused_schema_falls_back(
    llm_settings: Settings, scripted_llm: ScriptedOpenAIServer
) -> None:
    def responder(request: dict[str, Any]) -> Any:
        if "schema" in (request.get("response_format") or {}):
            return Reply.error(400, message="Unrecognized request argument supplied: response_format.schema")
        return VERDICT

    scripted_llm.responder = responder
    client = _client(llm_settings, structured_output_method="json_mode")
    assert client.invoke_structured([("user", "x")], Verdict) == Verdict(**VERDICT)
    assert scripted_llm.requests[-1]["response_format"]["type"] == "json_schema"


# ---- context budget ---------------------------------------------------------------------------------

def _evidence(count: int) -> str:
    return "\n".join(f"[2501.{index:05d}] (2025-01-0{1 + index % 9}) paper {index} — " + "words " * 40
                     for index in range(count))


def test_context_budget_drops_lowest_ranked_evidence(
    llm_settings: Settings, scripted_llm: ScriptedOpenAIServer
) -> None:
    prompt = f"Question?\nPapers:\n{_evidence(20)}\nAnswer now."
    client = _client(llm_settings, role="agent", context_tokens=2000, max_tokens={"agent": 200})
    client.invoke_text([("system", "be brief"), ("user", prompt)])
    sent = scripted_llm.requests[0]["messages"][-1]["content"]
    assert "[2501.00000]" in sent and "[2501.00019]" not in sent
    kept = [index for index in range(20) if f"[2501.{index:05d}]" in sent]
    assert kept == list(range(len(kept))) and 0 < len(kept) < 20
    assert f"({20 - len(kept)} lower-ranked paper(s) left out" in sent and sent.endswith("Answer now.")
    assert client.usage.evidence_dropped == 20 - len(kept)
    messages, dropped = fit_to_window([{"role": "user", "content": prompt}], 100_000, 200)
    assert dropped == 0 and messages[0]["content"] == prompt


def test_provider_errors_are_classified() -> None:
    import httpx2
    import openai
    from openai.types.chat import ChatCompletion

    from foresci.llm.errors import classify

    request = httpx2.Request("POST", "http://127.0.0.1:9/v1/chat/completions")

    def status(code: int, message: str) -> openai.APIStatusError:
        response = httpx2.Response(code, request=request, json={"error": {"message": message}})
        return openai.APIStatusError(message, response=response, body={"error": {"message": message}})

    completion = ChatCompletion.model_validate({
        "id": "x", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": "length",
                     "message": {"role": "assistant", "content": "{"}}]})
    assert classify(openai.LengthFinishReasonError(completion=completion)) == "output"
    assert classify(openai.APITimeoutError(request)) == "timeout"
    assert classify(openai.APIConnectionError(request=request)) == "overload"
    invalid = status(500, "1 validation error: response_format.type literal_error")
    assert classify(invalid) == "request_invalid"
    assert classify(status(500, "CUDA out of memory")) == "overload"
    assert classify(status(503, "busy")) == "overload"
    assert classify(status(401, "bad key")) == "auth"
    assert classify(status(422, "unprocessable")) == "request_invalid"
    assert classify(ValueError("not a provider error")) is None


def test_length_cut_that_still_parses_is_reported_truncated(
    llm_settings: Settings, scripted_llm: ScriptedOpenAIServer
) -> None:
    scripted_llm.enqueue(*[Reply(data={"label": "steady"}, finish_reason="length") for _ in range(2)])
    with pytest.raises(LLMOutputError, match=r"truncated at the token limit .*finish_reason=length"):
        client = _client(llm_settings, structured_output_method="json_schema")
        client.invoke_structured([("user", "x")], Verdict)


def test_a_named_method_goes_first_even_after_detection(
    llm_settings: Settings, scripted_llm: ScriptedOpenAIServer
) -> None:
    scripted_llm.responder = _refuse_json_schema
    _client(llm_settings).invoke_structured([("user", "detect")], Verdict)  # records function_calling
    scripted_llm.reset()
    _client(llm_settings, structured_output_method="json_mode").invoke_structured([("user", "x")], Verdict)
    assert scripted_llm.requests[0]["response_format"]["type"] == "json_object"
