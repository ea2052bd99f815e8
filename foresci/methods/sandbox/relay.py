"""foresci's side of a sandboxed plug-in's direct chat-model requests (``inputs.llm.chat``, LangChain).

Inside the sandbox the plug-in's ``ChatOpenAI`` talks to a relay on the sandbox's own loopback
(:mod:`foresci.methods.sandbox.shim`), which passes each OpenAI-compatible request over the tool channel.
Here it is sent to the run's endpoint with the run's API key (which never enters the sandbox), answered from
the response cache when the same request was answered before, recorded as an ``llm_call`` (or
``cache_hit``) transcript event and counted on the row like any call through :class:`~foresci.llm.LLMClient`.
Only chat completions are relayed, never streamed.
"""

from __future__ import annotations

import json
import time
from typing import Any

from foresci.core.artifacts import sha256_json
from foresci.core.transcripts import record

RELAYED_PATHS = ("/chat/completions",)


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


def relay(llm: Any, path: str, request: dict[str, Any]) -> dict[str, Any]:
    """Send one chat-completion ``request`` for the plug-in; the reply as ``{"status", "body"}``."""
    import httpx

    from foresci.llm.client import _api_key

    if path not in RELAYED_PATHS:
        raise RelayRefused(f"only {', '.join(RELAYED_PATHS)} is relayed to the model endpoint, not {path!r}")
    if request.get("stream"):
        raise RelayRefused("streamed completions are not relayed: call the model without streaming")
    settings = llm.settings
    request = {**request, "model": llm.model}  # the run's backbone, whatever the plug-in named
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
