"""Chat models for every role (agent, judge, builder) over any OpenAI-compatible endpoint.

- :func:`get_chat_model` builds a ``ChatOpenAI`` (langchain-openai) from settings; its own retries are
  off because :class:`LLMClient` does them: exponential backoff on timeouts, connection errors and 5xx,
  and on 429 the wait the server asks for in ``Retry-After``.
- :class:`LLMClient` adds structured output with re-asking, a persistent SQLite response cache (a re-run
  makes zero calls), a concurrency limit and call/token accounting.
- The model registry (``agents/models.yaml``) records each backbone's knowledge cutoff;
  :func:`contamination_risk` flags a model that may know the future of a task (unknown models are flagged).

API keys are read from settings or the environment and are never logged or written.
"""

from __future__ import annotations

import email.utils
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from foresci.artifacts import sha256_json
from foresci.resources import declarative_file
from foresci.yamlio import read_yaml_mapping

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage
    from langchain_openai import ChatOpenAI

    from foresci.settings import Settings

Role = Literal["agent", "judge", "builder"]
SchemaT = TypeVar("SchemaT", bound=BaseModel)
MessageLike = Any  # a langchain BaseMessage, a (role, content) tuple or a {"role", "content"} dict
PLACEHOLDER_KEY = "not-needed"


class LLMError(RuntimeError):
    """A model call that failed for good (after retries, or on a non-retryable HTTP error)."""


class LLMOutputError(LLMError):
    """The model's output stayed malformed or schema-violating after every re-ask."""

    def __init__(self, message: str, raw_outputs: list[str]) -> None:
        super().__init__(message)
        self.raw_outputs = raw_outputs


# ---- model registry -----------------------------------------------------------------------------

class ModelInfo(BaseModel):
    """A backbone and what it may know: its training-data (knowledge) cutoff."""

    model_config = ConfigDict(extra="forbid")

    name: str
    knowledge_cutoff: date = Field(description="last date the model's training data covers")
    provider: str = ""
    notes: str = ""


def load_model_registry(path: Path | None = None) -> dict[str, ModelInfo]:
    """Read the model registry YAML (default ``agents/models.yaml``); errors name the file and entry."""
    path = path or declarative_file("agents", "models.yaml")
    return dict(_load_registry_cached(str(path)))


@lru_cache(maxsize=8)
def _load_registry_cached(path_text: str) -> tuple[tuple[str, ModelInfo], ...]:
    path = Path(path_text)
    data = read_yaml_mapping(path)
    models = data.get("models")
    if not isinstance(models, dict):
        raise ValueError(f"{path}: expected a top-level 'models:' mapping of name -> entry")
    entries: list[tuple[str, ModelInfo]] = []
    for name, entry in models.items():
        if not isinstance(entry, dict):
            raise ValueError(f"{path}: models.{name}: expected a mapping with knowledge_cutoff")
        try:
            entries.append((str(name), ModelInfo(name=str(name), **entry)))
        except ValidationError as error:
            raise ValueError(f"{path}: models.{name}: {error}") from error
    return tuple(entries)


def knowledge_cutoff(model: str, registry: dict[str, ModelInfo] | None = None) -> date | None:
    """The registered knowledge cutoff of ``model`` (None when the model is not registered)."""
    registry = load_model_registry() if registry is None else registry
    info = registry.get(model)
    return info.knowledge_cutoff if info else None


def contamination_risk(model: str | None, task_cutoff: date,
                       registry: dict[str, ModelInfo] | None = None) -> bool:
    """True when ``model`` may know literature after ``task_cutoff`` (unknown models count as risky).

    ``model=None`` (a non-LLM method) is never at risk.
    """
    if model is None:
        return False
    cutoff = knowledge_cutoff(model, registry)
    return cutoff is None or cutoff > task_cutoff


# ---- chat model factory -------------------------------------------------------------------------

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
    return ChatOpenAI(base_url=settings.llm.base_url, model=model or role_model(settings, role),
                      api_key=_api_key(settings), temperature=settings.llm.temperature,
                      timeout=settings.llm.timeout_s, max_retries=0)


# ---- accounting and cache -----------------------------------------------------------------------

