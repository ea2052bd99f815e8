"""A release's per-domain work, one domain at a time or side by side in forked processes.

Each domain of a release is built on its own: its taxonomy T(d, t) (given, loaded or induced), its window
evidence, every family's candidate tasks (:func:`foresci.tasks.candidates.candidate_pool`) and every family's
release parts over its windows. Nothing read or made for one domain is read for another, so the domains
can run in separate processes: on a machine with two cores two domains are built at once. Workers are
forked after the KB's papers, screen masks and vectors are read here (copy-on-write, nothing re-read) and
hand their :class:`DomainBuild` back pickled; :func:`merge_domains` joins them in domain order, which gives
the very candidates, problems and parts of one pass over all domains.

One process (the plain loop, here) when one core is usable, when one domain is built, when the platform
cannot fork, or when other threads run in this process (forking a threaded process can copy a lock another
thread holds). ``FORESCI_RELEASE_WORKERS`` sets the number of processes (1: one at a time).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from foresci.kb.screen import CANDIDATE_STATUSES
from foresci.tasks.candidates import Drops, candidate_pool, merge_drops
from foresci.tasks.domain_inputs import evidence_for_windows, snapshot_for
from foresci.tasks.families import get_family
from foresci.tasks.families.base import ReleaseParts
from foresci.tasks.parallel_taxonomies import can_fork, largest_first, map_to_end, taxonomy_workers
from foresci.tasks.windows import Window
from foresci.taxonomy.models import Snapshot

if TYPE_CHECKING:
    from foresci.core.settings import Settings
    from foresci.tasks.builders.common import Built
    from foresci.taxonomy.rules import TaxonomyRules


@dataclass(frozen=True)
class DomainJob:
    """What every domain of one release is built from."""

    kb: Any
    cutoff: date
    settings: Settings
    taxonomy_dir: Path | None
    snapshots: Mapping[str, Snapshot]
    windows: tuple[Window, ...]
    families: tuple[str, ...]
    per_family: int
    forecast_questions: int
    rules: TaxonomyRules | None = None  # the taxonomy's rule files, read once for every domain


@dataclass
class DomainBuild:
    """One domain's share of a release: its taxonomy, candidates per family, lint problems, builder seconds
    per family and each family's release parts (in ``DomainJob.families`` order)."""

    domain: str
    snapshot: Snapshot
    pools: dict[str, list[Built]]
    problems: list[str]
    seconds: dict[str, float]
    parts: list[ReleaseParts] = field(default_factory=list)
    drops: dict[str, Drops] = field(default_factory=dict)  # per family: tasks built, and what dropped them
    process: int = 0  # the id of the process that built it
    wall_s: float = 0.0  # its wall and CPU seconds there
    cpu_s: float = 0.0


def build_domain(job: DomainJob, domain: str,
                 progress: Callable[[str], None] | None = None) -> DomainBuild:
    """T(domain, t), the domain's window evidence, its candidates and its release parts."""
    from foresci.taxonomy.naming import kb_embed_function

    kb, settings = job.kb, job.settings
    if progress:
        progress(f"{domain}: taxonomy at {job.cutoff}")
    snapshot = job.snapshots.get(domain) or snapshot_for(kb, domain, job.cutoff, settings, job.taxonomy_dir,
                                                         job.rules)
    last_end = max(window.end for window in job.windows)
    papers = kb.papers(until=last_end, domain=domain, statuses=CANDIDATE_STATUSES)
    if progress:
        progress(f"{domain}: routing {len(papers)} papers and collecting window evidence")
    embeddings = kb.embeddings([paper.paper_id for paper in papers])
    evidences = evidence_for_windows(snapshot, papers, embeddings, list(job.windows),
                                     rules=job.rules.trajectory if job.rules is not None else None)
    text = premise_index(kb, domain, job.cutoff)
    for evidence in evidences:
        evidence.embed = kb_embed_function(kb, settings)
        evidence.text_cache.text_index = text
    if progress:
        progress(f"{domain}: building tasks")
    seconds: dict[str, float] = {}
    drops: dict[str, Drops] = {}
    pools, problems = candidate_pool(evidences, settings.tasks, job.per_family, job.families, seconds, drops)
    parts = [get_family(name).parts(evidences, settings.tasks, job.forecast_questions)
             for name in job.families]
    return DomainBuild(domain=domain, snapshot=snapshot, pools=pools, problems=problems, seconds=seconds,
                       parts=parts, drops=drops)


def premise_index(kb: Any, domain: str, cutoff: date) -> Any:
    """The text index the release checks read (:mod:`foresci.tasks.release_checks`): titles and abstracts
    of every paper screened into the domain (core or support) up to the cutoff, wider than the core papers
    the taxonomy is built from, so a concept pair's premise is checked against the domain's whole text."""
    from foresci.tasks.text_index import TextIndex

    return TextIndex((paper.paper_id, paper.text) for paper in kb.papers(until=cutoff, domain=domain))


def merge_parts(parts: Sequence[ReleaseParts]) -> ReleaseParts:
    """One family's release parts over several domains, in the given order: questions, resolutions and
    file rows joined, counts added up (a family's counts are totals over its windows)."""
    merged = ReleaseParts()
    for part in parts:
        merged.questions.extend(part.questions)
        merged.resolutions.extend(part.resolutions)
        for files, more in ((merged.public_files, part.public_files),
                            (merged.hidden_files, part.hidden_files)):
            for name, rows in more.items():
                files.setdefault(name, []).extend(rows)
        for name, value in part.counts.items():
            if name not in merged.counts:
                merged.counts[name] = value
            elif isinstance(value, int) and isinstance(merged.counts[name], int):
                merged.counts[name] += value
            else:
                raise TypeError(f"release part count {name!r} is {type(value).__name__}, not a total")
    return merged


