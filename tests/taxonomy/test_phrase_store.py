"""The phrase store: a text's noun-phrase rows are mined once and read back in a later block (a later round's
opening), the same rows as mining gives; another text, other word limits or changed extraction code miss."""

from __future__ import annotations

from pathlib import Path

import pytest

import foresci.taxonomy.phrase_store as phrase_store_module
from foresci.taxonomy import phrases
from foresci.taxonomy.phrase_store import FILE_NAME, phrase_store

TEXT = ("Retrieval-augmented generation for multi-hop question answering. We study graph-based retrieval "
        "augmented generation with learned query rewriting for multi-hop question answering over tables.")
OTHER = "Diffusion transformers for video generation. Latent diffusion models generate long videos."


def _rows(text: str, min_words: int = 2, max_words: int = 8) -> phrases.PhraseRows:
    phrases._document_phrase_rows.cache_clear()  # the in-process memory would hide the store
    return phrases.document_phrase_rows(text, min_words, max_words)


def test_a_second_block_reads_the_rows_the_first_mined(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mined: list[str] = []
    mine = phrases._mined_rows

    def counted(text: str, min_words: int, max_words: int) -> phrases.PhraseRows:
        mined.append(text)
        return mine(text, min_words, max_words)

    monkeypatch.setattr(phrases, "_mined_rows", counted)
    expected = mine(TEXT, 2, 8)
    with phrase_store(tmp_path) as store:
        assert _rows(TEXT) == expected
        assert (store.hits, store.misses) == (0, 1) and mined == [TEXT]
    assert (tmp_path / FILE_NAME).is_file()
    with phrase_store(tmp_path) as store:
        assert _rows(TEXT) == expected  # read back, not mined again
        assert (store.hits, store.misses) == (1, 0) and mined == [TEXT]
        assert _rows(OTHER) == mine(OTHER, 2, 8)  # another text misses
        assert _rows(TEXT, 2, 4) == mine(TEXT, 2, 4)  # other limits: cut from the stored widest rows
        assert store.misses == 1 and mined == [TEXT, OTHER]
    _rows(TEXT)  # outside a block nothing is read
    assert mined == [TEXT, OTHER, TEXT]


def test_changed_extraction_code_empties_the_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with phrase_store(tmp_path):
        _rows(TEXT)
    monkeypatch.setattr(phrase_store_module, "code_version", lambda: "another version")
    with phrase_store(tmp_path) as store:
        assert _rows(TEXT) == phrases._mined_rows(TEXT, 2, 8)
        assert (store.hits, store.misses) == (0, 1)


def test_the_term_matrix_reads_each_texts_terms_from_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from foresci.taxonomy import text as text_module

    split: list[str] = []
    terms = text_module.terms

    def counted(text: str) -> list[str]:
        split.append(text)
        return terms(text)

    monkeypatch.setattr(text_module, "terms", counted)
    texts = [TEXT, OTHER, TEXT + " Query rewriting helps.", OTHER]
    plain = text_module.TermMatrix(texts, min_df=1)
    assert len(split) == 4
    with phrase_store(tmp_path):
        first = text_module.TermMatrix(texts, min_df=1)
    assert len(split) == 7  # three distinct texts mined into the store
    with phrase_store(tmp_path):
        again = text_module.TermMatrix(texts, min_df=1)
    assert len(split) == 7  # read back
    for matrix in (first, again):
        assert matrix.vocabulary == plain.vocabulary and (matrix.matrix != plain.matrix).nnz == 0
