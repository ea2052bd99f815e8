"""Appending updates write segments; a KB grown by updates is the KB built from scratch over the same days.

The small fixture corpus (8 days of 12 papers) is built from its first days and then updated day by day (one
update takes two days), with the HNSW graph on (``graph_above`` low) and merges every 3 segments: search
results at every cutoff, papers, masks, vectors and even the graph's bytes equal a build from scratch. A
kill at any point of an update leaves the previous generation whole, and the rerun completes it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import date
from pathlib import Path

import numpy as np
import pytest

import foresci.kb.segments
from foresci.core.artifacts import changed_files, read_manifest
from foresci.core.settings import Settings
from foresci.kb.build import build_kb, update_kb
from foresci.kb.dense import HNSW_FILE
from foresci.kb.retrieve import KBView
from foresci.kb.segments import read_segments
from foresci.kb.store import KnowledgeBase, live_generation

REPO_ROOT = Path(__file__).resolve().parents[2]
QUERIES = ["tool-using agents with memory", "retrieval augmented generation graph", "diffusion sampling",
           "preference optimization", "molecular property prediction"]


def _graph_settings(settings: Settings) -> Settings:
    runtime = settings.runtime.model_copy(update={"graph_above": 20, "approximate_above": 10_000})
    return settings.model_copy(update={"runtime": runtime})


def _days(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.jsonl"))


def _searches(kb: KnowledgeBase) -> list[object]:
    """Everything an agent or a task builder reads, at every cutoff of the KB."""
    seen: list[object] = []
    cutoffs = sorted({paper.announced for paper in kb.papers()})
    for cutoff in cutoffs:
        view = KBView(kb, cutoff)
        for query in QUERIES:
            for domain in (None, *kb.domains[:2]):
                hits = view.search(query, k=8, domain=domain)
                seen.append([(hit.paper.paper_id, hit.score, hit.bm25_rank, hit.dense_rank) for hit in hits])
        seen.append(view.monthly_counts())
        seen.append([paper.paper_id for paper in view.papers(domain=kb.domains[0])])
    seen.append([paper.model_dump_json() for paper in kb.papers()])
    seen.append(kb.vectors.tobytes())
    seen.append({domain: kb.domain_mask(domain).tobytes() for domain in kb.domains})
    seen.append(kb.screen_counts())
    seen.append([kb.screen(paper.paper_id, kb.domains[0]) for paper in kb.papers()])
    return seen


@pytest.fixture(scope="module")
def grown_and_scratch(
    tmp_path_factory: pytest.TempPathFactory, daily_corpus: tuple[Path, dict], kb_settings: Settings
) -> tuple[Path, Path, list[str]]:
    """A KB built from 3 days, updated 4 times (days 4, 5, 6+7, 8) with merges of 3; one from scratch."""
    settings = _graph_settings(kb_settings)
    days = _days(daily_corpus[0])
    root = tmp_path_factory.mktemp("segments")
    patch = pytest.MonkeyPatch()
    patch.setattr(foresci.kb.segments, "MERGE_FANIN", 3)
    try:
        build_kb(days[:3], root / "grown", settings)
        modes = [update_kb(root / "grown", batch, settings).mode
                 for batch in ([days[3]], [days[4]], [days[5], days[6]], [days[7]])]
    finally:
        patch.undo()
    build_kb(days, root / "scratch", settings)
    return root / "grown", root / "scratch", modes


def test_updated_kb_searches_exactly_like_the_kb_built_from_scratch(
    grown_and_scratch: tuple[Path, Path, list[str]], kb_settings: Settings
) -> None:
    grown_path, scratch_path, modes = grown_and_scratch
    assert modes == ["append"] * 4
    settings = _graph_settings(kb_settings)
    grown, scratch = KnowledgeBase.open(grown_path, settings), KnowledgeBase.open(scratch_path, settings)
    assert len(grown.segments) > 1 and scratch.segments == ["."]
    assert grown.dense_index.path(grown.size) == "hnsw"  # the graph is what answers at the last cutoff
    assert (grown.generation / HNSW_FILE).read_bytes() == (scratch.generation / HNSW_FILE).read_bytes()
    for vocabulary in ("bm25_vocabulary.json", "bm25_terms.bin"):  # extended by each update, not rewritten
        assert (grown.generation / vocabulary).read_bytes() == (scratch.generation / vocabulary).read_bytes()
    assert _searches(grown) == _searches(scratch)
    assert grown.fingerprint == scratch.fingerprint  # same input files, same config


def test_updates_merge_segments_and_write_only_what_they_add(
    grown_and_scratch: tuple[Path, Path, list[str]], kb_settings: Settings
) -> None:
    grown_path = grown_and_scratch[0]
    generation = live_generation(grown_path)
    segments = read_segments(generation)
    assert segments is not None
    # 3 + 4 updates with merges of 3: the base, one merged segment (days 4-6/7) and the last day's
    assert [segment.level for segment in segments] == [-1, 1, 0]
    assert [segment.start for segment in segments] == [0, 36, 84]
    assert sum(segment.rows for segment in segments) == 96
    previous = sorted(grown_path.glob("gen-*"))[-2]
    # the base segment is the previous generation's file, linked, not copied
    assert os.path.samefile(generation / "papers.sqlite", previous / "papers.sqlite")
    assert os.path.samefile(generation / "vectors.npy", previous / "vectors.npy")
    hashes = read_manifest(generation).hashes
    files = ("papers.sqlite", "vectors.npy", "bm25_counts.npz")
    assert {f"{segments[-1].name}/{name}" for name in files} <= set(hashes)
    assert changed_files(generation) == []


def test_kb_verify_checks_every_segment_file(
    tmp_path: Path, daily_corpus: tuple[Path, dict], kb_settings: Settings
) -> None:
    days = _days(daily_corpus[0])
    out = tmp_path / "kb"
    build_kb(days[:6], out, kb_settings)
    update_kb(out, [days[6]], kb_settings)
    generation = live_generation(out)
    segment = next(path for path in generation.iterdir() if path.name.startswith("seg-"))
    data = bytearray((segment / "vectors.npy").read_bytes())
    data[-1] ^= 0xFF
    (segment / "vectors.npy").unlink()  # a hard link: replace the file, not the inode the old one shares
    (segment / "vectors.npy").write_bytes(bytes(data))
    assert changed_files(generation) == [f"{segment.name}/vectors.npy"]


def test_a_day_the_kb_already_has_is_a_full_rebuild_equal_to_scratch(
    tmp_path: Path, daily_corpus: tuple[Path, dict], kb_settings: Settings
) -> None:
    days = _days(daily_corpus[0])
    out, scratch = tmp_path / "kb", tmp_path / "scratch"
    build_kb([*days[:4], days[5]], out, kb_settings)
    assert update_kb(out, [days[6]], kb_settings).mode == "append"
    summary = update_kb(out, [days[4]], kb_settings)  # a day before the KB's last one
    assert summary.mode == "reorder"
    build_kb(days[:7], scratch, kb_settings)
    grown, rebuilt = KnowledgeBase.open(out, kb_settings), KnowledgeBase.open(scratch, kb_settings)
    assert grown.segments == ["."]
    assert _searches(grown) == _searches(rebuilt)


KILL_POINTS = [
    "write_generation_db", "write_merged_segment", "append_json_terms", "append_terms", "attach_storage",
    "grow_hnsw", "write_appended_manifest", "_swap_in",
]
KILLER = """
import os, signal, sys
from pathlib import Path
import foresci.kb.append as append, foresci.kb.build as build, foresci.kb.segments as segments
from foresci.kb.build import update_kb
from foresci.core.settings import Settings
point = sys.argv[1]
segments.MERGE_FANIN = 2
def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)
import foresci.kb.dense as dense
for module in (append, build, dense):
    if hasattr(module, point):
        setattr(module, point, die)
