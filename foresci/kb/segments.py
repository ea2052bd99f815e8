"""Segments: the rows of a KB generation split into immutable parts, so an update writes only what it adds.

A generation's rows (internal ids, announcement order) live in one or more segments, in row order. Each
segment is a folder holding ``papers.sqlite`` (its papers and screens, with their global row numbers,
plus the domains and build facts), ``vectors.npy`` (its rows' vectors) and ``bm25_counts.npz`` (its
rows' term counts, columns in the generation's vocabulary). Segment ``.`` is the generation folder
itself: a KB built from scratch has that one segment, in the layout it always had. An update writes
a folder ``seg-<first row>-<end row>`` holding the new rows only and hard-links the files of the previous
generation's segments (a file is never changed once written), so the previous generation stays whole
and readable whatever happens to the new one. ``segments.json`` lists the segments; a generation
without it has the one segment ``.``.

Compaction keeps the count small: an update's segment has level 0, and whenever the last
:data:`MERGE_FANIN` segments after the first share a level, they are merged into one segment of the
next level (with 8 and ~200 papers a day: 8 days are merged every 8 days, 64 days every 64 days...),
so a paper is rewritten a few times over its life and a KB has at most 7 segments a level.
Searches and reads never depend on how the rows are segmented (see :mod:`foresci.kb.store`).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from foresci.core.io import read_json, write_json

if TYPE_CHECKING:
    import scipy.sparse as sp

SEGMENTS_NAME = "segments.json"
SEGMENT_FILES = ("papers.sqlite", "vectors.npy", "bm25_counts.npz")
BASE = "."
MERGE_FANIN = 8
# the tables of a segment's papers.sqlite (the KB store reads and writes them; foresci.kb.store)
SCHEMA = """
CREATE TABLE papers (row INTEGER PRIMARY KEY, paper_id TEXT NOT NULL UNIQUE, announced TEXT NOT NULL,
                     data TEXT NOT NULL);
CREATE TABLE screens (paper_id TEXT NOT NULL, domain TEXT NOT NULL, status TEXT NOT NULL,
                      reason TEXT NOT NULL, similarity REAL, PRIMARY KEY (paper_id, domain)) WITHOUT ROWID;
CREATE INDEX screens_by_domain ON screens (domain, status);
CREATE TABLE domains (slug TEXT PRIMARY KEY, spec TEXT NOT NULL);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class Segment(BaseModel):
    """One immutable part of a generation's rows: ``[start, start + rows)``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="'.' (the generation folder itself) or the segment's folder name")
    start: int = Field(description="first row (internal id) of the segment")
    rows: int = Field(description="number of rows")
    level: int = Field(default=0, description="compaction level: merges of MERGE_FANIN segments go up one")

    @property
    def stop(self) -> int:
        """One past the segment's last row."""
        return self.start + self.rows


def segment_name(start: int, stop: int) -> str:
    """Folder name of a segment holding rows ``[start, stop)``."""
    return f"seg-{start:09d}-{stop:09d}"


def segment_folder(generation: Path, name: str) -> Path:
    """Folder of the segment ``name`` in ``generation``."""
    return generation if name == BASE else generation / name


def segment_file_name(name: str, file: str) -> str:
    """A segment file's name relative to its generation (as its manifest hash is keyed)."""
    return file if name == BASE else f"{name}/{file}"


def read_segments(generation: Path) -> list[Segment] | None:
    """The segments listed by ``segments.json``, or None for a one-segment generation (no such file)."""
    path = generation / SEGMENTS_NAME
    if not path.is_file():
        return None
    return [Segment.model_validate(item) for item in read_json(path)]


def write_segments(generation: Path, segments: Sequence[Segment]) -> None:
    """Write ``segments.json``."""
    write_json(generation / SEGMENTS_NAME, [segment.model_dump(mode="json") for segment in segments])


