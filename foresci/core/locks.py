"""One writer per artifact folder: ``artifact_lock(folder)`` around every command that writes a folder.

The lock is an OS file lock (the ``filelock`` package: ``flock`` on POSIX) on ``folder/.foresci.lock``,
so it is released by the kernel when the holding process dies, even by SIGKILL; a stale lock file never
blocks a later writer. The holder writes its pid and start time beside the lock so that a second writer
can say who holds the folder. By default a second writer (another ``kb build``, ``kb update``, ``run``
or ``eval`` into the same folder) does not wait: it raises :class:`ArtifactLockedError` (a
:class:`~foresci.core.errors.UserError`, printed as one line by the CLI); ``timeout`` makes it wait that
many seconds first (``None`` or a negative value waits for ever).

The lock is re-entrant within one process (a command that calls another writer of the same folder does
not deadlock with itself).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from filelock import FileLock, Timeout

from foresci.core.errors import UserError, naming_the_file

LOCK_NAME = ".foresci.lock"
OWNER_NAME = ".foresci.lock.owner"

_held: dict[Path, int] = {}
_held_guard = threading.Lock()


class ArtifactLockedError(UserError):
    """Another process is writing the artifact folder."""


def _owner(folder: Path) -> str:
    try:
        return (folder / OWNER_NAME).read_text(encoding="utf-8").strip() or "another process"
    except OSError:
        return "another process"


@contextmanager
def artifact_lock(folder: Path | str, *, timeout: float | None = 0.0) -> Iterator[Path]:
    """Hold the write lock of ``folder`` (created if missing) for the ``with`` body; yield the folder.

    ``timeout``: seconds to wait for another writer (0: fail at once, ``None`` or negative: wait for
    ever). When the folder stays locked, raise :class:`ArtifactLockedError` naming the folder and the
    holder.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    key = folder.resolve()
    with _held_guard:
        if key in _held:
            _held[key] += 1
            reentered = True
        else:
            reentered = False
    if reentered:
        try:
            yield folder
        finally:
            with _held_guard:
                _held[key] -= 1
        return
    lock = FileLock(str(folder / LOCK_NAME), thread_local=False)
    try:
        lock.acquire(timeout=-1 if timeout is None or timeout < 0 else timeout)
    except Timeout as error:
        raise ArtifactLockedError(
            f"locked: another foresci process is writing into this folder ({_owner(folder)}); wait for "
            "it to finish or use another folder",
            path=folder,
        ) from error
    try:
        with naming_the_file(folder / OWNER_NAME):
            (folder / OWNER_NAME).write_text(
                f"pid {os.getpid()} since {datetime.now(UTC).isoformat(timespec='seconds')}\n",
                encoding="utf-8",
            )
        with _held_guard:
            _held[key] = 1
        yield folder
    finally:
        with _held_guard:
            _held.pop(key, None)
        lock.release()