@dataclass
class Usage:
    """Calls and tokens spent; cache hits are counted apart (they cost nothing)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_hits: int = 0
    retries: int = 0
    reasks: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, **amounts: int) -> None:
        """Add to the named counters (thread-safe)."""
        with self._lock:
            for name, amount in amounts.items():
                setattr(self, name, getattr(self, name) + amount)

    def as_dict(self) -> dict[str, int]:
        """The counters as a plain dict."""
        return {"calls": self.calls, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "cache_hits": self.cache_hits,
                "retries": self.retries, "reasks": self.reasks}


class ResponseCache:
    """A persistent key -> JSON value store in SQLite (safe to share between threads)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        self._connection = sqlite3.connect(str(path), check_same_thread=False, timeout=30)
        with self._lock, self._connection:
            self._connection.execute("PRAGMA journal_mode=WAL")
            self._connection.execute("CREATE TABLE IF NOT EXISTS responses "
                                     "(key TEXT PRIMARY KEY, model TEXT, value TEXT NOT NULL)")

    def get(self, key: str) -> Any | None:
        """The cached value for ``key``, or None."""
        with self._lock:
            row = self._connection.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, model: str, value: Any) -> None:
        """Store ``value`` (JSON-serialisable) under ``key``."""
        with self._lock, self._connection:
            self._connection.execute("INSERT OR REPLACE INTO responses (key, model, value) VALUES (?, ?, ?)",
                                     (key, model, json.dumps(value, ensure_ascii=False)))

    def __len__(self) -> int:
        with self._lock:
            return int(self._connection.execute("SELECT COUNT(*) FROM responses").fetchone()[0])


_CACHES: dict[Path, ResponseCache] = {}
_CACHES_LOCK = threading.Lock()


def response_cache(cache_dir: Path) -> ResponseCache:
    """The process-wide ResponseCache of ``cache_dir`` (one SQLite connection per file)."""
    path = (cache_dir / "llm_responses.sqlite").resolve()
    with _CACHES_LOCK:
        if path not in _CACHES:
            _CACHES[path] = ResponseCache(path)
        return _CACHES[path]


# ---- messages -----------------------------------------------------------------------------------

def normalise_messages(messages: Sequence[MessageLike]) -> list[dict[str, str]]:
    """Messages as ``[{"role": ..., "content": ...}]`` (the form that is hashed and sent)."""
    from langchain_core.messages import BaseMessage

    roles = {"human": "user", "ai": "assistant", "system": "system", "user": "user", "assistant": "assistant"}
    normalised: list[dict[str, str]] = []
    for index, message in enumerate(messages):
        if isinstance(message, BaseMessage):
            role, content = message.type, message.content
        elif isinstance(message, tuple) and len(message) == 2:
            role, content = message
        elif isinstance(message, dict) and {"role", "content"} <= set(message):
            role, content = message["role"], message["content"]
        else:
            raise TypeError(f"message {index}: expected a BaseMessage, (role, content) or {{role, content}}")
        if role not in roles:
            raise ValueError(f"message {index}: unknown role {role!r}")
        normalised.append({"role": roles[role], "content": content if isinstance(content, str) else
                           json.dumps(content, ensure_ascii=False)})
    return normalised


def _to_langchain(messages: list[dict[str, str]]) -> list[BaseMessage]:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    kinds = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
    return [kinds[message["role"]](content=message["content"]) for message in messages]


def _retry_after_seconds(error: Exception) -> float | None:
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    if (milliseconds := headers.get("retry-after-ms")) is not None:
        try:
            return float(milliseconds) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value)
        return max(0.0, parsed.timestamp() - time.time())


