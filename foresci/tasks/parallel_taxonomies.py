"""Induce the taxonomies T(d, t) of several domains side by side, one forked process per core.

Induction is pure Python (clustering, phrase naming) and the domains are independent, so on a machine with
two cores two domains are induced at once. Each worker is forked from the building process after the
papers, screen masks and vectors the workers read are loaded there (copy-on-write, nothing re-read), runs
:func:`foresci.tasks.domain_inputs.snapshot_for` (which saves into the taxonomy folder as before) and hands
the snapshot back pickled: the same snapshot a serial build induces.

Serial (the plain loop, in this process) when one core is usable, when at most one domain needs inducing,
when the platform cannot fork, or when other threads run in this process (forking a threaded process can
copy a lock another thread holds). ``FORESCI_RELEASE_WORKERS`` sets the number of processes (1: serial).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from foresci.tasks.domain_inputs import saved_taxonomy_folder, snapshot_for
from foresci.taxonomy.models import Snapshot

if TYPE_CHECKING:
    from foresci.core.settings import Settings

WORKERS_VARIABLE = "FORESCI_RELEASE_WORKERS"
T = TypeVar("T")

_JOB: tuple[Any, date, Any, Path | None] | None = None  # what a forked worker induces from (set before fork)


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity where the platform tells, else the core count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def taxonomy_workers(wanted: int) -> int:
    """Processes that induce ``wanted`` taxonomies: ``FORESCI_RELEASE_WORKERS`` when set (a positive
    number), else one per usable core; never more than ``wanted``, at least 1."""
    chosen = os.environ.get(WORKERS_VARIABLE, "").strip()
    count = int(chosen) if chosen.isdigit() and int(chosen) > 0 else usable_cores()
    return max(1, min(count, wanted))


def can_fork() -> bool:
    """Whether workers may be forked from this process: the platform forks and no other thread runs."""
    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def largest_first(domains: Sequence[str], sizes: Mapping[str, int]) -> list[str]:
    """``domains`` with the most papers first (ties in their given order): the longest jobs start first, so
    no worker is left alone with one at the end."""
    return sorted(domains, key=lambda domain: (-sizes[domain], list(domains).index(domain)))


def map_to_end(pool: multiprocessing.pool.Pool, function: Callable[[str], T],
               items: Sequence[str]) -> list[T]:
    """``function`` of each item on ``pool``, one item a task, in ``items`` order; the pool is closed so
    its workers exit on their own and are waited for (their CPU time is counted), and terminated on
    an error."""
    try:
        results = pool.map(function, items, chunksize=1)
        pool.close()
    finally:
        pool.terminate()
        pool.join()
    return results


def _warm(kb: Any, domains: Sequence[str], cutoff: date, settings: Settings) -> None:
    """Read in this process what each worker will read of the KB (its member papers and their vectors,
    the build facts), so forked workers find it loaded instead of each reading it again."""
    statuses = tuple(settings.taxonomy.member_statuses)
    for domain in domains:
        papers = kb.papers(until=cutoff, domain=domain, statuses=statuses)
        if papers:
            kb.embeddings([paper.paper_id for paper in papers])
    getattr(kb, "meta", None)


def _induce(domain: str) -> Snapshot:
    """In a forked worker: T(domain, t) of the job set before the fork."""
    if _JOB is None:  # pragma: no cover - only reachable when called outside a pool made here
        raise RuntimeError("no taxonomy job in this process")
    kb, cutoff, settings, taxonomy_dir = _JOB
    return snapshot_for(kb, domain, cutoff, settings, taxonomy_dir)


def snapshots_for(kb: Any, domains: Sequence[str], cutoff: date, settings: Settings,
                  taxonomy_dir: Path | None = None, given: Mapping[str, Snapshot] | None = None,
                  progress: Callable[[str], None] | None = None) -> dict[str, Snapshot]:
    """T(d, cutoff) of each domain (in ``domains`` order): ``given`` ones as they are, saved ones loaded,
    the rest induced, side by side in forked processes when more than one needs inducing (module
    docstring), else one after another here. The snapshots equal those of the serial loop."""
    given = given or {}
    missing = [domain for domain in domains if not given.get(domain)
               and saved_taxonomy_folder(kb, domain, cutoff, settings, taxonomy_dir) is None]
    workers = taxonomy_workers(len(missing))
    induced: dict[str, Snapshot] = {}
    if workers > 1 and can_fork():
        induced = _induce_forked(kb, missing, cutoff, settings, taxonomy_dir, workers, progress)
    found: dict[str, Snapshot] = {}
    for domain in domains:
        if progress:
            progress(f"{domain}: taxonomy at {cutoff}")
        found[domain] = (given.get(domain) or induced.get(domain)
                         or snapshot_for(kb, domain, cutoff, settings, taxonomy_dir))
    return found


def _induce_forked(kb: Any, domains: Sequence[str], cutoff: date, settings: Settings,
                   taxonomy_dir: Path | None, workers: int,
                   progress: Callable[[str], None] | None) -> dict[str, Snapshot]:
    """:func:`snapshot_for` of each domain in a pool of ``workers`` forked processes, the domains with the
    most member papers first (:func:`largest_first`)."""
    global _JOB
    if progress:
        progress(f"taxonomies of {len(domains)} domains at {cutoff}: inducing on {workers} processes")
    _warm(kb, domains, cutoff, settings)
    statuses = tuple(settings.taxonomy.member_statuses)
    sizes = {domain: len(kb.papers(until=cutoff, domain=domain, statuses=statuses)) for domain in domains}
    order = largest_first(domains, sizes)
    _JOB = (kb, cutoff, settings, taxonomy_dir)
    try:
        snapshots = map_to_end(multiprocessing.get_context("fork").Pool(workers), _induce, order)
    finally:
        _JOB = None
    return dict(zip(order, snapshots, strict=True))
