"""Thread counts for torch, FAISS, ONNX Runtime and BLAS: one setting, applied before they load.

On a small machine shared with other processes, one thread per library is fastest (a thread that
waits for a busy core stalls the whole parallel region). ``apply_threads`` exports the usual
environment variables, so libraries imported later start with that count, and sets the count of
libraries already imported. The CLI applies it first thing; library code calls ``ensure_threads``
before the first encode or search.
"""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path
from typing import Any

THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)
DEFAULT_THREADS = 1

_applied: int | None = None
_chosen_by_user = False


def resolve_threads(configured: int | None) -> int:
    """The thread count to use: the setting; unset -> OMP_NUM_THREADS or 1; 0 -> one per core."""
    if configured is None:
        exported = os.environ.get("OMP_NUM_THREADS", "").strip()
        configured = int(exported) if exported.isdigit() else DEFAULT_THREADS
    if configured <= 0:
        configured = os.cpu_count() or 1
    return configured


def apply_threads(count: int) -> int:
    """Use ``count`` threads in every numeric library, loaded or not; return it."""
    global _applied
    for name in THREAD_VARIABLES:
        os.environ[name] = str(count)
    if "torch" in sys.modules:
        torch = sys.modules["torch"]
        torch.set_num_threads(count)
    if "faiss" in sys.modules:
        sys.modules["faiss"].omp_set_num_threads(count)
    if "threadpoolctl" in sys.modules or "numpy" in sys.modules:
        _limit_blas(count)
    _applied = count
    return count


def ensure_threads(settings: Any = None) -> int:
    """Apply the thread count of ``settings.runtime.threads`` (or the default, once); return it."""
    runtime = getattr(settings, "runtime", None)
    configured = runtime.threads if runtime is not None else None
    if configured is not None:
        wanted = resolve_threads(configured)
        return wanted if wanted == _applied else apply_threads(wanted)
    return _applied if _applied is not None else apply_threads(resolve_threads(None))


def apply_environment_threads() -> int:
    """Apply FORESCI_RUNTIME__THREADS (else OMP_NUM_THREADS, else the default) before libraries load."""
    global _chosen_by_user
    exported = os.environ.get("FORESCI_RUNTIME__THREADS", "").strip()
    _chosen_by_user = exported.isdigit() or os.environ.get("OMP_NUM_THREADS", "").strip().isdigit()
    return apply_threads(resolve_threads(int(exported) if exported.isdigit() else None))


def busy_cores(samples: int = 5, interval_s: float = 0.05) -> float:
    """Cores other work keeps busy now: the median of a few snapshots of runnable tasks besides this one.

    Read from /proc/loadavg (its running/total field), which, unlike the load average, does not lag a
    minute behind work that has just ended; elsewhere the 1-minute load average.
    """
    import statistics

    counts: list[int] = []
    for index in range(samples):
        try:
            running = Path("/proc/loadavg").read_text(encoding="ascii").split()[3].split("/")[0]
            counts.append(max(0, int(running) - 1))
        except (OSError, IndexError, ValueError):
            try:
                return os.getloadavg()[0]
            except OSError:  # no load figure on this platform: assume the machine is shared
                return float(os.cpu_count() or 1)
        if index + 1 < samples:
            time.sleep(interval_s)
    return float(statistics.median(counts))


def idle_cores() -> int:
    """Cores no other work is using now: the core count minus the busy ones, at least 1."""
    cores = os.cpu_count() or 1
    return max(1, min(cores, cores - math.floor(busy_cores() + 0.5)))


def use_idle_cores(settings: Any = None) -> int:
    """For a one-shot job: take the cores nobody else is using, unless a thread count was chosen.

    The shared-machine default of one thread stays when the user set a count (FORESCI_RUNTIME__THREADS,
    OMP_NUM_THREADS or ``runtime.threads``) or when other work keeps the cores busy (``busy_cores``).
    """
    runtime = getattr(settings, "runtime", None)
    if _chosen_by_user or (runtime is not None and runtime.threads is not None):
        return ensure_threads(settings)
    return apply_threads(idle_cores())


def current_threads() -> int:
    """The thread count in force (applying the default if nothing was applied yet)."""
    return ensure_threads()


def _limit_blas(count: int) -> None:
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # threadpoolctl is optional: the environment variables still apply
        return
    threadpool_limits(limits=count, user_api="blas")