def link_segment(source: Path, target: Path, name: str) -> None:
    """Put the files of segment ``name`` of generation ``source`` into generation ``target``: hard links
    (no copy, no write), or copies where the file system has none."""
    source_folder, target_folder = segment_folder(source, name), segment_folder(target, name)
    target_folder.mkdir(parents=True, exist_ok=True)
    for file in SEGMENT_FILES:
        if not (source_folder / file).is_file():
            continue
        try:
            os.link(source_folder / file, target_folder / file)
        except OSError:
            shutil.copyfile(source_folder / file, target_folder / file)


def merge_plan(segments: Sequence[Segment]) -> list[Segment]:
    """The segments after compaction: while the last :data:`MERGE_FANIN` segments after the first share
    a level, they become one segment of the next level (its ``name`` set by :func:`segment_name`)."""
    planned = list(segments)
    while len(planned) > MERGE_FANIN:
        tail = planned[-MERGE_FANIN:]
        if len({segment.level for segment in tail}) != 1:
            break
        merged = Segment(
            name=segment_name(tail[0].start, tail[-1].stop),
            start=tail[0].start,
            rows=sum(segment.rows for segment in tail),
            level=tail[0].level + 1,
        )
        planned = [*planned[:-MERGE_FANIN], merged]
    return planned


def write_merged_segment(source: Path, parts: Sequence[Segment], target: Path, merged: Segment) -> None:
    """Write segment ``merged`` into generation ``target`` from the ``parts`` stored in ``source``."""
    import scipy.sparse as sp

    folder = segment_folder(target, merged.name)
    folder.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(folder / "papers.sqlite")
    connection.execute("PRAGMA journal_mode=OFF")  # a new file, unseen until the generation is swapped in
    connection.execute("PRAGMA synchronous=OFF")
    connection.executescript(SCHEMA)
    for number, part in enumerate(parts):
        alias = f"part{number}"
        connection.execute(
            f"ATTACH DATABASE ? AS {alias}",
            (f"file:{segment_folder(source, part.name) / 'papers.sqlite'}?mode=ro",),
        )
        connection.execute(f"INSERT INTO papers SELECT * FROM {alias}.papers ORDER BY row")
        connection.execute(f"INSERT OR REPLACE INTO screens SELECT * FROM {alias}.screens")
        connection.execute(f"INSERT OR REPLACE INTO domains SELECT * FROM {alias}.domains")
        connection.execute(f"INSERT OR REPLACE INTO meta SELECT * FROM {alias}.meta")
        connection.commit()
        connection.execute(f"DETACH DATABASE {alias}")
    connection.close()
    vectors = [
        np.load(segment_folder(source, part.name) / "vectors.npy", allow_pickle=False) for part in parts
    ]
    np.save(folder / "vectors.npy", np.concatenate(vectors), allow_pickle=False)
    counts = [load_counts(segment_folder(source, part.name)) for part in parts]
    width = max(matrix.shape[1] for matrix in counts)
    widened = [sp.csr_matrix((m.data, m.indices, m.indptr), shape=(m.shape[0], width)) for m in counts]
    save_counts(folder, sp.vstack(widened, format="csr"))


def load_counts(folder: Path) -> sp.csr_matrix:
    """The term-count matrix of the segment in ``folder`` (``bm25_counts.npz``)."""
    import scipy.sparse as sp

    with np.load(folder / "bm25_counts.npz", allow_pickle=False) as arrays:
        shape = tuple(int(value) for value in arrays["shape"])
        return sp.csr_matrix((arrays["data"], arrays["indices"], arrays["indptr"]), shape=shape)


def save_counts(folder: Path, counts: sp.csr_matrix) -> None:
    """Write a term-count matrix as ``bm25_counts.npz`` (no pickle), as :meth:`BM25Index.save` does."""
    np.savez(
        folder / "bm25_counts.npz",
        data=counts.data,
        indices=counts.indices,
        indptr=counts.indptr,
        shape=np.asarray(counts.shape, dtype=np.int64),
    )
