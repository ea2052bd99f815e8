"""A search process's start: the mapped vocabulary (and the JSON of older KBs), the prefetch of the KB's
search files when a view opens it, and identical search results whichever way the files are read."""

from __future__ import annotations

import json
import os
import random
import shutil
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

from foresci.core.settings import Settings
from foresci.kb import prefetch as prefetch_module
from foresci.kb.bm25 import BM25Index
from foresci.kb.retrieve import KBView
from foresci.kb.store import KnowledgeBase
from foresci.kb.vocabulary import TERMS_FILE, MappedVocabulary, read_vocabulary, write_terms


def _vocabulary(size: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz0123456789"
    terms = {"".join(rng.choices(letters, k=rng.randint(1, 14))) for _ in range(size)} | {"naïve", "ñ", "z"}
    shuffled = sorted(terms)
    rng.shuffle(shuffled)
    return {term: column for column, term in enumerate(shuffled)}


def test_term_table_round_trips_every_term_and_misses_the_rest(tmp_path: Path) -> None:
    vocabulary = _vocabulary(3_000, seed=1)
    write_terms(tmp_path / TERMS_FILE, vocabulary)
    mapped = MappedVocabulary(tmp_path / TERMS_FILE)
    assert len(mapped) == len(vocabulary) and dict(mapped.items()) == vocabulary
    assert all(mapped.get(term) == column and mapped[term] == column for term, column in vocabulary.items())
    for missing in ("", "A", "zz" * 20, "naive", "ñn", "0" * 15):
        if missing not in vocabulary:
            assert mapped.get(missing) is None and missing not in mapped
            with pytest.raises(KeyError):
                mapped[missing]
    write_terms(tmp_path / "empty.bin", {})
    assert len(MappedVocabulary(tmp_path / "empty.bin")) == 0
    assert MappedVocabulary(tmp_path / "empty.bin").get("a") is None


def test_a_damaged_term_table_is_an_error_naming_the_file(tmp_path: Path) -> None:
    write_terms(tmp_path / TERMS_FILE, {"agent": 0, "graph": 1})
    data = (tmp_path / TERMS_FILE).read_bytes()
    (tmp_path / TERMS_FILE).write_bytes(data[:-1])
    with pytest.raises(ValueError, match=TERMS_FILE):
        MappedVocabulary(tmp_path / TERMS_FILE)


def test_saved_index_writes_both_vocabularies_and_old_folders_read_the_json(tmp_path: Path) -> None:
    index = BM25Index.empty().appended(["graph memory agents", "diffusion image video", "agents tools"])
    index.save(tmp_path)
    mapped = read_vocabulary(tmp_path)
    assert isinstance(mapped, MappedVocabulary) and dict(mapped.items()) == index.vocabulary
    (tmp_path / TERMS_FILE).unlink()  # a folder written before the term table
    assert read_vocabulary(tmp_path) == index.vocabulary


def _queries(kb: KnowledgeBase) -> list[str]:
    return [" ".join(kb.paper_at(row).title.split()[:5]) for row in range(0, kb.size, 7)] + ["zzzq unknown"]


def _results(kb: KnowledgeBase) -> list[list[tuple[str, float, int | None, int | None]]]:
    view = KBView(kb, kb.min_date + timedelta(days=5))
    return [[(hit.paper.paper_id, hit.score, hit.bm25_rank, hit.dense_rank)
             for hit in view.search(query, k=8)] for query in _queries(kb)]


def test_new_kbs_map_their_term_table_and_old_kbs_search_identically(
    built_kb: KnowledgeBase, kb_settings: Settings, tmp_path: Path
) -> None:
    """A KB built now maps its term table; a KB built before (no table) derives one into the cache folder
    once (or, without a cache folder, parses the JSON): every way returns identical results."""
    assert (built_kb.generation / TERMS_FILE).is_file() and TERMS_FILE in built_kb.manifest.hashes
    fresh = KnowledgeBase.open(built_kb.path, kb_settings)
    assert isinstance(fresh.bm25_postings.vocabulary, MappedVocabulary)
    expected = _results(fresh)

    old = tmp_path / "old-kb"
    shutil.copytree(built_kb.path, old)
    generation = KnowledgeBase.open(old).generation
    (generation / TERMS_FILE).unlink()
    manifest = json.loads((generation / "manifest.json").read_text())
    del manifest["hashes"][TERMS_FILE]
    (generation / "manifest.json").write_text(json.dumps(manifest))
    cache = Settings(cache_dir=tmp_path / "cache")
    first = KnowledgeBase.open(old, cache)
    assert isinstance(first.bm25_postings.vocabulary, dict)  # parsed, then derived for the next process
    assert _results(first) == expected
    second = KnowledgeBase.open(old, cache)
    assert isinstance(second.bm25_postings.vocabulary, MappedVocabulary)
    assert second.bm25_postings.vocabulary.path.parent.parent.name == "kb-derived"
    assert _results(second) == expected
    assert _results(KnowledgeBase.open(old)) == expected  # no settings, no cache folder: the JSON


def test_a_view_prefetches_the_search_files_once(
    built_kb: KnowledgeBase, kb_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening a view starts reading the KB's vectors, postings and vocabulary into the page cache (once
    per KB), and the way can be switched off."""
    calls: list[tuple[list[Path], str]] = []
    monkeypatch.setattr(prefetch_module, "prefetch",
                        lambda paths, how="fadvise": calls.append((list(paths), how)))
    kb = KnowledgeBase.open(built_kb.path, kb_settings)
    kb.bm25_postings  # noqa: B018  # derived postings exist: they are what is prefetched
    kb = KnowledgeBase.open(built_kb.path, kb_settings)
    KBView(kb, kb.max_date)
    KBView(kb, kb.min_date)
    assert len(calls) == 1
    paths, how = calls[0]
    names = {path.name for path in paths}
    assert how == os.environ.get("FORESCI_KB_PREFETCH", "fadvise")
    assert {"vectors.npy", "indices.npy", "data.npy", TERMS_FILE} <= names
    assert all(path.is_file() for path in paths)


@pytest.mark.parametrize("how", ["fadvise", "read", "none"])
def test_prefetch_reads_files_in_every_way(tmp_path: Path, how: str) -> None:
    files = [tmp_path / "a.bin", tmp_path / "b.bin"]
    for index, path in enumerate(files):
        path.write_bytes(np.random.default_rng(index).bytes(300_000))
    thread = prefetch_module.prefetch([*files, tmp_path / "missing"], how, wait=True)
    assert (thread is None) == (how == "none")
    prefetch_module.drop_from_cache(files)
    share = prefetch_module.resident_share(files[0])
    assert -1.0 <= share <= 1.0
    if how != "none":
        prefetch_module.prefetch(files, how, wait=True)
        if how == "read":  # fadvise reads ahead in the background: not asserted
            assert prefetch_module.resident_share(files[0]) in (-1.0, 1.0)
    with pytest.raises(ValueError, match="unknown way"):
        prefetch_module.prefetch(files, "mmap")


def test_an_update_writes_the_term_table_of_the_grown_vocabulary(
    tmp_path: Path, daily_corpus: tuple[Path, dict], kb_settings: Settings
) -> None:
    """An appending update writes the term table of its generation's vocabulary (listed in its manifest):
    the mapped vocabulary equals the JSON one."""
    from foresci.core.artifacts import read_manifest
    from foresci.kb.build import build_kb, update_kb

    days = sorted(daily_corpus[0].glob("*.jsonl"))
    out = tmp_path / "kb"
    build_kb(days[:3], out, kb_settings)
    first = KnowledgeBase.open(out, kb_settings).generation
    update_kb(out, days[3:5], kb_settings)
    kb = KnowledgeBase.open(out, kb_settings)
    vocabulary = kb.bm25_postings.vocabulary
    assert isinstance(vocabulary, MappedVocabulary) and vocabulary.path.parent == kb.generation
    assert TERMS_FILE in read_manifest(kb.generation).hashes
    assert kb.generation != first and dict(vocabulary.items()) == kb._json_vocabulary()
