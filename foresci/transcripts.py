"""Transcript events: what one answer or one judge verdict cost, call by call.

A transcript is the ordered list of events recorded while one unit of work ran (one task answered by
one method, or one score judged): messages sent, raw completions, tool calls with their arguments and
the ids/dates they returned, token usage, timings and cache hits. Code that does such work calls
:func:`record`; whoever runs the unit opens :func:`recording` around it and stores the events.
Outside a recording, :func:`record` does nothing, so library code can always call it.

Example::

    with recording() as transcript:
        record("tool_call", tool="search_papers", arguments={"query": "rag"}, result_ids=["2501.00001"])
    transcript.events[0]["kind"] == "tool_call"
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Transcript:
    """The events of one unit of work, in the order they happened."""

    events: list[dict[str, Any]] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    def add(self, kind: str, fields: dict[str, Any]) -> None:
        """Append one event, stamped with its offset in seconds from the start of the recording."""
        self.events.append({"kind": kind, "t_s": round(time.monotonic() - self.started, 4), **fields})


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
