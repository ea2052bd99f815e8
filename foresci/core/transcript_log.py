"""Transcripts on disk: one JSON line per answer or judged score, beside the rows that reference them.

``RUNDIR/transcripts.jsonl`` holds the transcripts of ``answers.jsonl`` rows and
``RUNDIR/judge_transcripts.jsonl`` those of ``scores.jsonl`` rows; a row names its transcript by id
(``Answer.transcript``, ``Score.transcript``). JSONL rather than SQLite because the rows that point
here are JSONL appended the same way: one fsynced line per finished unit, a torn last line cut off on
the next open (:class:`foresci.core.io.AppendLog`), so a killed run leaves no reference to a transcript that
was not written (the transcript goes first, the row second). It also reads with any text tool.

Compact: within one transcript every distinct message is stored once (``messages``) and events list
indices into it, so re-asks and multi-step methods, which resend the same conversation, do not repeat
it. Secrets: the configured API key (and ``OPENAI_API_KEY``) is replaced by ``***`` in every line
before it is written; URL credentials are masked like every file foresci writes.

Example::

    log = TranscriptLog(run_dir / TRANSCRIPTS_FILE, secrets_of(settings))
    with recording() as transcript:
        ...
    row.transcript = log.write(transcript, "answer", key)
    read_transcripts(run_dir / TRANSCRIPTS_FILE, {row.transcript})[row.transcript]["events"]
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from foresci.core.io import AppendLog, JsonlError, atomic_path, repair_torn_tail
from foresci.core.redact import MASK, mask_urls_in
from foresci.core.transcripts import Transcript
from foresci.llm.config import PLACEHOLDER_KEY

if TYPE_CHECKING:
    from foresci.core.settings import Settings

TRANSCRIPTS_FILE = "transcripts.jsonl"
JUDGE_TRANSCRIPTS_FILE = "judge_transcripts.jsonl"
Unit = Literal["answer", "forecast", "judge"]


def secrets_of(settings: Settings) -> list[str]:
    """The secret strings no transcript may hold: the configured API key and ``OPENAI_API_KEY``."""
    values = [settings.llm.api_key.get_secret_value(), os.environ.get("OPENAI_API_KEY", "")]
    return [value for value in dict.fromkeys(values) if value and value != PLACEHOLDER_KEY]


def pack(transcript: Transcript, unit: Unit, key: str, **about: Any) -> dict[str, Any]:
    """The stored form of ``transcript``: each distinct message once, events pointing at them by index.

    ``about`` adds fields that describe the unit (e.g. the row's status and error).
    """
    table: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    events = []
    for event in transcript.events:
        messages = event.get("messages")
        if isinstance(messages, list) and all(isinstance(message, dict) for message in messages):
            positions = []
            for message in messages:
                fingerprint = json.dumps(message, sort_keys=True, ensure_ascii=False, default=str)
                if fingerprint not in index:
                    index[fingerprint] = len(table)
                    table.append(message)
                positions.append(index[fingerprint])
            event = {**event, "messages": positions}
        events.append(event)
    return {"id": f"t-{uuid.uuid4().hex[:16]}", "unit": unit, "key": key, **about,
            "totals": transcript.totals(), "messages": table, "events": events}


def unpack(stored: dict[str, Any]) -> dict[str, Any]:
    """A stored transcript with every event's message indices replaced by the messages themselves."""
    table = stored.get("messages") or []
    events = [
        {**event, "messages": [table[position] for position in event["messages"]]}
        if isinstance(event.get("messages"), list) else event
        for event in stored.get("events", [])
    ]
    return {**stored, "events": events}


def redact(line: str, secrets: Sequence[str]) -> str:
    """``line`` with every secret (as written and as JSON-escaped) replaced by ``***``."""
    for secret in secrets:
        for form in {secret, json.dumps(secret, ensure_ascii=False)[1:-1]}:
            line = line.replace(form, MASK)
    return line


class TranscriptLog:
    """Appends transcripts durably to one JSONL file (thread-safe); returns the id a row references."""

    def __init__(self, path: Path, secrets: Sequence[str] = ()) -> None:
        self.path = path
        self._log = AppendLog(path)
        self._secrets = list(secrets)

    def write(self, transcript: Transcript, unit: Unit, key: str, **about: Any) -> str:
        """Store ``transcript`` of the unit ``key`` (fsynced before this returns); return its id."""
        written, line = transcript_line(transcript, unit, key, self._secrets, **about)
        self._log.append_line(line)
        return written


def transcript_line(transcript: Transcript, unit: Unit, key: str, secrets: Sequence[str],
                    **about: Any) -> tuple[str, str]:
    """The id and the JSONL line (newline included) :meth:`TranscriptLog.write` stores for a transcript."""
    stored = pack(transcript, unit, key, **about)
    line = json.dumps(stored, ensure_ascii=False, sort_keys=True, default=str)  # dates as ISO text
    return str(stored["id"]), redact(mask_urls_in(line), secrets) + "\n"


def read_transcripts(path: Path, ids: Iterable[str] | None = None) -> dict[str, dict[str, Any]]:
    """The transcripts of ``path`` by id, unpacked (only ``ids`` when given; {} when there is no file).

    Read-only: a torn last line (a writer killed mid-line, or still writing) is skipped, not cut off.
    """
    if not path.is_file():
        return {}
    wanted = set(ids) if ids is not None else None
    found: dict[str, dict[str, Any]] = {}
    lines = path.read_text(encoding="utf-8").split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            stored = json.loads(line)
        except json.JSONDecodeError as error:
            if number == len(lines):
                break  # the torn tail of an interrupted write
            raise JsonlError(path, number, f"invalid JSON: {error.msg}") from error
        if wanted is None or stored.get("id") in wanted:
            found[str(stored["id"])] = unpack(stored)
    return found


def prune_transcripts(path: Path, keep: Iterable[str]) -> int:
    """Rewrite ``path`` with only the transcripts in ``keep`` (atomically); return how many were dropped.

    Used when the rows that reference transcripts are rewritten (a re-evaluation replaces scores.jsonl),
    so transcripts of replaced rows do not pile up.
    """
    repair_torn_tail(path)
    if not path.is_file():
        return 0
    kept_ids = set(keep)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if line.strip() and json.loads(line).get("id") in kept_ids]
    if len(kept) == len(lines):
        return 0
    with atomic_path(path) as temporary:
        temporary.write_text("".join(kept), encoding="utf-8")
    return len(lines) - len(kept)