settings = Settings(cache_dir=Path(sys.argv[2]))
runtime = settings.runtime.model_copy(update={"graph_above": 20, "approximate_above": 10_000})
update_kb(Path(sys.argv[3]), [Path(sys.argv[4])], settings.model_copy(update={"runtime": runtime}))
"""


@pytest.mark.parametrize("point", KILL_POINTS)
def test_sigkill_during_an_update_leaves_the_previous_generation_and_a_rerun_completes(
    tmp_path: Path, daily_corpus: tuple[Path, dict], kb_settings: Settings, point: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    days = _days(daily_corpus[0])
    settings = _graph_settings(kb_settings)
    out = tmp_path / "kb"
    build_kb(days[:5], out, settings)
    update_kb(out, [days[5]], settings)  # a segment to merge with the next one (merges of 2 in the child)
    before = KnowledgeBase.open(out, settings)
    seen = _searches(before)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    killed = subprocess.run(
        [sys.executable, "-c", KILLER, point, str(kb_settings.cache_dir), str(out), str(days[6])],
        env=env, capture_output=True, text=True, timeout=300,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    after = KnowledgeBase.open(out, settings)
    assert after.generation == before.generation and changed_files(after.generation) == []
    assert _searches(after) == seen
    monkeypatch.setattr(foresci.kb.segments, "MERGE_FANIN", 2)
    again = update_kb(out, [days[6]], settings)
    assert again.mode == "append" and again.papers == 84
    build_kb(days[:7], tmp_path / "scratch", settings)
    assert _searches(KnowledgeBase.open(out, settings)) == _searches(
        KnowledgeBase.open(tmp_path / "scratch", settings)
    )
    assert changed_files(live_generation(out)) == []


def test_day_boundaries_of_an_update_follow_announcement_days() -> None:
    from foresci.kb.dense import day_starts

    ordinals = np.asarray([date(2025, 1, day).toordinal() for day in (1, 1, 2, 2, 2, 5)])
    assert day_starts(ordinals) == [2, 5]


def test_a_graph_stored_whole_by_an_earlier_build_is_read_and_grown_alike(
    tmp_path: Path, daily_corpus: tuple[Path, dict], kb_settings: Settings
) -> None:
    """KBs built before graphs were stored without their vectors still search, and update to the same KB."""
    import faiss

    from foresci.core.artifacts import refresh_hashes

    days = _days(daily_corpus[0])
    settings = _graph_settings(kb_settings)
    out = tmp_path / "kb"
    build_kb(days[:6], out, settings)
    generation = live_generation(out)
    compact = (generation / HNSW_FILE).read_bytes()
    whole = faiss.read_index(str(generation / HNSW_FILE))
    assert whole.storage is None  # stored without its vectors
    kb = KnowledgeBase.open(out, settings)
    seen = _searches(kb)
    kb.close()
    from foresci.kb.dense import attach_storage

    attach_storage(whole, KnowledgeBase.open(out, settings).vectors)
    faiss.write_index(whole, str(generation / HNSW_FILE))  # the format of earlier builds: vectors inside
    refresh_hashes(generation, [HNSW_FILE])
    assert len((generation / HNSW_FILE).read_bytes()) > len(compact)
    assert _searches(KnowledgeBase.open(out, settings)) == seen
    update_kb(out, [days[6]], settings)
    build_kb(days[:7], tmp_path / "scratch", settings)
    grown, scratch = live_generation(out), live_generation(tmp_path / "scratch")
    assert (grown / HNSW_FILE).read_bytes() == (scratch / HNSW_FILE).read_bytes()


def test_attached_storage_is_freed_with_its_graph() -> None:
    """A graph given its vectors (every read for an update or a search) frees them when it goes: SWIG's
    setter disowned the storage while the graph did not own it, so each read leaked the KB's vectors
    (48 MB a day on a 32k-paper KB; 15 GB of RSS over the real rounds replay)."""
    import gc

    import faiss
    import numpy as np

    from foresci.kb.dense import attach_storage

    def anonymous_kib() -> int:
        status = Path("/proc/self/status").read_text().splitlines()
        return int(next(line for line in status if line.startswith("RssAnon:")).split()[1])

    vectors = np.random.default_rng(0).standard_normal((40_000, 64)).astype(np.float32)  # 10 MB
    graph = faiss.IndexHNSWFlat(64, 8, faiss.METRIC_INNER_PRODUCT)
    attach_storage(graph, vectors)
    assert graph.own_fields and graph.storage.ntotal == len(vectors)
    del graph
    gc.collect()
    before = anonymous_kib()
    for _ in range(8):  # 80 MB if each storage stayed
        graph = faiss.IndexHNSWFlat(64, 8, faiss.METRIC_INNER_PRODUCT)
        attach_storage(graph, [vectors[:25_000], vectors[25_000:]])
        del graph
        gc.collect()
    assert anonymous_kib() - before < 25_000