def _raw_text(message: Any) -> str:
    tool_calls = getattr(message, "tool_calls", None) or []
    if tool_calls:
        return json.dumps(tool_calls[0].get("args", {}), ensure_ascii=False)
    invalid = getattr(message, "invalid_tool_calls", None) or []
    if invalid:
        return str(invalid[0].get("args", ""))
    content = getattr(message, "content", "")
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)


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
        self._semaphore = threading.BoundedSemaphore(max(1, settings.llm.concurrency))
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

    def _cache_key(self, kind: str, messages: list[dict[str, str]], schema: dict[str, Any] | None) -> str:
        return sha256_json({
            "model": self.model, "base_url": self.settings.llm.base_url, "messages": messages,
            "params": {"kind": kind, "temperature": self.settings.llm.temperature,
                       "method": self.settings.llm.structured_output_method if schema is not None else None},
            "schema": sha256_json(schema) if schema is not None else None,
        })

    # ---- public calls ---------------------------------------------------------------------------

    def invoke_text(self, messages: Sequence[MessageLike]) -> str:
        """The model's text answer to ``messages`` (cached; retried on transient errors)."""
        normalised = normalise_messages(messages)
        key = self._cache_key("text", normalised, None)
        if self.cache is not None and (cached := self.cache.get(key)) is not None:
            self._count(cache_hits=1)
            return str(cached)
        message = self._call(lambda: self.chat.invoke(_to_langchain(normalised)))
        self._count_tokens(message)
        text = _raw_text(message)
        if self.cache is not None:
            self.cache.put(key, self.model, text)
        return text

    def invoke_structured(self, messages: Sequence[MessageLike], schema: type[SchemaT]) -> SchemaT:
        """The model's answer parsed into ``schema``; malformed or invalid output is re-asked
        ``settings.llm.reask`` times, then :class:`LLMOutputError` is raised."""
        normalised = normalise_messages(messages)
        json_schema = schema.model_json_schema()
        key = self._cache_key("structured", normalised, json_schema)
        if self.cache is not None and (cached := self.cache.get(key)) is not None:
            self._count(cache_hits=1)
            return schema.model_validate(cached)
        method = self.settings.llm.structured_output_method
        normalised_sent = list(normalised)
        if method == "json_mode":
            normalised_sent.append({"role": "system", "content": _json_mode_instruction(json_schema)})
        runnable = self.chat.with_structured_output(json_schema, method=method, include_raw=True)
        conversation = _to_langchain(normalised_sent)
        raw_outputs: list[str] = []
        problem = ""
        for attempt in range(self.settings.llm.reask + 1):
            if attempt:
                self._count(reasks=1)
            result: dict[str, Any] = self._call(partial(runnable.invoke, conversation))
            self._count_tokens(result["raw"])
            raw = _raw_text(result["raw"])
            raw_outputs.append(raw)
            if result.get("parsing_error") is not None or result.get("parsed") is None:
                problem = f"output is not valid JSON: {result.get('parsing_error') or 'empty output'}"
            else:
                try:
                    parsed = schema.model_validate(result["parsed"])
                except ValidationError as error:
                    problem = f"output does not match the schema {schema.__name__}: {_short(error)}"
                else:
                    if self.cache is not None:
                        self.cache.put(key, self.model, parsed.model_dump(mode="json"))
                    return parsed
            conversation = [*conversation, *_to_langchain([
                {"role": "assistant", "content": raw},
                {"role": "user", "content": f"Your previous reply was rejected: {problem}. Reply again with "
                                            f"one JSON object that matches the schema {schema.__name__}."}])]
        raise LLMOutputError(f"model {self.model!r} ({self.role}): {problem} "
                             f"(after {self.settings.llm.reask} re-ask(s))", raw_outputs)

    # ---- transport ------------------------------------------------------------------------------

    def _count_tokens(self, message: Any) -> None:
        usage = getattr(message, "usage_metadata", None) or {}
        self._count(calls=1, prompt_tokens=int(usage.get("input_tokens", 0)),
                    completion_tokens=int(usage.get("output_tokens", 0)))

    def _call(self, invoke: Callable[[], Any]) -> Any:
        import openai

        retryable = (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError,
                     openai.APIResponseValidationError, json.JSONDecodeError)
        attempts = self.settings.llm.max_retries + 1
        for attempt in range(attempts):
            try:
                with self._semaphore:
                    return invoke()
            except retryable as error:
                if attempt == attempts - 1:
                    raise LLMError(f"model {self.model!r} ({self.role}): gave up after {attempts} "
                                   f"attempt(s): {type(error).__name__}: {_short(error)}") from error
                wait = _retry_after_seconds(error)
                if wait is None:
                    wait = self.backoff_s * (2 ** attempt)
                self._count(retries=1)
                self._sleep(min(wait, self.max_backoff_s))
            except openai.APIStatusError as error:
                if error.status_code >= 500:
                    if attempt == attempts - 1:
                        raise LLMError(f"model {self.model!r}: HTTP {error.status_code} after {attempts} "
                                       f"attempt(s)") from error
                    self._count(retries=1)
                    self._sleep(min(self.backoff_s * (2 ** attempt), self.max_backoff_s))
                    continue
                raise LLMError(f"model {self.model!r} ({self.role}): HTTP {error.status_code}: "
                               f"{_short(error)}") from error
        raise LLMError(f"model {self.model!r}: no attempt was made")


def _json_mode_instruction(json_schema: dict[str, Any]) -> str:
    return ("Answer with one JSON object (no prose, no code fence) that validates against this JSON schema:\n"
            + json.dumps(json_schema, ensure_ascii=False))


def _short(error: Exception, limit: int = 400) -> str:
    text = " ".join(str(error).split())
    return text if len(text) <= limit else text[:limit] + "..."
