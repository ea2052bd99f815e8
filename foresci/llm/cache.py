"""Call/token accounting and the persistent response cache (a re-run makes zero model calls)."""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Usage:
    """Calls and tokens spent; cache hits are counted apart (they cost nothing)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_hits: int = 0
    retries: int = 0
    reasks: int = 0
    truncated: int = 0
    fallbacks: int = 0
    evidence_dropped: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, **amounts: int) -> None:
        """Add to the named counters (thread-safe)."""
        with self._lock:
            for name, amount in amounts.items():
                setattr(self, name, getattr(self, name) + amount)

    def as_dict(self) -> dict[str, int]:
        """The counters as a plain dict."""
        return {name: getattr(self, name) for name in (
            "calls", "prompt_tokens", "completion_tokens", "cache_hits", "retries", "reasks", "truncated",
            "fallbacks", "evidence_dropped")}


class ResponseCache:
    """A persistent key -> JSON value store in SQLite (safe to share between threads)."""

    def __init__(self, path: Path) -> None:
        from foresci.core.errors import naming_the_file

        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        self._connection = sqlite3.connect(str(path), check_same_thread=False, timeout=30)
        with self._lock, naming_the_file(path), self._connection:
            self._connection.execute("PRAGMA journal_mode=WAL")
            self._connection.execute("CREATE TABLE IF NOT EXISTS responses "
                                     "(key TEXT PRIMARY KEY, model TEXT, value TEXT NOT NULL)")

    def get(self, key: str) -> Any | None:
        """The cached value for ``key``, or None."""
        with self._lock:
            row = self._connection.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, model: str, value: Any) -> None:
        """Store ``value`` (JSON-serialisable) under ``key``, credentials in its text masked."""
        from foresci.core.redact import mask_urls_in

        text = mask_urls_in(json.dumps(value, ensure_ascii=False))  # no credential echoed by a server
        from foresci.core.errors import naming_the_file

        with self._lock, naming_the_file(self.path), self._connection:
            self._connection.execute("INSERT OR REPLACE INTO responses (key, model, value) VALUES (?, ?, ?)",
                                     (key, model, text))

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
