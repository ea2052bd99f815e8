"""``LLMClient``: one role's chat model with structured output, retries, a response cache and accounting.

- :func:`get_chat_model` builds a ``ChatOpenAI`` (langchain-openai) for any OpenAI-compatible endpoint;
  its own retries are off because the client retries by error kind (:mod:`foresci.llm.errors`):
  overload (429, 502-504, connection errors, other 5xx) with backoff and ``Retry-After``; a timeout at
  most ``timeout_retries`` times; an invalid request never.
- Structured output tries the endpoint's accepted method (:mod:`foresci.llm.capabilities`); a method the
  server refuses falls back to the next one. Malformed, truncated or schema-violating output is re-asked
  ``reask`` times, then raised as :class:`LLMOutputError` naming the graph step that asked.
- Every request carries the role's ``max_tokens``; prompts that would overflow the model's context window
  lose their lowest-ranked evidence first (:mod:`foresci.llm.budget`).
- A persistent SQLite response cache makes a re-run cost zero calls; concurrency is limited per endpoint.
- Every call, cache hit, retry, fallback and context trim is recorded into the open transcript
  (:mod:`foresci.core.transcripts`): messages sent, raw completion, tokens and seconds.

API keys are read from settings or the environment and are never logged or written.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, SecretStr, ValidationError

from foresci.core.artifacts import sha256_json
from foresci.core.transcripts import record
from foresci.llm.bounds import bounded_schema, reply_token_bound, without_unasked
from foresci.llm.budget import estimate_tokens, fit_to_window
from foresci.llm.cache import Usage, response_cache
from foresci.llm.capabilities import capabilities_for
from foresci.llm.config import PLACEHOLDER_KEY
from foresci.llm.errors import LLMError, LLMOutputError, LLMRequestError, classify, short
from foresci.llm.messages import MessageLike, normalise_messages
from foresci.llm.registry import context_length, load_model_registry
from foresci.llm.structured import MethodUnavailable, read_reply, request_fields, schema_instruction

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage
    from langchain_openai import ChatOpenAI

    from foresci.core.settings import Settings

Role = Literal["agent", "judge", "builder"]
SchemaT = TypeVar("SchemaT", bound=BaseModel)
_CONTEXT_WORDS = ("context", "n_ctx", "too long", "exceed", "maximum length")


def role_model(settings: Settings, role: Role) -> str:
    """The model name a role uses: the per-role override, else ``settings.llm.model``."""
    return settings.llm.roles.get(role, settings.llm.model)


def _api_key(settings: Settings) -> SecretStr:
    key = settings.llm.api_key
    if key.get_secret_value() == PLACEHOLDER_KEY and os.environ.get("OPENAI_API_KEY"):
        return SecretStr(os.environ["OPENAI_API_KEY"])
    return key


def get_chat_model(role: Role, settings: Settings, model: str | None = None) -> ChatOpenAI:
    """A ``ChatOpenAI`` for ``role`` on the configured endpoint (its own retries off: LLMClient retries)."""
    from langchain_openai import ChatOpenAI

    if not settings.llm.base_url:
        raise LLMError("no LLM endpoint configured: set FORESCI_LLM__BASE_URL (or llm.base_url in --config)")
    from foresci.llm.bounded_http import bounded_client

    llm = settings.llm
    return ChatOpenAI(base_url=llm.base_url, model=model or role_model(settings, role),
                      api_key=_api_key(settings), temperature=llm.temperature,
                      timeout=llm.effective_timeout_s, max_retries=0,
                      http_client=bounded_client(llm.effective_deadline_s, llm.max_reply_bytes,
                                                 llm.effective_timeout_s))


_SEMAPHORES: dict[tuple[str | None, int], threading.BoundedSemaphore] = {}
_SEMAPHORES_LOCK = threading.Lock()


def endpoint_semaphore(base_url: str | None, limit: int) -> threading.BoundedSemaphore:
    """The process-wide request limit of an endpoint (agents and judges share one local server)."""
    with _SEMAPHORES_LOCK:
        return _SEMAPHORES.setdefault((base_url, limit), threading.BoundedSemaphore(limit))


def current_step() -> str | None:
    """The LangGraph node running this call (None outside a graph)."""
    try:
        from langgraph.config import get_config

        metadata = get_config().get("metadata") or {}
    except (ImportError, RuntimeError):
        return None
    node = metadata.get("langgraph_node")
    return str(node) if node else None


# ---- messages -----------------------------------------------------------------------------------

def _to_langchain(messages: list[dict[str, str]]) -> list[BaseMessage]:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    kinds = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
    return [kinds[message["role"]](content=message["content"]) for message in messages]


def _retry_after_seconds(error: BaseException) -> float | None:
    from foresci.llm.bounded_http import retry_after_seconds

    return retry_after_seconds(getattr(getattr(error, "response", None), "headers", None))


# ---- the client ---------------------------------------------------------------------------------

class LLMClient:
    """One role's model with retries, re-asks, a response cache, a concurrency limit and accounting.

    Example::

        client = LLMClient(settings, "judge")
        verdict = client.invoke_structured([("system", rubric), ("user", answer)], Verdict)
        client.usage.calls, client.usage.prompt_tokens, client.usage.cache_hits
    """

    def __init__(self, settings: Settings, role: Role = "agent", model: str | None = None, *,
                 use_cache: bool = True, backoff_s: float = 1.0, max_backoff_s: float = 60.0,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.settings = settings
        self.role: Role = role
        self.model = model or role_model(settings, role)
        self.usage = Usage()
        self.cache = response_cache(settings.cache_dir) if use_cache else None
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self._sleep = sleep
        self._semaphore = endpoint_semaphore(settings.llm.base_url, settings.llm.effective_concurrency)
        self.capabilities = capabilities_for(self.cache, settings.llm.endpoint_identity, self.model)
        self.max_tokens = settings.llm.role_max_tokens(role)
        self.context_window = settings.llm.context_tokens or context_length(
            self.model, load_model_registry(settings.llm.registry))
        self._chat: ChatOpenAI | None = None
        self._parents: list[Usage] = []

    def child(self) -> LLMClient:
        """A client sharing this one's model, cache and concurrency limit, with its own ``usage``.

        Its usage also adds up into this client's (per-task accounting under a run-wide total).
        """
        clone = LLMClient.__new__(LLMClient)
        clone.__dict__.update(self.__dict__)
        clone.usage = Usage()
        clone._parents = [self.usage, *self._parents]
        return clone

    @property
    def chat(self) -> ChatOpenAI:
        """The underlying ChatOpenAI (built on first use)."""
        if self._chat is None:
            self._chat = get_chat_model(self.role, self.settings, self.model)
        return self._chat

    def _count(self, **amounts: int) -> None:
        self.usage.add(**amounts)
        for parent in self._parents:
            parent.add(**amounts)

    def _who(self) -> str:
        step = current_step()
        return f"model {self.model!r} ({self.role}{f', step {step!r}' if step else ''})"

    def _cache_key(self, kind: str, messages: list[dict[str, str]], schema: dict[str, Any] | None,
                   max_tokens: int | None = None) -> str:
        return sha256_json({
            "model": self.model, "base_url": self.settings.llm.endpoint_identity, "messages": messages,
            "params": {"kind": kind, "temperature": self.settings.llm.temperature,
                       "method": self.settings.llm.structured_output_method if schema is not None else None,
                       "max_tokens": max_tokens or self.max_tokens},
            "schema": sha256_json(schema) if schema is not None else None,
        })

    def _limit_fields(self, max_tokens: int | None = None) -> dict[str, Any]:
        limit = max_tokens or self.max_tokens
        if limit is None:
            return {}
        return {self.settings.llm.effective_token_limit_param: limit}

    def request_schema(self, json_schema: dict[str, Any]) -> tuple[dict[str, Any], int | None]:
        """The schema sent for ``json_schema`` (fields models are not asked for left out, free text and lists
        capped as the settings say) and the token limit of that request: the role's, raised to the longest
        reply the capped schema allows."""
        llm = self.settings.llm
        json_schema = without_unasked(json_schema)
        sent = bounded_schema(json_schema, llm.max_field_chars, llm.max_list_items)
        if sent is json_schema or self.max_tokens is None:
            return sent, self.max_tokens
        bound = reply_token_bound(sent)
        return sent, self.max_tokens if bound is None else max(self.max_tokens, bound)

    def _fit(self, messages: list[dict[str, str]], extra_tokens: int = 0,
             reserve: int | None = None) -> list[dict[str, str]]:
        if not self.context_window:
            return messages
        reserve = reserve or self.max_tokens or 0
        fitted, dropped = fit_to_window(messages, self.context_window, reserve, extra_tokens)
        if dropped:
            self._count(evidence_dropped=dropped)
            record("context_trim", model=self.model, step=current_step(), evidence_dropped=dropped,
                   window=self.context_window, reserved_for_answer=reserve,
                   estimated_tokens_before=estimate_tokens(messages),
                   estimated_tokens_after=estimate_tokens(fitted))
        return fitted

    def _record_call(self, method: str, schema: str | None, sent: list[dict[str, str]], message: Any,
                     completion: str, seconds: float, attempt: int = 0, problem: str = "") -> None:
        usage = getattr(message, "usage_metadata", None) or {}
        record("llm_call", model=self.model, role=self.role, step=current_step(), method=method,
               schema=schema, attempt=attempt, messages=sent, completion=completion,
               finish_reason=(getattr(message, "response_metadata", None) or {}).get("finish_reason"),
               prompt_tokens=int(usage.get("input_tokens", 0)),
               completion_tokens=int(usage.get("output_tokens", 0)), seconds=round(seconds, 3),
               **({"problem": problem} if problem else {}))

    def _cache_hit(self, schema: str | None, messages: list[dict[str, str]], response: Any) -> None:
        self._count(cache_hits=1)
        record("cache_hit", model=self.model, role=self.role, step=current_step(), schema=schema,
               messages=messages, response=response)

    # ---- public calls ---------------------------------------------------------------------------

    def invoke_text(self, messages: Sequence[MessageLike]) -> str:
        """The model's text answer to ``messages`` (cached; retried on transient errors)."""
        normalised = normalise_messages(messages)
        key = self._cache_key("text", normalised, None)
        if self.cache is not None and (cached := self.cache.get(key)) is not None:
            self._cache_hit(None, normalised, cached)
            return str(cached)
        fitted = self._fit(normalised)
        sent = _to_langchain(fitted)
        started = time.monotonic()
        message = self._call(lambda: self.chat.invoke(sent, extra_body=self._limit_fields()))
        self._count_tokens(message)
        if (getattr(message, "response_metadata", None) or {}).get("finish_reason") == "length":
            self._count(truncated=1)
        content = getattr(message, "content", "")
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        self._record_call("text", None, fitted, message, text, time.monotonic() - started)
        if self.cache is not None:
            self.cache.put(key, self.model, text)
        return text

    def invoke_structured(self, messages: Sequence[MessageLike], schema: type[SchemaT]) -> SchemaT:
        """The model's answer parsed into ``schema``.

        Malformed, truncated or invalid output is re-asked ``settings.llm.reask`` times, then
        :class:`LLMOutputError` is raised; a structured-output method the endpoint refuses falls back to
        the next one (recorded once per endpoint).
        """
        normalised = normalise_messages(messages)
        json_schema = schema.model_json_schema()
        sent_schema, max_tokens = self.request_schema(json_schema)
        key = self._cache_key("structured", normalised, sent_schema, max_tokens)
        if self.cache is not None and (cached := self.cache.get(key)) is not None:
            self._cache_hit(schema.__name__, normalised, cached)
            return schema.model_validate(cached)
        if self.capabilities.known:
            parsed = self._structured(normalised, schema, sent_schema, max_tokens)
        else:
            with self.capabilities.detecting:  # the first request per endpoint detects; the others wait
                parsed = self._structured(normalised, schema, sent_schema, max_tokens)
        if self.cache is not None:
            self.cache.put(key, self.model, parsed.model_dump(mode="json"))
        return parsed

    def invoke_with_tools(self, messages: Sequence[Any], tools: Sequence[Any]) -> Any:
        """The model's next step in a tool-using conversation: an ``AIMessage`` with text and/or tool calls.

        ``messages`` may hold assistant tool calls and ``ToolMessage`` results; ``tools`` are langchain
        tools (or pydantic models / OpenAI tool dicts) offered to the model, which decides whether and
        what to call. Cached (a re-run replays the same calls and ids), retried, rate-limited and counted
        like every other call, and recorded as an ``llm_call`` transcript event.
        """
        from foresci.llm.tool_calls import (
            normalise_tool_messages,
            reply_message,
            reply_record,
            to_langchain_messages,
            tool_specs,
        )
        normalised = normalise_tool_messages(messages)
        specs = tool_specs(tools)
        key = self._cache_key("tools", normalised, {"tools": specs})
        if self.cache is not None and (cached := self.cache.get(key)) is not None:
            self._cache_hit(None, normalised, cached)
            return reply_message(cached)
        tool_tokens = estimate_tokens([{"role": "tool", "content": json.dumps(specs)}])
        fitted = self._fit(normalised, tool_tokens)  # type: ignore[arg-type]
        started = time.monotonic()
        message = self._call(lambda: self.chat.invoke(to_langchain_messages(fitted), tools=specs,
                                                      extra_body=self._limit_fields()))
        self._count_tokens(message)
        reply = reply_record(message)
        if reply["finish_reason"] == "length":
            self._count(truncated=1)
        self._record_call("tools", None, fitted, message, json.dumps(reply, ensure_ascii=False),
                          time.monotonic() - started)
        if self.cache is not None:
            self.cache.put(key, self.model, reply)
        return reply_message(reply)

    def _structured(self, normalised: list[dict[str, str]], schema: type[SchemaT],
                    json_schema: dict[str, Any], max_tokens: int | None) -> SchemaT:
        refusals: list[str] = []
        for method in self.capabilities.order(self.settings.llm.structured_output_method):
            try:
                parsed = self._structured_with(method, normalised, schema, json_schema, max_tokens)
            except MethodUnavailable as error:
                refusals.append(f"{method}: {error}")
                record("fallback", model=self.model, method=method, reason=str(error), refused_by="client")
                continue
            except LLMRequestError as error:
                if any(word in str(error).lower() for word in _CONTEXT_WORDS):
                    raise
                self.capabilities.refused(method, short(error, 300))
                self._count(fallbacks=1)
                record("fallback", model=self.model, method=method, reason=short(error, 300),
                       refused_by="endpoint")
                refusals.append(f"{method}: {short(error, 200)}")
                continue
            return parsed
        raise LLMRequestError(f"{self._who()}: the endpoint accepts no structured-output method "
                              f"({'; '.join(refusals) or 'all refused earlier'})", kind="request_invalid",
                              step=current_step())

    def _structured_with(self, method: str, normalised: list[dict[str, str]], schema: type[SchemaT],
                         json_schema: dict[str, Any], max_tokens: int | None) -> SchemaT:
        """One method's request for ``schema`` (``json_schema`` is the schema sent, capped), re-asked on
        malformed, truncated or invalid output."""
        fields = {**request_fields(method, schema.__name__, json_schema), **self._limit_fields(max_tokens)}
        sent = list(normalised)
        if method in ("json_mode", "grammar"):
            sent.append({"role": "system", "content": schema_instruction(json_schema)})
        schema_tokens = estimate_tokens([{"role": "tool", "content": json.dumps(json_schema)}])
        recorded = self._fit(sent, schema_tokens if method == "function_calling" else 0, max_tokens)
        conversation = _to_langchain(recorded)
        tools = {name: fields.pop(name) for name in ("tools", "tool_choice") if name in fields}
        raw_outputs: list[str] = []
        problem = ""
        truncated = False
        for attempt in range(self.settings.llm.reask + 1):
            if attempt:
                self._count(reasks=1)
            request = conversation

            def call(request: list[BaseMessage] = request) -> Any:
                return self.chat.invoke(request, extra_body=fields, **tools)

            started = time.monotonic()
            message = self._call(call)
            seconds = time.monotonic() - started
            self.capabilities.accepted(method)
            self._count_tokens(message)
            reply = read_reply(message, max_tokens)
            raw_outputs.append(reply.raw)
            truncated = reply.truncated
            if truncated:
                self._count(truncated=1)
            if reply.problem:
                problem = reply.problem
            else:
                try:
                    parsed = schema.model_validate(reply.data)
                except ValidationError as error:
                    problem = f"output does not match the schema {schema.__name__}: {short(error)}"
                    if truncated:
                        problem = (f"output truncated at the token limit (max_tokens={max_tokens}, "
                                   f"finish_reason={reply.finish_reason}): {problem}")
                else:
                    self._record_call(method, schema.__name__, recorded, message, reply.raw, seconds, attempt)
                    return parsed
            self._record_call(method, schema.__name__, recorded, message, reply.raw, seconds, attempt,
                              problem)
            advice = ("It was cut off at the token limit: reply again, much shorter, with"
                      if truncated else "Reply again with")
            turn = [{"role": "assistant", "content": reply.raw},
                    {"role": "user", "content": f"Your previous reply was rejected: {problem}. {advice} one "
                                                f"JSON object that matches the schema {schema.__name__}."}]
            conversation = [*conversation, *_to_langchain(turn)]
            recorded = [*recorded, *turn]
        raise LLMOutputError(f"{self._who()}: {problem} (after {self.settings.llm.reask} re-ask(s), "
                             f"method {method})", raw_outputs, truncated=truncated, step=current_step())

    # ---- transport ------------------------------------------------------------------------------

    def _count_tokens(self, message: Any) -> None:
        usage = getattr(message, "usage_metadata", None) or {}
        self._count(calls=1, prompt_tokens=int(usage.get("input_tokens", 0)),
                    completion_tokens=int(usage.get("output_tokens", 0)))

    def _call(self, invoke: Callable[[], Any]) -> Any:
        """Run one request, retrying by error kind; every provider error ends as an LLMError."""
        import httpx
        import openai

        llm = self.settings.llm
        overload_tries = timeout_tries = 0
        while True:
            try:
                with self._semaphore:
                    return invoke()
            except (openai.OpenAIError, httpx.HTTPError, json.JSONDecodeError) as error:
                kind = classify(error) or "overload"
                who = self._who()
                status = getattr(error, "status_code", None)
                detail = f"{f'HTTP {status} ' if status else ''}{type(error).__name__}: {short(error)}"
                record("llm_error", model=self.model, step=current_step(), error_kind=kind, error=detail)
                if kind == "request_invalid":
                    raise LLMRequestError(f"{who}: request refused as invalid: {detail}", kind=kind,
                                          step=current_step()) from error
                if kind in ("auth", "output"):
                    if kind == "output":
                        raise LLMOutputError(f"{who}: {detail}", [], truncated="Length" in detail,
                                             step=current_step()) from error
                    raise LLMError(f"{who}: {detail}", kind=kind, step=current_step()) from error
                if kind == "timeout":
                    timeout_tries += 1
                    if timeout_tries > llm.timeout_retries:
                        raise LLMError(f"{who}: gave up after {timeout_tries} attempt(s), each timed out "
                                       f"after {llm.effective_timeout_s:g} s: {detail}", kind=kind,
                                       step=current_step()) from error
                    wait = self.backoff_s
                else:
                    overload_tries += 1
                    if overload_tries > llm.max_retries:
                        raise LLMError(f"{who}: gave up after {overload_tries} attempt(s) "
                                       f"(server overloaded or unreachable): {detail}", kind=kind,
                                       step=current_step()) from error
                    retry_after = _retry_after_seconds(error)
                    backoff = self.backoff_s * 2 ** (overload_tries - 1)
                    wait = retry_after if retry_after is not None else backoff
                self._count(retries=1)
                wait = min(wait, self.max_backoff_s)
                record("retry", model=self.model, error_kind=kind, wait_s=round(wait, 3),
                       attempt=overload_tries + timeout_tries)
                self._sleep(wait)
