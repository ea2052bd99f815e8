"""HTTP agents: ``--method http://host:port/path`` answers each task by POSTing its public JSON.

The request body is the public :class:`~foresci.tasks.models.Task` as JSON and nothing else (a forecast
question: the public :class:`~foresci.tasks.models.ForecastQuestion`). The reply is the answer in the
task family's schema, either bare or as ``{"answer": {...}, "support": {...}}`` (:class:`AgentReply`,
``foresci schema export``); it is validated against the schema, and what does not fit becomes an error
row naming the field. Timeouts and failures are retried like LLM calls (``settings.llm``: ``timeout_s``,
``max_retries``, ``timeout_retries``, ``deadline_s``, ``max_reply_bytes``; ``Retry-After`` honoured) and
end as :class:`~foresci.llm.errors.LLMError` of the same kinds: ``timeout``, ``overload``, ``auth``,
``request_invalid``, ``output``.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from foresci.contracts import ForecastAnswer
from foresci.core.redact import mask_url
from foresci.core.settings import Settings
from foresci.core.transcripts import record
from foresci.llm.errors import ErrorKind, LLMError, LLMOutputError, LLMRequestError
from foresci.methods.registry import ForecastInput, MethodInput, MethodResult, MethodSpec
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


def post_json(url: str, body: dict[str, Any], settings: Settings,
              headers: dict[str, str] | None = None) -> Any:
    """POST ``body`` to ``url`` (with extra ``headers``) and return the JSON reply, retrying by error kind
    like the LLM client.

    Each attempt is bounded by ``llm.deadline_s`` in total and ``llm.max_reply_bytes`` of reply, the
    body read as it arrives (:mod:`foresci.llm.bounded_http`).
    """
    import httpx

    from foresci.llm.bounded_http import bounded_client, retry_after_seconds, too_large

    llm = settings.llm
    timeout = llm.effective_timeout_s
    shown = mask_url(url)
    overload_tries = timeout_tries = 0
    with bounded_client(llm.effective_deadline_s, llm.max_reply_bytes, timeout) as client:
        while True:
            wait: float | None = None
            retried: ErrorKind = "overload"
            try:
                response = client.post(url, json=body,
                                       headers={"user-agent": "foresci", **(headers or {})})
            except httpx.TimeoutException as error:
                timeout_tries += 1
                retried = "timeout"
                if timeout_tries > llm.timeout_retries:
                    raise LLMError(f"agent {shown}: gave up after {timeout_tries} attempt(s), each timed out "
                                   f"({error}; per-read timeout {timeout:g} s)", kind="timeout") from error
            except httpx.TransportError as error:
                if too_large(error):
                    raise LLMOutputError(f"agent {shown}: {error} (llm.max_reply_bytes)", []) from error
                overload_tries += 1
                dropped = isinstance(error, httpx.RemoteProtocolError)  # it took the request, sent nothing
                if dropped and overload_tries > min(1, llm.max_retries):
                    raise LLMError(f"agent {shown}: closed the connection without a reply after "
                                   f"{overload_tries} attempt(s): the agent failed while answering (see its "
                                   f"log): {type(error).__name__}: {error}", kind="output") from error
                if overload_tries > llm.max_retries:
                    raise LLMError(f"agent {shown}: gave up after {overload_tries} attempt(s) (unreachable): "
                                   f"{type(error).__name__}: {error}", kind="overload") from error
            else:
                if response.status_code < 400:
                    try:
                        return response.json()
                    except (json.JSONDecodeError, UnicodeDecodeError) as error:
                        raise LLMOutputError(f"agent {shown}: reply is not JSON: {response.text[:200]!r}",
                                             [response.text[:2000]]) from error
                kind = _status_kind(response.status_code)
                detail = f"HTTP {response.status_code}: {' '.join(response.text.split())[:300]}"
                if response.status_code == 500:  # the agent's own failure: not retried, its body shown
                    raise LLMError(f"agent {shown}: the agent failed: {detail}", kind="output")
                if kind == "request_invalid":
                    raise LLMRequestError(f"agent {shown}: request refused: {detail}", kind=kind)
                if kind == "auth":
                    raise LLMError(f"agent {shown}: {detail}", kind=kind)
                overload_tries += 1
                retried = kind
                if overload_tries > llm.max_retries:
                    raise LLMError(f"agent {shown}: gave up after {overload_tries} attempt(s): {detail}",
                                   kind=kind)
                wait = retry_after_seconds(response.headers)
            if wait is None:
                wait = BACKOFF_S * 2 ** max(0, overload_tries + timeout_tries - 1)
            wait = min(wait, MAX_BACKOFF_S)
            record("retry", agent=shown, error_kind=retried, wait_s=round(wait, 3),
                   attempt=overload_tries + timeout_tries)  # counted in the transcript's "retries"
            time.sleep(wait)


def read_reply(url: str, reply: Any) -> MethodResult:
    """An agent's reply (bare answer or ``{"answer", "support"}``) as a method result to validate."""
    if isinstance(reply, dict) and isinstance(reply.get("answer"), dict):
        unknown = sorted(set(reply) - REPLY_KEYS)
        if unknown:
            raise LLMOutputError(f"agent {url}: reply has unknown keys {unknown} (expected answer, support)",
                                 [json.dumps(reply)[:2000]])
        return MethodResult(answer=reply["answer"], support=reply.get("support"))
    return MethodResult(answer=reply)


