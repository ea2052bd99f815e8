"""One writer per artifact folder: an exclusive ``filelock`` lock on ``FOLDER/.foresci.lock``.

A second writer (another ``kb build``, ``run`` or ``eval`` into the same folder) waits up to ``timeout``
seconds for the first to finish, then fails with a :class:`~foresci.errors.UserError` naming the folder.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from foresci.errors import UserError

LOCK_NAME = ".foresci.lock"


@contextmanager
def artifact_lock(folder: Path, timeout: float = 0.0) -> Iterator[Path]:
    """Hold the folder's writer lock for the ``with`` block (the folder is created if missing).

    ``timeout`` 0 means: fail at once when another process holds it; a negative value waits forever.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(folder / LOCK_NAME))
    try:
        lock.acquire(timeout=timeout)
    except Timeout:
        raise UserError(
            "another foresci process is writing into this folder; "
            "wait for it to finish or use another folder",
            path=folder,
        ) from None
    try:
        yield folder
    finally:
        lock.release()
