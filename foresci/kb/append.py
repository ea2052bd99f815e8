"""Write the generation of an appending update: the new days' rows as one new segment, the rest linked.

What an update writes is in the size of what it adds: the new segment's papers, vectors and term
counts; the vocabulary, extended by the new terms (the JSON list appended to, the sorted term table
merged with them: no parse or sort of the KB's terms); the HNSW graph grown by the new days (FAISS reads
and writes the graph whole, but without its vectors: 20 MB of links for 75k papers, and copies the
vectors into its storage: a memory copy in the KB's size); the quarantine and the manifest. Every
file of the previous generation's segments is hard-linked and its manifest hash carried over, so
``kb verify`` still checks every file of the new generation. Now and then
(:func:`foresci.kb.segments.merge_plan`) the newest segments are merged into one.

The graph is grown one announcement day at a time with row-determined levels (:func:`grow_hnsw`),
as a build from scratch inserts it, so the KB an update leaves searches exactly like the KB built from
scratch over the same days. The IVF index of very large KBs is trained on all vectors and so is rebuilt
whole (identical to a build; the cost is the KB's size).
"""

from __future__ import annotations

import json
import shutil
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from foresci.core.artifacts import read_manifest, sha256_file, write_manifest
from foresci.core.io import write_json, write_jsonl
from foresci.kb.dense import HNSW_FILE, IVF_FILE, day_starts
from foresci.kb.segments import (
    BASE,
    SEGMENT_FILES,
    SEGMENTS_NAME,
    Segment,
    link_segment,
    merge_plan,
    read_segments,
    save_counts,
    segment_file_name,
    segment_folder,
    segment_name,
    write_merged_segment,
    write_segments,
)
from foresci.kb.store import write_generation_db
from foresci.kb.tokens import tokenize
from foresci.kb.vocabulary import TERMS_FILE, append_terms, read_vocabulary, write_terms

if TYPE_CHECKING:
    from foresci.core.settings import Settings
    from foresci.kb.domains import DomainSpec
    from foresci.kb.ingest import QuarantinedRow
    from foresci.kb.models import Paper, ScreenDecision
    from foresci.kb.store import KnowledgeBase

GENERATION_FILES = [
    "bm25_vocabulary.json",
    "bm25_terms.bin",
    "quarantine.jsonl",
    "summary.json",
    SEGMENTS_NAME,
    IVF_FILE,
    HNSW_FILE,
]


def current_segments(kb: KnowledgeBase) -> list[Segment]:
    """The segments of ``kb``'s live generation (a generation built from scratch is one: ``.``)."""
    listed = read_segments(kb.generation)
    if listed is not None:
        return listed
    return [Segment(name=BASE, start=0, rows=kb.size, level=-1)]


@dataclass
class NewTerms:
    """The term counts of an update's new rows, in the KB's vocabulary extended by the terms they bring."""

    counts: sp.csr_matrix  # one row per new text; columns: the old vocabulary, then ``added``
    known: int  # terms in the KB's vocabulary before the update
    added: list[str]  # the new terms, in column order (first occurrence)

    def save_vocabulary(self, generation: Path, previous: Path) -> None:
        """Write the extended vocabulary into ``generation`` from the files of the ``previous`` one:
        ``bm25_vocabulary.json`` and ``bm25_terms.bin``, the very bytes :meth:`BM25Index.save_vocabulary`
        writes for the whole vocabulary, in time proportional to the new terms (plus a file copy)."""
        append_json_terms(previous / "bm25_vocabulary.json", generation / "bm25_vocabulary.json", self.added)
        if (previous / TERMS_FILE).is_file():
            append_terms(previous / TERMS_FILE, generation / TERMS_FILE, self.added, self.known)
        else:  # a KB written before the term table: the whole vocabulary, once
            vocabulary = dict(read_vocabulary(previous))
            vocabulary.update({term: self.known + number for number, term in enumerate(self.added)})
            write_terms(generation / TERMS_FILE, vocabulary)


def new_terms_counts(kb: KnowledgeBase, texts: Sequence[str]) -> NewTerms:
    """Term counts of ``texts`` only (their rows), over the KB's vocabulary extended by their new terms
    (columns given in order of first occurrence, as :meth:`BM25Index.appended` gives them).

    Only the texts' distinct terms are looked up (in the mapped term table of the KB's generation), so
    the cost follows the texts, not the KB's vocabulary."""
    known = read_vocabulary(kb.generation)
    size = len(known)
    columns: dict[str, int] = {}
    added: list[str] = []
    indptr = array("q", [0])
    indices = array("i")
    data = array("i")
    for text in texts:
        row: dict[int, int] = {}
        for token in tokenize(text):
            column = columns.get(token)
            if column is None:
                column = known.get(token)
                if column is None:
                    column = size + len(added)
                    added.append(token)
                columns[token] = column
            row[column] = row.get(column, 0) + 1
        indices.extend(row)
        data.extend(row.values())
        indptr.append(len(indices))
    counts = sp.csr_matrix(
        (
            np.frombuffer(data, dtype=np.int32) if data else np.zeros(0, dtype=np.int32),
            np.frombuffer(indices, dtype=np.int32) if indices else np.zeros(0, dtype=np.int32),
            np.frombuffer(indptr, dtype=np.int64),
        ),
        shape=(len(texts), size + len(added)),
    )
    return NewTerms(counts, size, added)


