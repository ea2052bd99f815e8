"""The sparse (BM25) side of one KB generation: the term-count index, the query-side postings and the
vocabulary searches read, each loaded on first use, with what is derived from them kept in the cache
folder. :class:`foresci.kb.store.KnowledgeBase` holds one and hands its parts to the view."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from foresci.kb.segments import load_counts, segment_file_name, segment_folder

if TYPE_CHECKING:
    from foresci.kb.bm25 import BM25Index
    from foresci.kb.postings import BM25Postings


class SparseSide:
    """BM25 over the rows of a generation's segments (``size`` rows in all).

    ``hashes``: the generation manifest's file hashes; ``derived_folder(name)``: where data derived from
    the generation file ``name`` is cached (None: not cached)."""

    def __init__(self, generation: Path, segment_names: Sequence[str], segment_starts: Sequence[int],
                 size: int, hashes: Mapping[str, str], derived_folder: Callable[[str], Path | None]) -> None:
        self.generation = generation
        self.segment_names = list(segment_names)
        self.segment_starts = list(segment_starts)
        self.size = size
        self.hashes = hashes
        self.derived_folder = derived_folder

    @cached_property
    def index(self) -> BM25Index:
        """The BM25 term-count index (the segments' counts joined)."""
        import scipy.sparse as sp

        from foresci.kb.bm25 import BM25Index

        index = BM25Index.load(self.generation)
        if len(self.segment_names) > 1:
            width = len(index.vocabulary)
            parts = [load_counts(segment_folder(self.generation, name)) for name in self.segment_names]
            widened = [sp.csr_matrix((m.data, m.indices, m.indptr), shape=(m.shape[0], width)) for m in parts]
            index = BM25Index(index.vocabulary, sp.vstack(widened, format="csr"))
        if index.size != self.size:
            raise ValueError(
                f"{self.generation / 'bm25_counts.npz'}: {index.size} rows for {self.size} papers"
            )
        return index

    @cached_property
    def postings(self) -> BM25Postings:
        """The query side of BM25 (numpy only): one part per segment, memory-mapped from the cache folder
        once derived there (an update derives only its new segment's)."""
        from foresci.kb.postings import BM25Postings, PostingsPart

        vocabulary = self.search_vocabulary()
        parts = []
        for name, start in zip(self.segment_names, self.segment_starts, strict=True):
            folder = self.derived_folder(segment_file_name(name, "bm25_counts.npz"))
            part = PostingsPart.load(folder, start) if folder is not None else None
            if part is None:
                part = PostingsPart.from_counts(load_counts(segment_folder(self.generation, name)), start)
                if folder is not None:
                    with contextlib.suppress(OSError):  # a read-only cache folder: derived again next time
                        part.save(folder)
            parts.append(part)
        postings = BM25Postings(vocabulary, parts)
        if postings.size != self.size:
            raise ValueError(
                f"{self.generation / 'bm25_counts.npz'}: {postings.size} rows for {self.size} papers"
            )
        return postings

    def search_vocabulary(self) -> Mapping[str, int]:
        """The BM25 vocabulary for searching: the generation's term table mapped (KBs built now), else one
        derived from ``bm25_vocabulary.json`` into the cache folder once and mapped, else the JSON parsed."""
        from foresci.kb.vocabulary import TERMS_FILE, MappedVocabulary, write_terms

        path = self.vocabulary_file()
        if path.name == TERMS_FILE:
            return MappedVocabulary(path)
        vocabulary = self.json_vocabulary()
        folder = self.derived_folder("bm25_vocabulary.json")
        if folder is not None:
            with contextlib.suppress(OSError):  # a read-only cache folder: parsed again next time
                write_terms(folder / TERMS_FILE, vocabulary)
        return vocabulary

    def json_vocabulary(self) -> dict[str, int]:
        """The vocabulary parsed from ``bm25_vocabulary.json`` (the terms by column)."""
        terms = json.loads((self.generation / "bm25_vocabulary.json").read_text(encoding="utf-8"))
        return {term: column for column, term in enumerate(terms)}

    def vocabulary_file(self) -> Path:
        """The vocabulary file searches read: the generation's term table (listed in its manifest), else
        one derived into the cache folder, else ``bm25_vocabulary.json``."""
        from foresci.kb.vocabulary import TERMS_FILE

        if (self.generation / TERMS_FILE).is_file() and TERMS_FILE in self.hashes:
            return self.generation / TERMS_FILE
        folder = self.derived_folder("bm25_vocabulary.json")
        if folder is not None and (folder / TERMS_FILE).is_file():
            return folder / TERMS_FILE
        return self.generation / "bm25_vocabulary.json"

    def search_files(self) -> list[Path]:
        """The sparse files searches read: per segment the cached postings (else its term counts), then
        the vocabulary."""
        from foresci.kb.postings import ARRAYS

        files: list[Path] = []
        for name in self.segment_names:
            folder = self.derived_folder(segment_file_name(name, "bm25_counts.npz"))
            if folder is not None and (folder / f"{ARRAYS[0]}.npy").is_file():  # row_terms: rarely read
                files += [folder / f"{array}.npy" for array in ARRAYS if array != "row_terms"]
            else:
                files.append(segment_folder(self.generation, name) / "bm25_counts.npz")
        files.append(self.vocabulary_file())
        return files
