"""Read a KB's search files into the page cache ahead of the first searches of a process.

A search memory-maps the KB's vectors, its cached 8-bit screen and BM25 postings. When those files are
not in the page cache (a new process after other work), the first searches fault them in 4 KB at a time:
on the real KB the first ~12 searches took 449, 348, 168, 229, 117 ms ... (28k major page faults, 267 MB).
:func:`prefetch` asks the kernel to read each file in large sequential requests instead, while the
process goes on (loading the query encoder, parsing the query); see ``benchmarks/kb.py`` (``cold_search``)
for the first-search figures of each way.

Ways (``how``):

* ``"fadvise"`` (the default): ``posix_fadvise(POSIX_FADV_WILLNEED)`` on each file, 4 MiB at a time (Linux
  reads at most its readahead window, here 8 MiB, per call: one call for a whole 115 MB file read 7 %
  of it), from a background thread: the kernel reads ahead; nothing is mapped or copied, so the
  process's RSS does not grow (``madvise(MADV_WILLNEED)`` on a file mapping is the same kernel call);
* ``"read"``: a background thread reads each file sequentially in 1 MiB chunks (into one reused buffer);
* ``"none"``: nothing.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path

HOWS = ("fadvise", "read", "none")
CHUNK = 1 << 20  # bytes a sequential read asks for at a time
ADVICE_STEP = 4 << 20  # bytes one WILLNEED call covers (below the kernel's readahead cap)


def prefetch(paths: Iterable[Path], how: str = "fadvise", wait: bool = False) -> threading.Thread | None:
    """Start reading ``paths`` (files that do not exist are skipped) into the page cache; returns the
    thread doing it (joined first when ``wait``), or None for ``how="none"`` or no files."""
    if how not in HOWS:
        raise ValueError(f"prefetch: unknown way {how!r} (one of {', '.join(HOWS)})")
    files = [Path(path) for path in paths if Path(path).is_file()]
    if how == "none" or not files:
        return None
    work = _advise if how == "fadvise" and hasattr(os, "posix_fadvise") else _read
    thread = threading.Thread(target=work, args=(files,), name="foresci-kb-prefetch", daemon=True)
    thread.start()
    if wait:
        thread.join()
    return thread


def _advise(files: list[Path]) -> None:
    for path in files:
        try:
            descriptor = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            size = os.fstat(descriptor).st_size
            for offset in range(0, size, ADVICE_STEP):
                os.posix_fadvise(descriptor, offset, ADVICE_STEP, os.POSIX_FADV_WILLNEED)
        except OSError:
            pass
        finally:
            os.close(descriptor)


def _read(files: list[Path]) -> None:
    buffer = bytearray(CHUNK)
    for path in files:
        try:
            with path.open("rb", buffering=0) as handle:
                while handle.readinto(buffer):
                    pass
        except OSError:
            continue


def drop_from_cache(paths: Iterable[Path]) -> None:
    """Ask the kernel to drop ``paths`` from the page cache (``POSIX_FADV_DONTNEED``, after writing back
    their dirty pages): how a benchmark makes a KB cold. Pages another process maps stay."""
    for path in paths:
        if not Path(path).is_file():
            continue
        descriptor = os.open(path, os.O_RDONLY)
        try:
            os.fdatasync(descriptor)
            os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(descriptor)


def resident_share(path: Path) -> float:
    """Share of ``path``'s pages in the page cache (``mincore``), 0 .. 1; -1 where it cannot be told."""
    import ctypes
    import mmap

    import numpy as np

    size = Path(path).stat().st_size
    if size == 0:
        return 1.0
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        with Path(path).open("rb") as handle:
            mapped = mmap.mmap(handle.fileno(), size, prot=mmap.PROT_READ)
        try:
            page = mmap.PAGESIZE
            pages = (size + page - 1) // page
            vector = (ctypes.c_ubyte * pages)()
            view = np.frombuffer(mapped, dtype=np.uint8)
            result = libc.mincore(ctypes.c_void_p(view.ctypes.data), ctypes.c_size_t(size), vector)
            del view
            if result != 0:
                return -1.0
            return sum(flag & 1 for flag in vector) / pages
        finally:
            mapped.close()
    except (OSError, AttributeError, ValueError):
        return -1.0