def merge_domains(builds: Sequence[DomainBuild], families: Sequence[str]) -> tuple[
        dict[str, list[Built]], list[str], dict[str, float], list[ReleaseParts], dict[str, Drops]]:
    """Candidates per family, lint problems, builder seconds per family, release parts per family and
    per family what dropped its built tasks, of the domains in order (what one pass over all their window
    evidence gives)."""
    pools: dict[str, list[Built]] = {name: [] for name in families}
    problems: list[str] = []
    seconds: dict[str, float] = {}
    for build in builds:
        for name in families:
            pools[name].extend(build.pools.get(name, []))
        problems.extend(build.problems)
        for name, value in build.seconds.items():
            seconds[name] = seconds.get(name, 0.0) + value
    parts = [merge_parts([build.parts[index] for build in builds]) for index in range(len(families))]
    return pools, problems, seconds, parts, merge_drops([build.drops for build in builds])


_JOB: DomainJob | None = None  # what a forked worker builds from (set before the fork)


def _build_in_worker(domain: str) -> DomainBuild:
    if _JOB is None:  # pragma: no cover - only reachable when called outside a pool made here
        raise RuntimeError("no release job in this process")
    import os

    started, started_cpu = time.perf_counter(), time.process_time()
    built = build_domain(_JOB, domain)
    built.process, built.wall_s = os.getpid(), time.perf_counter() - started
    built.cpu_s = time.process_time() - started_cpu
    return built


_PAUSES: list[tuple[Callable[[], None], Callable[[], None]]] = []


@contextmanager
def paused_while_forking(stop: Callable[[], None], start: Callable[[], None]) -> Iterator[None]:
    """Inside the block, a build that forks workers first calls ``stop`` (which must end a helper thread of
    this process, such as a live status display's refresh thread) and calls ``start`` once the workers
    are forked, so the process forks with one thread."""
    _PAUSES.append((stop, start))
    try:
        yield
    finally:
        _PAUSES.pop()


@contextmanager
def _single_threaded(wait_s: float = 2.0) -> Iterator[bool]:
    """The registered helper threads stopped (:func:`paused_while_forking`) until the block ends; yields
    whether this process then runs one thread (waiting up to ``wait_s`` for the stopped ones to end)."""
    for stop, _ in _PAUSES:
        stop()
    try:
        deadline = time.monotonic() + wait_s
        while not can_fork() and _PAUSES and time.monotonic() < deadline:
            time.sleep(0.005)
        yield can_fork()
    finally:
        for _, start in reversed(_PAUSES):
            start()


def build_domains(job: DomainJob, domains: Sequence[str],
                  progress: Callable[[str], None] | None = None) -> list[DomainBuild]:
    """:func:`build_domain` of each domain, in ``domains`` order: side by side in forked processes when
    more than one core is usable and the process may fork (module docstring), else one after another."""
    workers = taxonomy_workers(len(domains))
    if workers > 1:
        if progress:
            progress(f"{len(domains)} domains at {job.cutoff}: taxonomy, evidence and candidates on "
                     f"{workers} processes")
        sizes = _warm(job, domains)
        order = largest_first(domains, sizes)
        with _single_threaded() as alone:
            pool = _forked_pool(job, workers) if alone else None
        if pool is not None:
            return _build_forked(pool, domains, order, progress)
        if progress:
            progress("other threads run in this process: building the domains one after another")
    return [build_domain(job, domain, progress) for domain in domains]


def _warm(job: DomainJob, domains: Sequence[str]) -> dict[str, int]:
    """Read here what each worker will read of the KB (member and candidate papers, their vectors, the build
    facts) so forked workers find it loaded; the number of candidate papers of each domain."""
    kb = job.kb
    last_end = max(window.end for window in job.windows)
    statuses = tuple(job.settings.taxonomy.member_statuses)
    sizes: dict[str, int] = {}
    for domain in domains:
        for papers in (kb.papers(until=job.cutoff, domain=domain, statuses=statuses),
                       kb.papers(until=last_end, domain=domain, statuses=CANDIDATE_STATUSES)):
            if papers:
                kb.embeddings([paper.paper_id for paper in papers])
        sizes[domain] = len(papers)
    getattr(kb, "meta", None)
    return sizes


def _forked_pool(job: DomainJob, workers: int) -> multiprocessing.pool.Pool:
    """A pool of ``workers`` processes forked now, each holding ``job`` (inherited, not pickled)."""
    global _JOB
    _JOB = job
    try:
        return multiprocessing.get_context("fork").Pool(workers)
    finally:
        _JOB = None


def _build_forked(pool: multiprocessing.pool.Pool, domains: Sequence[str], order: Sequence[str],
                  progress: Callable[[str], None] | None) -> list[DomainBuild]:
    """:func:`build_domain` of each domain on ``pool``, in ``order`` (:func:`largest_first`); returned in
    ``domains`` order."""
    built = map_to_end(pool, _build_in_worker, order)
    by_domain = {item.domain: item for item in built}
    if progress:
        busiest: dict[int, float] = {}
        for item in built:
            busiest[item.process] = busiest.get(item.process, 0.0) + item.cpu_s
        progress("domains built: " + ", ".join(f"{item.domain} {item.wall_s:.1f} s ({item.cpu_s:.1f} s CPU)"
                                               for item in built)
                 + f"; busiest process {max(busiest.values()):.1f} s CPU")
    return [by_domain[domain] for domain in domains]
