"""Taxonomies induced side by side in forked processes equal those induced one after another."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import foresci.tasks.parallel_taxonomies as parallel
from foresci.core.settings import Settings
from foresci.sim.world import WorldConfig, generate_world, load_ground_truth
from foresci.tasks.parallel_taxonomies import snapshots_for, taxonomy_workers
from tests.tasks.simkb import SimKB


def _folder_bytes(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file() and path.name != "manifest.json"}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("parallel") / "world"
    generate_world(WorldConfig(seed=11, n_domains=3, directions_per_domain=3, months=10,
                               papers_per_month=25.0,
                               noise=0.0, difficulty=0.3), root)
    return root


def test_forked_induction_equals_serial(world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    truth = load_ground_truth(world)
    kb, cutoff = SimKB(world, truth), truth.cutoff
    settings = Settings(cache_dir=tmp_path / "cache")
    domains = list(kb.domains)
    assert len(domains) == 3

    monkeypatch.setenv(parallel.WORKERS_VARIABLE, "1")
    serial = snapshots_for(kb, domains, cutoff, settings, tmp_path / "serial")

    forked: list[list[str]] = []
    induce_forked = parallel._induce_forked

    def spy(*args: object, **kwargs: object) -> object:
        forked.append(list(args[1]))  # type: ignore[call-overload]
        return induce_forked(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setenv(parallel.WORKERS_VARIABLE, "2")
    monkeypatch.setattr(parallel, "can_fork", lambda: True)  # pytest may run helper threads
    monkeypatch.setattr(parallel, "_induce_forked", spy)
    lines: list[str] = []
    side_by_side = snapshots_for(kb, domains, cutoff, settings, tmp_path / "forked", progress=lines.append)
    assert forked == [domains], "the domains were not induced in forked workers"
    assert any("inducing on 2 processes" in line for line in lines)
    assert list(side_by_side) == domains
    for domain in domains:
        assert side_by_side[domain].model_dump_json() == serial[domain].model_dump_json()
        assert _folder_bytes(tmp_path / "forked" / domain) == _folder_bytes(tmp_path / "serial" / domain)

    # saved now: loaded in this process, nothing induced again
    monkeypatch.setattr(parallel, "_induce_forked", lambda *args, **kwargs: pytest.fail("induced again"))
    again = snapshots_for(kb, domains, cutoff, settings, tmp_path / "forked")
    loaded = snapshots_for(kb, domains, cutoff, settings, tmp_path / "serial")
    assert all(again[domain].model_dump_json() == loaded[domain].model_dump_json() for domain in domains)


def test_given_snapshots_are_kept_and_only_the_rest_induced(world: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    truth = load_ground_truth(world)
    kb, cutoff = SimKB(world, truth), truth.cutoff
    settings = Settings(cache_dir=tmp_path / "cache")
    first, *rest = kb.domains
    monkeypatch.setenv(parallel.WORKERS_VARIABLE, "1")
    given = snapshots_for(kb, [first], cutoff, settings, tmp_path / "given")
    asked: list[list[str]] = []
    monkeypatch.setenv(parallel.WORKERS_VARIABLE, "4")
    monkeypatch.setattr(parallel, "can_fork", lambda: True)

    def record(kb: object, domains: list[str], *args: object) -> dict[str, object]:
        asked.append(list(domains))
        return {}

    monkeypatch.setattr(parallel, "_induce_forked", record)
    found = snapshots_for(kb, list(kb.domains), cutoff, settings, tmp_path / "other", given)
    assert asked == [rest]  # the given domain is not induced
    assert found[first] is given[first]


def test_worker_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(parallel.WORKERS_VARIABLE, "3")
    assert taxonomy_workers(4) == 3
    assert taxonomy_workers(2) == 2  # never more than the domains to induce
    assert taxonomy_workers(0) == 1
    monkeypatch.setenv(parallel.WORKERS_VARIABLE, "")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    assert taxonomy_workers(8) == min(cores, 8)
