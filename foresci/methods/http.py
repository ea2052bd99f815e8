"""HTTP agents: ``--method http://host:port/path`` answers each task by POSTing its public JSON.

The request body is the public :class:`~foresci.tasks.models.Task` as JSON and nothing else (a forecast
question: the public :class:`~foresci.tasks.models.ForecastQuestion`). The reply is the answer in the
task family's schema, either bare or as ``{"answer": {...}, "support": {...}}`` (:class:`AgentReply`,
``foresci schema export``); it is validated against the schema, and what does not fit becomes an error
row naming the field. Timeouts and failures are retried like LLM calls (``settings.llm``: ``timeout_s``,
``max_retries``, ``timeout_retries``; ``Retry-After`` honoured) and end as
:class:`~foresci.llm.errors.LLMError` of the same kinds: ``timeout``, ``overload``, ``auth``,
``request_invalid``, ``output``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from foresci.contracts import ForecastAnswer
from foresci.llm.errors import ErrorKind, LLMError, LLMOutputError, LLMRequestError
from foresci.methods.registry import ForecastInput, MethodInput, MethodResult, MethodSpec
from foresci.settings import Settings
from foresci.tasks.models import ForecastQuestion

BACKOFF_S = 0.5
MAX_BACKOFF_S = 8.0
REPLY_KEYS = frozenset({"answer", "support"})


def _status_kind(status: int) -> ErrorKind:
    if status in (401, 403):
        return "auth"
    if status == 429 or status >= 500:
        return "overload"
    return "request_invalid"


def _retry_after(response: Any) -> float | None:
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def post_json(url: str, body: dict[str, Any], settings: Settings,
              headers: dict[str, str] | None = None) -> Any:
    """POST ``body`` to ``url`` (with extra ``headers``) and return the JSON reply, retrying by error kind
    like the LLM client."""
    import httpx

    llm = settings.llm
    timeout = llm.effective_timeout_s
    overload_tries = timeout_tries = 0
    while True:
        wait: float | None = None
        try:
            response = httpx.post(url, json=body, timeout=timeout,
                                  headers={"user-agent": "foresci", **(headers or {})})
        except httpx.TimeoutException as error:
            timeout_tries += 1
            if timeout_tries > llm.timeout_retries:
                raise LLMError(f"agent {url}: gave up after {timeout_tries} attempt(s), each timed out after "
                               f"{timeout:g} s", kind="timeout") from error
        except httpx.TransportError as error:
            overload_tries += 1
            if overload_tries > llm.max_retries:
                raise LLMError(f"agent {url}: gave up after {overload_tries} attempt(s) (unreachable): "
                               f"{type(error).__name__}: {error}", kind="overload") from error
        else:
            if response.status_code < 400:
                try:
                    return response.json()
                except json.JSONDecodeError as error:
                    raise LLMOutputError(f"agent {url}: reply is not JSON: {response.text[:200]!r}",
                                         [response.text[:2000]]) from error
            kind = _status_kind(response.status_code)
            detail = f"HTTP {response.status_code}: {' '.join(response.text.split())[:300]}"
            if kind == "request_invalid":
                raise LLMRequestError(f"agent {url}: request refused: {detail}", kind=kind)
            if kind == "auth":
                raise LLMError(f"agent {url}: {detail}", kind=kind)
            overload_tries += 1
            if overload_tries > llm.max_retries:
                raise LLMError(f"agent {url}: gave up after {overload_tries} attempt(s): {detail}", kind=kind)
            wait = _retry_after(response)
        if wait is None:
            wait = BACKOFF_S * 2 ** max(0, overload_tries + timeout_tries - 1)
        time.sleep(min(wait, MAX_BACKOFF_S))


def read_reply(url: str, reply: Any) -> MethodResult:
    """An agent's reply (bare answer or ``{"answer", "support"}``) as a method result to validate."""
    if isinstance(reply, dict) and isinstance(reply.get("answer"), dict):
        unknown = sorted(set(reply) - REPLY_KEYS)
        if unknown:
            raise LLMOutputError(f"agent {url}: reply has unknown keys {unknown} (expected answer, support)",
                                 [json.dumps(reply)[:2000]])
        return MethodResult(answer=reply["answer"], support=reply.get("support"))
    return MethodResult(answer=reply)


def _settings(inputs: MethodInput | ForecastInput) -> Settings:
    return inputs.settings if inputs.settings is not None else Settings()


@contextmanager
def _tools_header(inputs: MethodInput | ForecastInput) -> Iterator[dict[str, str]]:
    """The header naming this task's KB tools URL while the agent answers (none without KB tools)."""
    if inputs.tools is None:
        yield {}
        return
    from foresci.methods.sandbox.http_tools import TOOLS_HEADER, tool_server

    with tool_server().grant(inputs.tools) as tools_url:
        yield {TOOLS_HEADER: tools_url}


def http_method(url: str, kb_tools: bool = False) -> MethodSpec:
    """The method that answers through the agent at ``url`` (named by its URL); with ``kb_tools`` it
    reads the KB: each request carries a URL of KB tools bound to the task's cutoff and budget
    (:mod:`foresci.methods.sandbox.http_tools`)."""

    def answer(inputs: MethodInput) -> MethodResult:
        with _tools_header(inputs) as headers:
            reply = post_json(url, inputs.task.model_dump(mode="json"), _settings(inputs), headers)
        return read_reply(url, reply)

    def forecast(question: ForecastQuestion, inputs: ForecastInput) -> ForecastAnswer | dict[str, Any]:
        with _tools_header(inputs) as headers:
            reply = post_json(url, question.model_dump(mode="json"), _settings(inputs), headers)
        if not isinstance(reply, dict):
            raise LLMOutputError(f"agent {url}: forecast reply is not an object", [json.dumps(reply)[:2000]])
        return reply

    from foresci.methods.identity import http_version

    return MethodSpec(name=url, answer=answer, forecast=forecast, source=url, needs_kb=kb_tools,
                      isolated=True, version=http_version(url))
