"""Taxonomies, and whole domains of a release, built side by side in forked processes equal those built one
after another."""

from __future__ import annotations

import json
import os
from datetime import date
from pathlib import Path

import pytest

import foresci.tasks.domain_builds as domain_builds
import foresci.tasks.parallel_taxonomies as parallel
from foresci.core.settings import Settings
from foresci.sim.world import WorldConfig, generate_world, load_ground_truth
from foresci.tasks.build import build_release
from foresci.tasks.domain_builds import merge_parts
from foresci.tasks.families.base import ReleaseParts
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


def _release_files(folder: Path) -> dict[str, bytes]:
    files = {path.name: path.read_bytes() for path in sorted(folder.iterdir())
             if path.name != "manifest.json"}
    manifest = json.loads((folder / "manifest.json").read_text())
    files["manifest.json"] = json.dumps({key: value for key, value in manifest.items()
                                         if key not in ("created_at", "git_revision")}).encode()
    return files


@pytest.fixture(scope="module")
def release_world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("parallel-release") / "world"
    generate_world(WorldConfig(seed=11, n_domains=2, directions_per_domain=4, months=12,
                               papers_per_month=60.0, noise=0.0, difficulty=0.3), root)
    return root


def test_domains_built_side_by_side_give_the_serial_release(release_world: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    truth = load_ground_truth(release_world)
    kb = SimKB(release_world, truth)
    settings = Settings(cache_dir=tmp_path / "cache")
    settings.tasks.enforce_gates = False
    monkeypatch.setenv(parallel.WORKERS_VARIABLE, "1")
    serial = build_release(kb, tmp_path / "serial", truth.cutoff, settings=settings, per_family=6,
                           taxonomy_dir=tmp_path / "serial-taxonomy", forecast_questions=6)
    monkeypatch.setenv(parallel.WORKERS_VARIABLE, "2")
    monkeypatch.setattr(domain_builds, "can_fork", lambda: True)  # pytest may run helper threads
    lines: list[str] = []
    forked = build_release(kb, tmp_path / "forked", truth.cutoff, settings=settings, per_family=6,
                           taxonomy_dir=tmp_path / "forked-taxonomy", forecast_questions=6,
                           progress=lines.append)
    assert any("on 2 processes" in line for line in lines), lines
    counts = json.loads((serial / "manifest.json").read_text())["counts"]
    assert len(counts["by_domain"]) == 2 and counts["emergence_pairs"] > 0  # both domains, with parts
    assert _release_files(forked) == _release_files(serial)
    for domain in kb.domains:
        assert (_folder_bytes(tmp_path / "forked-taxonomy" / domain)
                == _folder_bytes(tmp_path / "serial-taxonomy" / domain))


def test_release_parts_of_domains_merge_in_order() -> None:
    first = ReleaseParts(public_files={"pairs.jsonl": [{"a": 1}]},
                         hidden_files={"pairs_hidden.jsonl": [{"a": 1}]}, counts={"pairs": 1, "positive": 0})
    second = ReleaseParts(public_files={"pairs.jsonl": [{"b": 2}], "more.jsonl": [{"c": 3}]},
                          counts={"pairs": 2, "positive": 1, "other": 5})
    merged = merge_parts([first, ReleaseParts(), second])
    assert merged.public_files == {"pairs.jsonl": [{"a": 1}, {"b": 2}], "more.jsonl": [{"c": 3}]}
    assert merged.hidden_files == {"pairs_hidden.jsonl": [{"a": 1}]}
    assert merged.counts == {"pairs": 3, "positive": 1, "other": 5}
    with pytest.raises(TypeError, match="'labels' is dict"):
        merge_parts([ReleaseParts(counts={"labels": {"x": 1}}), ReleaseParts(counts={"labels": {"y": 1}})])


def test_a_live_status_is_paused_so_the_build_can_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import threading

    from rich.console import Console

    from foresci.tasks.domain_builds import DomainBuild, DomainJob, build_domains, paused_while_forking

    forked: list[int] = []

    def pool(job: DomainJob, workers: int) -> str:
        forked.append(threading.active_count())
        return "pool"

    def built(pool: object, domains: list[str], order: list[str], progress: object) -> list[DomainBuild]:
        return []

    baseline = threading.active_count()  # pytest's own threads, if any (xdist)
    monkeypatch.setattr(domain_builds, "can_fork", lambda: threading.active_count() <= baseline)
    monkeypatch.setenv(parallel.WORKERS_VARIABLE, "2")
    monkeypatch.setattr(domain_builds, "_warm", lambda job, domains: dict.fromkeys(domains, 1))
    monkeypatch.setattr(domain_builds, "_forked_pool", pool)
    monkeypatch.setattr(domain_builds, "_build_forked", built)
    job = DomainJob(kb=None, cutoff=date(2025, 1, 31), settings=Settings(), taxonomy_dir=None, snapshots={},
                    windows=(), families=(), per_family=1, forecast_questions=0)
    console = Console(file=io.StringIO(), force_terminal=True)
    with console.status("building") as status:
        assert threading.active_count() > baseline  # the status refreshes on a thread of its own
        with paused_while_forking(status.stop, status.start):
            build_domains(job, ["a", "b"])
        assert threading.active_count() > baseline  # and refreshes again after the fork
    assert forked == [baseline]  # forked without the status thread