def append_json_terms(source: Path, target: Path, added: Sequence[str]) -> None:
    """Write at ``target`` the JSON list of terms at ``source`` with ``added`` after them: the bytes
    ``json.dumps`` gives for the whole list, made by appending to the old text instead of parsing it."""
    old = source.read_bytes()
    if not old.endswith(b"]") or not old.startswith(b"["):  # not as json.dumps writes it: parse it
        text = json.dumps([*json.loads(old), *added]).encode("utf-8")
    elif not added:
        text = old
    elif old == b"[]":
        text = json.dumps(list(added)).encode("utf-8")
    else:
        text = old[:-1] + b", " + json.dumps(list(added)).encode("utf-8")[1:]
    target.write_bytes(text)


def write_appended_generation(
    generation: Path,
    kb: KnowledgeBase,
    fresh: Sequence[Paper],
    vectors: np.ndarray,
    decisions: Sequence[ScreenDecision],
    counts: NewTerms,
    domains: Sequence[DomainSpec],
    meta: dict[str, str],
    quarantined: Sequence[QuarantinedRow],
    settings: Settings,
) -> list[str]:
    """Fill the empty folder ``generation`` with ``kb``'s rows plus ``fresh`` (announced after every row of
    ``kb``) and return the names of the files written (the others were linked, hashes carried over)."""
    previous = current_segments(kb)
    written: list[str] = []
    for segment in previous:
        link_segment(kb.generation, generation, segment.name)
    segments = list(previous)
    if fresh:  # (an update that only quarantines rows adds no segment)
        added = Segment(name=segment_name(kb.size, kb.size + len(fresh)), start=kb.size, rows=len(fresh))
        folder = segment_folder(generation, added.name)
        folder.mkdir(parents=True)
        write_generation_db(folder, fresh, decisions, domains, meta, first_row=added.start)
        np.save(folder / "vectors.npy", np.ascontiguousarray(vectors, dtype=np.float32), allow_pickle=False)
        save_counts(folder, counts.counts)
        written += [segment_file_name(added.name, file) for file in SEGMENT_FILES]
        segments.append(added)
    planned = merge_plan(segments)
    for merged in planned:
        if merged in segments:
            continue
        parts = [segment for segment in segments if merged.start <= segment.start < merged.stop]
        write_merged_segment(generation, parts, generation, merged)
        for part in parts:
            shutil.rmtree(segment_folder(generation, part.name))
        merged_names = {part.name + "/" for part in parts}
        written = [name for name in written if not name.startswith(tuple(merged_names))]
        written += [segment_file_name(merged.name, file) for file in SEGMENT_FILES]
    write_segments(generation, planned)
    counts.save_vocabulary(generation, kb.generation)
    written += _write_dense_index(generation, kb, fresh, vectors, settings)
    write_jsonl(generation / "quarantine.jsonl", quarantined)
    return written + ["bm25_vocabulary.json", "bm25_terms.bin", "quarantine.jsonl", SEGMENTS_NAME]


def _write_dense_index(
    generation: Path, kb: KnowledgeBase, fresh: Sequence[Paper], vectors: np.ndarray, settings: Settings
) -> list[str]:
    """Grow (or, on crossing a size threshold, build) the approximate index the KB's new size calls for."""
    from foresci.kb.dense import build_hnsw, build_ivf, grow_hnsw, read_index, write_index

    total = kb.size + len(fresh)
    if total > settings.runtime.approximate_above:
        write_index(generation, build_ivf(np.concatenate([kb.vectors, vectors])))
        return [IVF_FILE]
    if total <= settings.runtime.graph_above:
        return []
    fresh_days = day_starts(np.asarray([paper.announced.toordinal() for paper in fresh], dtype=np.int64))
    graph = read_index(kb.generation, HNSW_FILE, mapped=False, vectors=kb.vector_parts())
    if graph is None or graph.ntotal != kb.size:
        all_vectors = np.concatenate([kb.vectors, vectors])
        ordinals = np.concatenate([kb.ordinals, [paper.announced.toordinal() for paper in fresh]])
        graph = build_hnsw(all_vectors, day_starts(ordinals))
    else:  # every fresh paper is announced after the KB's last day: their first row starts a day
        grow_hnsw(graph, vectors, fresh_days)
    write_index(generation, graph, HNSW_FILE)
    return [HNSW_FILE]


def write_appended_manifest(
    generation: Path,
    kb: KnowledgeBase,
    written: Sequence[str],
    kind: str,
    inputs: dict[str, Any],
    config: dict[str, Any],
    counts: dict[str, Any],
) -> None:
    """The new generation's manifest: fresh hashes of the files written, the previous manifest's hashes of
    the files linked from it (the same bytes), so every file is listed and ``kb verify`` checks them all."""
    write_manifest(generation, kind, inputs=inputs, config=config, files=list(written), counts=counts)
    manifest = read_manifest(generation)
    carried = read_manifest(kb.generation).hashes
    for segment in read_segments(generation) or []:
        for file in SEGMENT_FILES:
            name = segment_file_name(segment.name, file)
            if name in manifest.hashes or not (segment_folder(generation, segment.name) / file).is_file():
                continue
            manifest.hashes[name] = carried.get(name) or sha256_file(generation / name)
    write_json(generation / "manifest.json", manifest)
