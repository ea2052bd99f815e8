"""Transcript events: what one answer or one judge verdict cost, call by call.

A transcript is the ordered list of events recorded while one unit of work ran (one task answered by
one method, or one score judged): messages sent, raw completions, tool calls with their arguments and
the ids/dates they returned, token usage, timings and cache hits. Code that does such work calls
:func:`record`; whoever runs the unit opens :func:`recording` around it and stores the events.
Outside a recording, :func:`record` does nothing, so library code can always call it.
:mod:`foresci.core.transcript_log` stores finished transcripts beside the rows that reference them.

Event kinds the package records: ``llm_call`` (messages sent, raw completion, tokens, seconds, method,
re-ask attempt, the graph step), ``cache_hit`` (the request as the cache keys it, i.e. before any
context-window trim, and the cached response: no call made), ``retry`` and
``llm_error`` (transport failures), ``fallback`` (a structured-output method the endpoint refused),
``context_trim`` (evidence lines dropped to fit the context window), ``tool_call`` (KB tools),
``sandbox`` (a sandboxed plug-in's process: start-up and channel milliseconds). An
``llm_call`` marked ``cached`` counts as a cache hit. The model's text is ``completion`` (``response`` for a
cache hit, ``reply`` for a tool-calling step).

Example::

    with recording() as transcript:
        record("tool_call", tool="search_papers", arguments={"query": "rag"}, result_ids=["2501.00001"])
    transcript.events[0]["kind"] == "tool_call"
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

TOTALLED = ("calls", "prompt_tokens", "completion_tokens", "cache_hits", "retries", "reasks", "fallbacks",
            "evidence_dropped", "tool_calls", "llm_seconds")


@dataclass
class Transcript:
    """The events of one unit of work, in the order they happened (threads of one unit share it)."""

    events: list[dict[str, Any]] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        """Picklable (e.g. returned from a worker process): everything but the lock."""
        return {"events": self.events, "started": self.started}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.events, self.started, self._lock = state["events"], state["started"], threading.Lock()

    def add(self, kind: str, fields: dict[str, Any]) -> None:
        """Append one event, stamped with its offset in seconds from the start of the recording."""
        with self._lock:
            self.events.append({"kind": kind, "t_s": round(time.monotonic() - self.started, 4), **fields})

    def totals(self) -> dict[str, float]:
        """What the unit cost, summed over its events: model calls and tokens, cache hits, retries,
        re-asks, structured-output fallbacks, evidence lines dropped to fit the window, tool calls and
        seconds spent waiting for the model."""
        sums: dict[str, float] = dict.fromkeys(TOTALLED, 0)
        with self._lock:
            events = list(self.events)
        for event in events:
            kind = "cache_hit" if event["kind"] == "llm_call" and event.get("cached") else event["kind"]
            if kind == "llm_call":
                sums["calls"] += 1
                sums["prompt_tokens"] += event.get("prompt_tokens") or 0
                sums["completion_tokens"] += event.get("completion_tokens") or 0
                sums["llm_seconds"] += event.get("seconds") or 0.0
                sums["reasks"] += 1 if event.get("attempt") else 0
            elif kind in ("cache_hit", "retry", "fallback", "tool_call"):
                sums[{"cache_hit": "cache_hits", "retry": "retries", "fallback": "fallbacks",
                      "tool_call": "tool_calls"}[kind]] += 1
            elif kind == "context_trim":
                sums["evidence_dropped"] += event.get("evidence_dropped") or 0
        sums["llm_seconds"] = round(sums["llm_seconds"], 3)
        return sums


_CURRENT: ContextVar[Transcript | None] = ContextVar("foresci_transcript", default=None)


@contextmanager
def recording() -> Iterator[Transcript]:
    """Record every :func:`record` call made in this context (threads started inside: ``copy_context``)."""
    transcript = Transcript()
    token = _CURRENT.set(transcript)
    try:
        yield transcript
    finally:
        _CURRENT.reset(token)


def current() -> Transcript | None:
    """The transcript being recorded in this context, if any."""
    return _CURRENT.get()


def record(kind: str, **fields: Any) -> None:
    """Add an event (``llm_call``, ``cache_hit``, ``tool_call``, ``note``…) to the open transcript, if any."""
    transcript = _CURRENT.get()
    if transcript is not None:
        transcript.add(kind, fields)
