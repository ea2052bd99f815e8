"""A text's extracted noun-phrase rows (and induction's term list) kept on disk, so a round's opening mines
each paper's text once.

:func:`foresci.taxonomy.phrases.document_phrase_rows` is a pure function of the text, the word limits and
the extraction code. Every round opens on the KB the previous one read plus a month of papers, so without
this store each opening mined all ~21,000 texts of the four real domains again (measured on the real replay
KB at 2025-12-31: 34.5 s CPU with an empty store, 32.3 s after the previous round filled it, load ~6).
The store is a SQLite table in the
cache folder: key = a hash of (word limits, text), value = the rows in :mod:`marshal` form. The unigram and
bigram terms induction's term matrix counts (:func:`foresci.taxonomy.text.terms`) are kept the same way
(:func:`stored`). It is tied to the extraction code: a change of ``phrases.py``, ``text.py`` or of the
lemminflect version empties it.

Active only inside :func:`phrase_store` (the round's opening uses it); elsewhere nothing is read or
written. Fresh rows are written in batches and when the block ends; a process forked inside the block
opens its own connection and reads only.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

FILE_NAME = "phrase-rows.sqlite"
_BATCH = 4096  # fresh rows held in memory before they are written


def code_version() -> str:
    """A hash of what the rows depend on besides the text: ``phrases.py``, ``text.py`` and the lemminflect
    version."""
    import lemminflect

    folder = Path(__file__).parent
    source = (folder / "phrases.py").read_bytes() + b"\0" + (folder / "text.py").read_bytes()
    return hashlib.sha256(source + str(getattr(lemminflect, "__version__", "")).encode()).hexdigest()[:24]


def row_key(text: str, min_words: int, max_words: int) -> bytes:
    """The store's key of one (text, word limits)."""
    return hashlib.blake2b(f"{min_words}:{max_words}:{text}".encode(), digest_size=16).digest()


class PhraseStore:
    """The SQLite table of (key -> marshalled phrase rows); thread-safe; counts its hits and misses."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.version = code_version()
        self.hits = 0
        self.misses = 0
        self._pending: dict[bytes, bytes] = {}
        self._lock = threading.Lock()
        self._pid = os.getpid()
        self._connection = self._connect()

    def _connect(self) -> sqlite3.Connection:
        from foresci.core.errors import naming_the_file

        self.path.parent.mkdir(parents=True, exist_ok=True)
        with naming_the_file(self.path):
            connection = sqlite3.connect(self.path, check_same_thread=False, timeout=60)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")  # a cache: a lost last batch is mined again
            connection.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT)")
            connection.execute("CREATE TABLE IF NOT EXISTS rows (key BLOB PRIMARY KEY, value BLOB NOT NULL)")
            found = connection.execute("SELECT value FROM meta WHERE name = 'code'").fetchone()
            if found is None or found[0] != self.version:
                connection.execute("DELETE FROM rows")
                connection.execute("INSERT OR REPLACE INTO meta (name, value) VALUES ('code', ?)",
                                   (self.version,))
            connection.commit()
        return connection

    def _forked(self) -> bool:
        return os.getpid() != self._pid

    def get(self, key: bytes) -> Any | None:
        """The stored rows of ``key`` (None: not stored)."""
        if self._forked():
            return None
        with self._lock:
            blob = self._pending.get(key)
            if blob is None:
                found = self._connection.execute("SELECT value FROM rows WHERE key = ?", (key,)).fetchone()
                blob = None if found is None else found[0]
            if blob is None:
                self.misses += 1
                return None
            self.hits += 1
        return marshal.loads(blob)

    def put(self, key: bytes, rows: Any) -> None:
        """Keep fresh rows (written with the next batch)."""
        if self._forked():
            return
        with self._lock:
            self._pending[key] = marshal.dumps(rows)
            full = len(self._pending) >= _BATCH
        if full:
            self.flush()

    def flush(self) -> None:
        """Write the fresh rows held in memory."""
        if self._forked():
            return
        from foresci.core.errors import naming_the_file

        with self._lock, naming_the_file(self.path):
            if self._pending:
                self._connection.executemany("INSERT OR IGNORE INTO rows (key, value) VALUES (?, ?)",
                                             list(self._pending.items()))
                self._connection.commit()
                self._pending.clear()

    def close(self) -> None:
        """Write what is pending and close the database."""
        self.flush()
        if not self._forked():
            self._connection.close()


_ACTIVE: list[PhraseStore] = []


def stored(kind: str, text: str, compute: Callable[[str], Any]) -> Any:
    """``compute(text)`` (a pure function of the text named ``kind``), read from the active store when it
    holds it and kept there when not; computed as is outside a :func:`phrase_store` block."""
    store = active()
    if store is None:
        return compute(text)
    key = hashlib.blake2b(f"{kind}:{text}".encode(), digest_size=16).digest()
    value = store.get(key)
    if value is None:
        value = compute(text)
        store.put(key, value)
    return value


def active() -> PhraseStore | None:
    """The store of the innermost :func:`phrase_store` block (None outside any)."""
    return _ACTIVE[-1] if _ACTIVE else None


@contextlib.contextmanager
def phrase_store(cache_dir: Path | str) -> Iterator[PhraseStore]:
    """Read and keep extracted phrase rows in ``cache_dir``/phrase-rows.sqlite for the block's duration."""
    store = PhraseStore(Path(cache_dir) / FILE_NAME)
    _ACTIVE.append(store)
    try:
        yield store
    finally:
        _ACTIVE.remove(store)
        store.close()