REPLY_FIELDS = ("completion", "response", "reply")  # the model's text: a call, a cache hit, a tool step


def event_parts(event: dict[str, Any]) -> dict[str, Any]:
    """One unpacked event split for display: ``kind``, ``t_s``, ``messages`` (role, content and any other
    message fields such as tool calls, as JSON), ``reply`` (the model's text or cached value, as text) and
    ``fields`` (everything else: tool arguments and results, tokens, seconds, method, step) and ``cached``
    (whether the reply came from the response cache)."""
    reply = next((event[name] for name in REPLY_FIELDS if event.get(name) is not None), None)
    if reply is not None and not isinstance(reply, str):
        reply = json.dumps(reply, ensure_ascii=False, indent=1, default=str)
    messages = []
    for message in event.get("messages") or []:
        content = message.get("content")
        extra = {name: value for name, value in message.items() if name not in ("role", "content")}
        messages.append({
            "role": str(message.get("role", "")),
            "content": content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
            if content is not None else "",
            "extra": json.dumps(extra, ensure_ascii=False, sort_keys=True, default=str) if extra else "",
        })
    shown = {"kind", "t_s", "messages", *REPLY_FIELDS}
    fields = {name: value for name, value in event.items() if name not in shown and value is not None}
    cached = event.get("kind") == "cache_hit" or bool(event.get("cached"))
    return {"kind": str(event.get("kind", "")), "t_s": event.get("t_s", 0), "messages": messages,
            "reply": reply, "fields": fields, "cached": cached}
