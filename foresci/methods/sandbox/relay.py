"""foresci's side of a sandboxed plug-in's direct chat-model requests (``inputs.llm.chat``, LangChain).

Inside the sandbox the plug-in's ``ChatOpenAI`` talks to a relay on the sandbox's own loopback
(:mod:`foresci.methods.sandbox.shim`), which passes each OpenAI-compatible request over the tool channel.
Here it is sent to the run's endpoint with the run's API key (which never enters the sandbox), answered from
the response cache when the same request was answered before, recorded as an ``llm_call`` (or
``cache_hit``) transcript event and counted on the row like any call through :class:`~foresci.llm.LLMClient`.
Only chat completions are relayed, never streamed, and only the request fields of :data:`RELAYED_FIELDS`:
anything else (another model list, provider plug-ins such as web search, server-side tools) is refused,
naming the field, and so are tools other than functions (the plug-in runs its own tools), more choices
(``n``) than ``sandbox.llm_max_choices`` and more tokens than the run's ``llm.max_tokens`` for the agent
role (which is sent when the plug-in sets none).
"""

from __future__ import annotations

import json
import time
from typing import Any

from foresci.core.artifacts import sha256_json
from foresci.core.transcripts import record

RELAYED_PATHS = ("/chat/completions",)
RELAYED_FIELDS = frozenset({
    "messages", "model", "stream", "temperature", "top_p", "n", "max_tokens", "max_completion_tokens",
    "stop", "seed", "presence_penalty", "frequency_penalty", "response_format", "tools", "tool_choice",
    "parallel_tool_calls",
})
TOKEN_FIELDS = ("max_tokens", "max_completion_tokens")


class RelayRefused(ValueError):
    """A request the relay does not pass on (another path, or a streamed one)."""


def _usage(body: Any) -> tuple[int, int]:
    usage = body.get("usage") if isinstance(body, dict) else None
    if not isinstance(usage, dict):
        return 0, 0
    return int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)


def _completion(body: Any) -> tuple[str, str | None]:
    try:
        choice = body["choices"][0]
        message = choice.get("message") or {}
        text = message.get("content") or json.dumps(message.get("tool_calls") or [], ensure_ascii=False)
        return str(text), choice.get("finish_reason")
    except (KeyError, IndexError, TypeError, AttributeError):
        return "", None


def allowed_request(request: dict[str, Any], settings: Any) -> dict[str, Any]:
    """``request`` as it may go to the endpoint (:data:`RELAYED_FIELDS`, bounded by ``settings``), or
    :class:`RelayRefused` naming what is not allowed."""
    others = sorted(set(request) - RELAYED_FIELDS)
    if others:
        raise RelayRefused(f"request fields {', '.join(others)} are not relayed; the fields allowed are "
                           f"{', '.join(sorted(RELAYED_FIELDS))}")
    for tool in request.get("tools") or []:
        if not isinstance(tool, dict) or tool.get("type") != "function":
            kind = tool.get("type") if isinstance(tool, dict) else type(tool).__name__
            raise RelayRefused(f"only function tools are relayed (the plug-in runs them), not {kind!r}")
    choices = request.get("n")
    limit = getattr(getattr(settings, "sandbox", None), "llm_max_choices", 1)
    if choices is not None and (not isinstance(choices, int) or isinstance(choices, bool)
                                or not 1 <= choices <= limit):
        raise RelayRefused(f"n={choices!r}: at most {limit} completion(s) per request "
                           "(sandbox.llm_max_choices)")
    most = settings.llm.role_max_tokens("agent")
    bounded = dict(request)
    for name in TOKEN_FIELDS:
        value = bounded.get(name)
        if value is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise RelayRefused(f"{name}={value!r}: expected a positive whole number")
        if most is not None and value > most:
            raise RelayRefused(f"{name}={value}: over the run's limit of {most} tokens for the agent "
                               "(llm.max_tokens)")
    if most is not None and not any(bounded.get(name) is not None for name in TOKEN_FIELDS):
        bounded[settings.llm.effective_token_limit_param] = most
    return bounded


def relay(llm: Any, path: str, request: dict[str, Any]) -> dict[str, Any]:
    """Send one chat-completion ``request`` for the plug-in; the reply as ``{"status", "body"}``."""
    import httpx

    from foresci.llm.client import _api_key

    if path not in RELAYED_PATHS:
        raise RelayRefused(f"only {', '.join(RELAYED_PATHS)} is relayed to the model endpoint, not {path!r}")
    if request.get("stream"):
        raise RelayRefused("streamed completions are not relayed: call the model without streaming")
    settings = llm.settings
    request = {**allowed_request(request, settings), "model": llm.model}  # the run's backbone, always
    key = sha256_json({"relay": "chat", "base_url": settings.llm.endpoint_identity, "request": request})
    messages = request.get("messages") or []
    if llm.cache is not None and (cached := llm.cache.get(key)) is not None:
        llm._count(cache_hits=1)
        record("cache_hit", model=llm.model, role="agent", step=None, schema=None, messages=messages,
               response=_completion(cached)[0])
        return {"status": 200, "body": cached}
    started = time.monotonic()
    with llm._semaphore:
        response = httpx.post(f"{settings.llm.base_url.rstrip('/')}{path}", json=request,
                              timeout=settings.llm.effective_timeout_s,
                              headers={"authorization": f"Bearer {_api_key(settings).get_secret_value()}"})
    seconds = time.monotonic() - started
    try:
        body = response.json()
    except json.JSONDecodeError:
        body = {"error": {"message": response.text[:2000]}}
    if response.status_code >= 400:
        record("llm_error", model=llm.model, step=None, error_kind="relay",
               error=f"HTTP {response.status_code}: {json.dumps(body)[:300]}")
        return {"status": response.status_code, "body": body}
    prompt_tokens, completion_tokens = _usage(body)
    completion, finish_reason = _completion(body)
    llm._count(calls=1, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
    record("llm_call", model=llm.model, role="agent", step=None, method="chat", schema=None, attempt=0,
           messages=messages, completion=completion, finish_reason=finish_reason,
           prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, seconds=round(seconds, 3))
    if llm.cache is not None:
        llm.cache.put(key, llm.model, body)
    return {"status": 200, "body": body}
