"""An appending update extends the BM25 vocabulary in time proportional to the new terms, yet writes the
very bytes (JSON list, sorted term table, term counts) a whole rewrite over the extended vocabulary writes."""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from foresci.kb.append import NewTerms, append_json_terms, new_terms_counts
from foresci.kb.bm25 import BM25Index
from foresci.kb.vocabulary import TERMS_FILE, MappedVocabulary, append_terms, write_terms

OLD_TEXTS = ["Graph memory for tool-using agents", "Diffusion models for video", "naïve Bayes über alles",
             "agents agents retrieval 2024"]
NEW_TEXTS = ["Retrieval for agents: a zebra study", "", "ñandú and aardvark graphs über", "video zebra 0day"]


def _random_terms(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz0123456789éñ"
    return list(dict.fromkeys("".join(rng.choices(letters, k=rng.randint(1, 12))) for _ in range(count)))


@pytest.mark.parametrize(("old_count", "new_count"), [(0, 5), (5, 0), (1, 1), (2_000, 300), (300, 2_000)])
def test_appended_term_table_and_json_equal_a_whole_rewrite(tmp_path: Path, old_count: int,
                                                          new_count: int) -> None:
    edges = ["", "a", "zz", "é"]  # of the sort order: the empty term first, a multi-byte one last
    drawn = [term for term in _random_terms(old_count + new_count, seed=old_count * 7 + new_count)
             if term not in edges]
    old, new = drawn[:old_count] + edges[:2], drawn[old_count:] + edges[2:]
    terms = old + new
    old_vocabulary = {term: column for column, term in enumerate(old)}
    whole = {term: column for column, term in enumerate(terms)}
    write_terms(tmp_path / "old.bin", old_vocabulary)
    write_terms(tmp_path / "whole.bin", whole)
    append_terms(tmp_path / "old.bin", tmp_path / "appended.bin", new, len(old))
    assert (tmp_path / "appended.bin").read_bytes() == (tmp_path / "whole.bin").read_bytes()
    assert dict(MappedVocabulary(tmp_path / "appended.bin").items()) == whole
    (tmp_path / "old.json").write_text(json.dumps(old), encoding="utf-8")
    append_json_terms(tmp_path / "old.json", tmp_path / "appended.json", new)
    assert (tmp_path / "appended.json").read_text(encoding="utf-8") == json.dumps(terms)


def test_appending_to_an_empty_json_list_and_a_reformatted_one(tmp_path: Path) -> None:
    (tmp_path / "empty.json").write_text("[]", encoding="utf-8")
    append_json_terms(tmp_path / "empty.json", tmp_path / "out.json", ["a", "ü"])
    assert (tmp_path / "out.json").read_text(encoding="utf-8") == json.dumps(["a", "ü"])
    (tmp_path / "pretty.json").write_text('[\n  "a"\n]\n', encoding="utf-8")  # not json.dumps' bytes
    append_json_terms(tmp_path / "pretty.json", tmp_path / "out.json", ["b"])
    assert (tmp_path / "out.json").read_text(encoding="utf-8") == json.dumps(["a", "b"])


@pytest.mark.parametrize("with_table", [True, False])
def test_new_rows_counts_and_vocabulary_equal_the_index_built_over_all_texts(tmp_path: Path,
                                                                            with_table: bool) -> None:
    """What an update writes for the new rows (counts + vocabulary) equals a build over old + new texts."""
    old_index = BM25Index.empty().appended(OLD_TEXTS)
    previous, generation = tmp_path / "previous", tmp_path / "generation"
    previous.mkdir(), generation.mkdir()
    old_index.save(previous)
    if not with_table:  # a KB written before the term table existed
        (previous / TERMS_FILE).unlink()
    kb: Any = SimpleNamespace(generation=previous)
    added = new_terms_counts(kb, NEW_TEXTS)
    full = BM25Index.empty().appended(OLD_TEXTS + NEW_TEXTS)
    assert isinstance(added, NewTerms) and added.known == len(old_index.vocabulary)
    assert added.counts.shape == (len(NEW_TEXTS), len(full.vocabulary))
    np.testing.assert_array_equal(added.counts.toarray(), full.counts[len(OLD_TEXTS) :].toarray())
    assert added.added == [term for term, column in full.vocabulary.items() if column >= added.known]
    added.save_vocabulary(generation, previous)
    whole = tmp_path / "whole"
    whole.mkdir()
    full.save_vocabulary(whole)
    for name in ("bm25_vocabulary.json", TERMS_FILE):
        assert (generation / name).read_bytes() == (whole / name).read_bytes(), name
