"""The Ray side of the engines: connect to a cluster and map a function over items, results as they
finish.

``connect`` joins the cluster named by ``runtime.ray_address`` or ``RAY_ADDRESS`` (``ray start --head``
prints it), and otherwise starts a local one on this machine; a session already connected in this
process (``ray.init`` by the caller) is reused. ``imap_unordered`` submits one Ray task per item with a
bounded number in flight; a worker that dies is retried by Ray (``max_retries``) and an item whose
retries run out comes back as a :class:`RemoteFailure` instead of a result, so the caller decides what
a lost item means (a run writes nothing for it, and the next run resumes it).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from foresci.core.errors import UserError

RAY_MISSING = "the ray engine needs Ray: pip install 'foresci[ray]' (or choose --engine local)"


@dataclass(frozen=True)
class RemoteFailure:
    """An item whose Ray task failed for good (its worker died more often than the retries allow)."""

    error: str


def ray_available() -> bool:
    """True when the ``ray`` package can be imported."""
    return importlib.util.find_spec("ray") is not None


def connect(address: str | None = None) -> Any:
    """The ``ray`` module, connected: to ``address`` (or ``RAY_ADDRESS``), else to a new local cluster."""
    if not ray_available():
        raise UserError(RAY_MISSING, field="runtime.engine")
    import ray

    if not ray.is_initialized():
        ray.init(address=address or None, include_dashboard=False, log_to_driver=False)
    return ray


def cluster_gpus(ray: Any) -> float:
    """GPUs the connected cluster offers (0 without any)."""
    return float(ray.cluster_resources().get("GPU", 0.0))


def imap_unordered(
    function: Callable[[Any, Any], Any],
    context: Any,
    items: Sequence[Any],
    runtime: Any,
    options: dict[str, Any] | None = None,
    max_in_flight: int = 64,
) -> Iterator[tuple[int, Any]]:
    """Yield ``(index, function(context, items[index]))`` as the Ray tasks finish.

    ``context`` is shipped once to the object store; ``function`` must be importable on the workers
    (a module-level function of foresci). ``runtime`` (the settings section) names the cluster and the
    retries; ``options`` are Ray task options (default: ``runtime.ray_task_cpus`` CPUs). A task that
    failed after ``runtime.ray_max_retries`` worker deaths yields a :class:`RemoteFailure`.
    """
    if not items:
        return
    ray = connect(runtime.ray_address)
    max_retries = runtime.ray_max_retries
    options = options or {"num_cpus": runtime.ray_task_cpus}
    from ray.exceptions import RayError

    remote = ray.remote(function).options(max_retries=max_retries, **options)
    shared = ray.put(context)
    pending: dict[Any, int] = {}
    next_index = 0
    while next_index < len(items) or pending:
        while next_index < len(items) and len(pending) < max(1, max_in_flight):
            pending[remote.remote(shared, items[next_index])] = next_index
            next_index += 1
        done, _ = ray.wait(list(pending), num_returns=1)
        for reference in done:
            index = pending.pop(reference)
            try:
                result = ray.get(reference)
            except RayError as error:  # retries exhausted: the caller records the item as lost
                result = RemoteFailure(f"{type(error).__name__}: {' '.join(str(error).split())[:500]}")
            yield index, result