def read_forecast_reply(shown: str, reply: Any) -> dict[str, Any]:
    """An agent's forecast reply, bare or as ``{"answer": {...}}``, checked against
    :class:`~foresci.contracts.ForecastReply` (an error naming the field when it does not fit)."""
    from pydantic import ValidationError

    from foresci.contracts import ForecastReply

    if isinstance(reply, dict) and isinstance(reply.get("answer"), dict):
        unknown = sorted(set(reply) - {"answer"})
        if unknown:
            raise LLMOutputError(f"agent {shown}: forecast reply has unknown keys {unknown} (expected "
                                 "answer)", [json.dumps(reply)[:2000]])
        reply = reply["answer"]
    if not isinstance(reply, dict):
        raise LLMOutputError(f"agent {shown}: forecast reply is not an object", [json.dumps(reply)[:2000]])
    try:
        checked = ForecastReply.model_validate(reply)
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"]) or "reply"
        raise LLMOutputError(f"agent {shown}: forecast reply field {where}: {problem['msg']} "
                             "(forecast_reply.schema.json)", [json.dumps(reply)[:2000]]) from error
    return checked.model_dump(exclude_none=True, exclude_defaults=True)


def _settings(inputs: MethodInput | ForecastInput) -> Settings:
    return inputs.settings if inputs.settings is not None else Settings()


def method_name(url: str) -> str:
    """The stored name of the agent at ``url``: the URL itself, or, when it carries credentials
    (``user:pw@``, ``?token=``), the URL with them masked plus a short hash of the whole URL.

    Rows are written with URLs masked, so a name holding the secret would never match its stored rows
    (every rerun answered again) and agents differing only in their token would share one name; this
    name is credential-free, survives masking unchanged and still tells different secrets apart.
    """
    masked = mask_url(url)
    if masked == url:
        return url
    return f"{masked} [{hashlib.sha256(url.encode()).hexdigest()[:10]}]"


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
    """The method that answers through the agent at ``url`` (named by :func:`method_name`); with
    ``kb_tools`` it reads the KB: each request carries a URL of KB tools bound to the task's cutoff and
    budget (:mod:`foresci.methods.sandbox.http_tools`)."""

    def answer(inputs: MethodInput) -> MethodResult:
        with _tools_header(inputs) as headers:
            reply = post_json(url, inputs.task.model_dump(mode="json"), _settings(inputs), headers)
        return read_reply(url, reply)

    def forecast(question: ForecastQuestion, inputs: ForecastInput) -> ForecastAnswer | dict[str, Any]:
        with _tools_header(inputs) as headers:
            reply = post_json(url, question.model_dump(mode="json"), _settings(inputs), headers)
        return read_forecast_reply(mask_url(url), reply)

    from foresci.methods.identity import http_version

    return MethodSpec(name=method_name(url), answer=answer, forecast=forecast, source=mask_url(url),
                      needs_kb=kb_tools, isolated=True, version=http_version(url))
