"""The stored knowledge base: an artifact folder with generations swapped atomically.

Layout of a KB folder::

    <kb>/CURRENT            name of the live generation (replaced atomically)
    <kb>/manifest.json      a copy of the live generation's manifest, for people (never trusted)
    <kb>/gen-<n>/papers.sqlite        papers (row = internal id, announcement order), screens, domains
    <kb>/gen-<n>/vectors.npy          (n, d) float32 normalised embeddings, row order
    <kb>/gen-<n>/dense_ivf.faiss      IVF index of the vectors (only for KBs above approximate_above)
    <kb>/gen-<n>/dense_hnsw.faiss     HNSW graph of the vectors (KBs above graph_above, up to the IVF's size)
    <kb>/gen-<n>/bm25_counts.npz      term counts (CSR, no pickle) + bm25_vocabulary.json
    <kb>/gen-<n>/bm25_terms.bin       the vocabulary as a sorted term table searches map (KBs built since)
    <kb>/gen-<n>/quarantine.jsonl     rows that could not be ingested (file, line, reason)
    <kb>/gen-<n>/summary.json         the BuildSummary
    <kb>/gen-<n>/manifest.json
    <kb>/gen-<n>/segments.json        after updates: the segments holding the rows (below)
    <kb>/gen-<n>/seg-<a>-<b>/{papers.sqlite,vectors.npy,bm25_counts.npz}   rows [a, b) added by updates

A build or update writes a new generation and only then points CURRENT at it, so a killed build
leaves the previous generation live and intact. An update writes only its new rows (a segment, see
:mod:`foresci.kb.segments`) and hard-links the rest, so it costs what it adds. Reuse is decided from the
live generation's own manifest. Writers hold :func:`foresci.core.locks.artifact_lock` on the KB folder.
"""

from __future__ import annotations

import bisect
import contextlib
import json
import sqlite3
import threading
from collections.abc import Sequence
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from foresci.core.artifacts import read_manifest
from foresci.core.errors import UserError
from foresci.kb.models import Paper, ScreenDecision
from foresci.kb.segments import (
    BASE,
    SCHEMA,
    SEGMENTS_NAME,
    read_segments,
    segment_file_name,
    segment_folder,
)

if TYPE_CHECKING:
    from foresci.core.settings import Settings
    from foresci.kb.bm25 import BM25Index
    from foresci.kb.dense import DenseIndex
    from foresci.kb.dense_side import DenseSide
    from foresci.kb.domains import DomainSpec  # imported where used: it loads YAML, which searches never need
    from foresci.kb.postings import BM25Postings
    from foresci.kb.sparse_side import SparseSide

CURRENT_NAME = "CURRENT"
_KEPT_ANSWERS = 64  # KnowledgeBase.papers answers remembered per KB object


def live_generation(path: Path) -> Path:
    """The folder of the live generation of the KB at ``path`` (or ``path`` itself if it is one)."""
    path = Path(path)
    pointer = path / CURRENT_NAME
    if pointer.is_file():
        generation = path / pointer.read_text(encoding="utf-8").strip()
        if not (generation / "papers.sqlite").is_file():
            raise UserError(
                f"names {generation.name}, which has no papers.sqlite; rebuild the KB", path=pointer
            )
        return generation
    if (path / "papers.sqlite").is_file():
        return path
    raise UserError(
        f"not a foresci KB (no {CURRENT_NAME} file); build one with `foresci kb build SOURCES --out DIR`",
        path=path,
    )


def last_announcement(kb: Any) -> date:
    """The latest real announcement day of ``kb`` (any object with ``max_date``): what window checks use."""
    latest = getattr(kb, "last_announcement", None)
    return latest if isinstance(latest, date) else kb.max_date


def write_generation_db(
    folder: Path,
    papers: Sequence[Paper],
    decisions: Sequence[ScreenDecision],
    domains: Sequence[DomainSpec],
    meta: dict[str, str],
    copy_from: Path | None = None,
    first_row: int = 0,
) -> None:
    """Create (or, with ``copy_from``, extend a copy of) ``papers.sqlite`` in ``folder``.

    With ``copy_from``, ``papers`` are appended after the rows already there; without, they are rows
    ``first_row``, ``first_row + 1``, ... (a segment's rows keep their place in the whole KB).
    """
    target = folder / "papers.sqlite"
    if copy_from is not None:
        source = sqlite3.connect(copy_from)
        connection = sqlite3.connect(target)
        source.backup(connection)
        source.close()
        start = connection.execute("SELECT COUNT(*) FROM papers").fetchone()[0]
    else:
        connection = sqlite3.connect(target)
        # a new file no reader can see before the generation is swapped in: no journal, no fsync (a
        # killed writer leaves an unreferenced generation, removed by the next one); same file bytes
        connection.execute("PRAGMA journal_mode=OFF")
        connection.execute("PRAGMA synchronous=OFF")
        connection.executescript(SCHEMA)
        start = first_row
    with connection:
        connection.executemany(
            "INSERT INTO papers (row, paper_id, announced, data) VALUES (?, ?, ?, ?)",
            (
                (start + offset, paper.paper_id, paper.announced.isoformat(), paper.model_dump_json())
                for offset, paper in enumerate(papers)
            ),
        )
        connection.executemany(
            "INSERT OR REPLACE INTO screens (paper_id, domain, status, reason, similarity) "
            "VALUES (?, ?, ?, ?, ?)",
            ((item.paper_id, item.domain, item.status, item.reason, item.similarity) for item in decisions),
        )
        connection.executemany(
            "INSERT OR REPLACE INTO domains (slug, spec) VALUES (?, ?)",
            ((spec.slug, spec.model_dump_json()) for spec in domains),
        )
        connection.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", meta.items())
    connection.close()


class KnowledgeBase:
    """Read access to a built KB. Agents never use it directly: they get a ``KBView(kb, cutoff)``."""

    fingerprint: str
    """Fingerprint of the opened generation (from its manifest)."""

    def __init__(self, path: Path, generation: Path, settings: Settings | None = None) -> None:
        self.path = Path(path)
        self.generation = generation
        self.settings = settings
        listed = read_segments(generation)
        self._segment_names = [segment.name for segment in listed] if listed else [BASE]
        self._connections = [
            sqlite3.connect(
                f"file:{segment_folder(generation, name) / 'papers.sqlite'}?mode=ro",
                uri=True,
                check_same_thread=False,
            )
            for name in self._segment_names
        ]
        self._connection = self._connections[-1]  # the newest segment: domains and build facts
        self._lock = threading.Lock()
        self.manifest = read_manifest(generation)
        self.fingerprint = self.manifest.fingerprint
        try:
            self._paper_ids, self._ordinals, self._month_index, self._segment_starts = self._row_dates()
        except sqlite3.DatabaseError as error:
            raise self._database_error(error) from error
        if listed and [segment.start for segment in listed] != self._segment_starts:
            raise ValueError(f"{generation / SEGMENTS_NAME}: segment rows disagree with their papers.sqlite")
        if len(self._ordinals) and np.any(np.diff(self._ordinals) < 0):
            raise ValueError(f"{generation / 'papers.sqlite'}: rows are not in announcement order")
        self._papers: list[Paper] | None = None
        self._masks: dict[tuple[str, tuple[str, ...]], np.ndarray] = {}
        self._chosen: dict[tuple[object, ...], list[Paper]] = {}  # papers(): the last answers, by arguments
        self.one_shot = False  # see open()
        self._prefetched = False
        self._prefetch_thread: threading.Thread | None = None

    @cached_property
    def _row_of(self) -> dict[str, int]:
        """arXiv id -> internal id (built on first use: a search by text never needs it)."""
        return {paper_id: row for row, paper_id in enumerate(self._paper_ids)}

    @classmethod
    def open(cls, path: Path, settings: Settings | None = None, one_shot: bool = False) -> KnowledgeBase:
        """Open the live generation of the KB folder at ``path``.

        ``one_shot``: for a process that searches once (``foresci kb search``): exact dense searches, and
        those 'auto' would send to the HNSW graph, scan the float32 vectors with numpy (no FAISS import;
        :func:`foresci.kb.dense.numpy_exact_search`), and the query is encoded in numpy where the model
        allows (:mod:`foresci.embedders.numpy_encoder`). The IVF index of a large KB, and the graph when
        ``runtime.dense_index`` is 'hnsw', are still used.
        """
        kb = cls(Path(path), live_generation(Path(path)), settings)
        kb.one_shot = one_shot
        return kb

    def close(self) -> None:
        """Close the database connections."""
        for connection in self._connections:
            connection.close()

    @property
    def segments(self) -> list[str]:
        """Names of the segments holding the rows, in row order ('.' is the generation folder itself)."""
        return list(self._segment_names)

    def segment_files(self, file: str) -> list[Path]:
        """The path of ``file`` (papers.sqlite, vectors.npy, bm25_counts.npz) in every segment, row order."""
        return [segment_folder(self.generation, name) / file for name in self._segment_names]

    # ---- facts about the KB -------------------------------------------------------------------
    @property
    def size(self) -> int:
        """Number of papers."""
        return len(self._paper_ids)

    @cached_property
    def domain_specs(self) -> list[DomainSpec]:
        """The domain definitions the KB was screened with."""
        rows = self._query("SELECT spec FROM domains ORDER BY slug")
        from foresci.kb.domains import DomainSpec

        return [DomainSpec.model_validate_json(spec) for (spec,) in rows]

    @property
    def domains(self) -> list[str]:
        """Slugs of the screened domains."""
        return [spec.slug for spec in self.domain_specs]

    @property
    def min_date(self) -> date:
        """Announcement date of the earliest paper."""
        self._require_papers()
        return date.fromordinal(int(self._ordinals[0]))

    @property
    def max_date(self) -> date:
        """Announcement date of the latest paper."""
        self._require_papers()
        return date.fromordinal(int(self._ordinals[-1]))

    @property
    def last_announcement(self) -> date:
        """The latest real announcement day: the last paper's date, never after the day the KB was built.

        Every "has this window closed?" check compares against this. Ingest already quarantines
        daily files dated after the build day; the cap keeps KBs built before that rule honest too.
        """
        built = self.meta.get("built_on")
        latest = self.max_date
        return min(latest, date.fromisoformat(built)) if built else latest

    @cached_property
    def meta(self) -> dict[str, str]:
        """Free-form build facts (embedding model, dimension, ...)."""
        return dict(self._query("SELECT key, value FROM meta"))

    # ---- rows and cutoffs ---------------------------------------------------------------------
    def prefix(self, cutoff: date) -> int:
        """Number of papers announced on or before ``cutoff`` (they are rows 0 .. prefix-1)."""
        return int(np.searchsorted(self._ordinals, cutoff.toordinal(), side="right"))

    def start(self, since: date) -> int:
        """First row announced on or after ``since``."""
        return int(np.searchsorted(self._ordinals, since.toordinal(), side="left"))

    def month_counts(self, stop: int, mask: np.ndarray | None = None) -> dict[str, int]:
        """'YYYY-MM' -> number of papers among rows [0, stop) (where ``mask`` is True), months in order."""
        months = self._month_index[:stop]
        if mask is not None:
            months = months[mask[:stop]]
        values, counts = np.unique(months, return_counts=True)
        return {
            f"{value // 12:04d}-{value % 12 + 1:02d}": int(count)
            for value, count in zip(values, counts, strict=True)
        }

    @property
    def ordinals(self) -> np.ndarray:
        """Announcement date ordinal of every row (read-only view)."""
        view = self._ordinals.view()
        view.flags.writeable = False
        return view

    def row_of(self, paper_id: str) -> int | None:
        """Internal id of a paper (None if absent)."""
        return self._row_of.get(paper_id)

    def paper_id_at(self, row: int) -> str:
        """arXiv id of the paper at an internal id."""
        return self._paper_ids[row]

    def announced_at(self, row: int) -> date:
        """Announcement date of the paper at an internal id."""
        return date.fromordinal(int(self._ordinals[row]))

    def all_papers(self) -> list[Paper]:
        """Every paper in internal-id order (loaded once)."""
        if self._papers is None:
            rows = self._query_segments("SELECT data FROM papers ORDER BY row")
            self._papers = [Paper.model_validate_json(data) for (data,) in rows]
        return self._papers

    def paper_at(self, row: int) -> Paper:
        """The paper at an internal id."""
        if self._papers is not None:
            return self._papers[row]
        segment = self._segment_of(row)
        found = self._query("SELECT data FROM papers WHERE row = ?", (row,), segment)
        return Paper.model_validate_json(found[0][0])

    def domain_mask(self, domain: str, statuses: tuple[str, ...] = ("core", "support")) -> np.ndarray:
        """Boolean array over rows: True where the paper has one of ``statuses`` in ``domain``."""
        if domain not in self.domains:
            raise UserError(
                f"unknown domain {domain!r}; this KB has {', '.join(self.domains) or 'no domains'}",
                path=self.path,
                field="domain",
            )
        key = (domain, tuple(sorted(statuses)))
        mask = self._masks.get(key)
        if mask is None:
            marks = ",".join("?" * len(statuses))
            rows = self._query_segments(
                f"SELECT paper_id FROM screens WHERE domain = ? AND status IN ({marks})", (domain, *statuses)
            )
            mask = np.zeros(self.size, dtype=bool)
            mask[[self._row_of[paper_id] for (paper_id,) in rows]] = True
            self._masks[key] = mask
        return mask

    # ---- the documented API -------------------------------------------------------------------
    def papers(
        self,
        until: date | None = None,
        since: date | None = None,
        domain: str | None = None,
        statuses: tuple[str, ...] = ("core", "support"),
    ) -> list[Paper]:
        """Papers announced in [since, until], in announcement order, as known on ``until``.

        With ``domain``, only papers screened into one of ``statuses`` there; without, every paper.
        Facts that became known after ``until`` (a comment written with a later version) are removed
        (:meth:`Paper.as_of`).
        """
        stop = self.size if until is None else self.prefix(until)
        begin = 0 if since is None else self.start(since)
        key = (stop, begin, until, domain, None if domain is None else tuple(sorted(statuses)))
        found = self._chosen.get(key)
        if found is None:
            everything = self.all_papers()
            if domain is None:
                found = everything[begin:stop]
            else:
                mask = self.domain_mask(domain, statuses)
                found = [everything[row] for row in (np.flatnonzero(mask[begin:stop]) + begin).tolist()]
            if until is not None:
                found = [paper.as_of(until) for paper in found]
            if len(self._chosen) >= _KEPT_ANSWERS:  # a round's opening asks ~130 times for ~20 distinct sets
                with contextlib.suppress(RuntimeError, KeyError, StopIteration):  # another thread evicted
                    self._chosen.pop(next(iter(self._chosen)))
            self._chosen[key] = found
        return list(found)

    @cached_property
    def dense(self) -> DenseSide:
        """The dense side of the KB: embeddings and the dense index (:mod:`foresci.kb.dense_side`)."""
        from foresci.kb.dense_side import DenseSide

        files = self.segment_files("vectors.npy")
        runtime = self.settings.runtime if self.settings is not None else None
        return DenseSide(self.generation, files, self.size, runtime, self._derived_folder_of(files, "screen"),
                         self.one_shot)

    @property
    def vectors(self) -> np.ndarray:
        """All embeddings, (size, d) float32, row order (memory-mapped, read-only, for a one-segment KB;
        the segments' rows joined in memory otherwise)."""
        return self.dense.vectors

    def vector_parts(self) -> list[np.ndarray]:
        """The embeddings of each segment, in row order (memory-mapped, read-only; never joined)."""
        return self.dense.parts()

    def embeddings(self, paper_ids: Sequence[str]) -> np.ndarray:
        """(n, d) normalised embeddings of the given papers, in the given order (KeyError if absent)."""
        rows = []
        for paper_id in paper_ids:
            row = self._row_of.get(paper_id)
            if row is None:
                raise KeyError(f"paper {paper_id!r} is not in the KB at {self.path}")
            rows.append(row)
        return self.vectors[np.asarray(rows, dtype=np.int64)] if rows else self.vectors[:0]

    def screen(self, paper_id: str, domain: str) -> ScreenDecision | None:
        """The screen verdict of a paper in a domain (None if the paper or domain is unknown)."""
        row = self._row_of.get(paper_id)
        if row is None:
            return None
        found = self._query(
            "SELECT status, reason, similarity FROM screens WHERE paper_id = ? AND domain = ?",
            (paper_id, domain),
            self._segment_of(row),
        )
        if not found:
            return None
        status, reason, similarity = found[0]
        return ScreenDecision(
            paper_id=paper_id, domain=domain, status=status, reason=reason, similarity=similarity
        )

    def screen_counts(self) -> dict[str, dict[str, int]]:
        """domain -> status -> number of papers."""
        counts: dict[str, dict[str, int]] = {}
        for domain, status, count in self._query_segments(
            "SELECT domain, status, COUNT(*) FROM screens GROUP BY domain, status"
        ):
            bucket = counts.setdefault(domain, {})
            bucket[status] = bucket.get(status, 0) + count
        return counts

    @cached_property
    def sparse(self) -> SparseSide:
        """The BM25 side of the KB: term counts, postings and vocabulary (:mod:`foresci.kb.sparse_side`)."""
        from foresci.kb.sparse_side import SparseSide

        return SparseSide(self.generation, self._segment_names, self._segment_starts, self.size,
                          self.manifest.hashes, self._derived_folder)

    @property
    def bm25(self) -> BM25Index:
        """The BM25 term-count index (loaded on first use)."""
        return self.sparse.index

    @property
    def bm25_postings(self) -> BM25Postings:
        """The query side of BM25 (numpy only), memory-mapped from the cache folder once derived there."""
        return self.sparse.postings

    def _json_vocabulary(self) -> dict[str, int]:
        """The vocabulary parsed from ``bm25_vocabulary.json`` (the terms by column)."""
        return self.sparse.json_vocabulary()

    def search_files(self, prefix: int | None = None) -> list[Path]:
        """The files searches over the first ``prefix`` rows read, largest use first: the vectors, the
        cached 8-bit screen, the BM25 postings (cached, else the term counts) and vocabulary, and the HNSW
        graph when the dense path at ``prefix`` takes it."""
        files = [*self.dense.search_files(), *self.sparse.search_files()]
        graph = self.dense.graph_file(self.size if prefix is None else prefix)
        files += [graph] if graph is not None else []
        return [path for path in files if path.is_file()]

    def prefetch_for_search(self, prefix: int | None = None, how: str | None = None) -> None:
        """Start reading :meth:`search_files` into the page cache in the background, once per KB
        (:mod:`foresci.kb.prefetch`; ``how`` defaults to ``FORESCI_KB_PREFETCH`` or 'fadvise')."""
        import os

        from foresci.kb.prefetch import prefetch

        if self._prefetched:
            return
        self._prefetched = True
        try:
            files = self.search_files(prefix)
        except OSError:  # an unreadable file: the search that needs it says so, not the prefetch
            return
        self._prefetch_thread = prefetch(files, how or os.environ.get("FORESCI_KB_PREFETCH", "fadvise"))

    def _row_dates(self) -> tuple[list[str], np.ndarray, np.ndarray, list[int]]:
        """Paper ids, announcement ordinals and month indices by row, and each segment's first row
        (cached beside the BM25 postings, per segment: reading them from papers.sqlite scans every paper)."""
        ids: list[str] = []
        ordinal_parts = []
        starts = []
        for name, connection in zip(self._segment_names, self._connections, strict=True):
            starts.append(len(ids))
            part_ids, part_ordinals = self._segment_row_dates(name, connection)
            ids.extend(part_ids)
            ordinal_parts.append(part_ordinals)
        ordinals = np.concatenate(ordinal_parts) if len(ordinal_parts) > 1 else ordinal_parts[0]
        return ids, ordinals, _month_indices(ordinals), starts

    def _segment_row_dates(self, name: str, connection: sqlite3.Connection) -> tuple[list[str], np.ndarray]:
        folder = self._derived_folder(segment_file_name(name, "papers.sqlite"))
        if folder is not None and (folder / "ids.json").is_file():
            ids = json.loads((folder / "ids.json").read_text(encoding="utf-8"))
            ordinals = np.load(folder / "ordinals.npy", allow_pickle=False)
            if len(ids) == len(ordinals):
                return ids, ordinals
        rows = connection.execute("SELECT paper_id, announced FROM papers ORDER BY row").fetchall()
        ids = [paper_id for paper_id, _ in rows]
        ordinals = np.asarray([date.fromisoformat(day).toordinal() for _, day in rows], dtype=np.int64)
        if folder is not None:
            with contextlib.suppress(OSError):  # a read-only cache folder: read again next time
                _save_row_dates(folder, ids, ordinals)
        return ids, ordinals

    def _segment_of(self, row: int) -> int:
        """Index of the segment holding ``row``."""
        return bisect.bisect_right(self._segment_starts, row) - 1

    def _derived_folder_of(self, files: Sequence[Path], stem: str) -> Path | None:
        """Where data derived from several generation files is cached (by their manifest hashes)."""
        import hashlib

        digests = [self.manifest.hashes.get(path.relative_to(self.generation).as_posix()) for path in files]
        if self.settings is None or not all(digests):
            return None
        if len(digests) == 1:
            digest = str(digests[0])
        else:
            digest = hashlib.sha256(" ".join(str(item) for item in digests).encode()).hexdigest()
        return Path(self.settings.cache_dir) / "kb-derived" / f"{stem}-{digest[:24]}"

    def _derived_folder(self, name: str) -> Path | None:
        """Where data derived from the generation file ``name`` is cached (by its manifest hash)."""
        digest = self.manifest.hashes.get(name)
        if self.settings is None or not digest:
            return None
        stem = Path(name).name.split(".")[0]
        return Path(self.settings.cache_dir) / "kb-derived" / f"{stem}-{digest[:24]}"

    @property
    def dense_index(self) -> DenseIndex:
        """Cutoff-bounded dense search (exact, HNSW graph or IVF by the runtime settings)."""
        return self.dense.index

    def summary(self) -> dict[str, Any]:
        """The build summary stored with the live generation."""
        path = self.generation / "summary.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}

    def quarantine_path(self) -> Path:
        """Path of the quarantine JSONL of the live generation."""
        return self.generation / "quarantine.jsonl"

    def _query(self, sql: str, parameters: tuple[Any, ...] = (), segment: int = -1) -> list[Any]:
        """Rows of ``sql`` in one segment (by default the newest, which holds the domains and build facts)."""
        with self._lock:
            try:
                return self._connections[segment].execute(sql, parameters).fetchall()
            except sqlite3.DatabaseError as error:
                raise self._database_error(error) from error

    def _query_segments(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[Any]:
        """Rows of ``sql`` in every segment, one after the other (row order for a row-ordered query)."""
        with self._lock:
            try:
                return [row for link in self._connections for row in link.execute(sql, parameters)]
            except sqlite3.DatabaseError as error:
                raise self._database_error(error) from error

    def _database_error(self, error: sqlite3.DatabaseError) -> Exception:
        """A corrupt or unreadable papers.sqlite as a user error naming the file (a bad query stays a bug)."""
        from foresci.core.errors import DatabaseFileError, as_user_error

        if isinstance(error, sqlite3.OperationalError) and as_user_error(error) is None:
            return error  # e.g. a bad query: a bug, keep its traceback
        return DatabaseFileError(f"SQLite: {' '.join(str(error).split())} (rebuild the KB, or check it with "
                                 "`foresci kb verify`)", path=self.generation / "papers.sqlite")

    def _require_papers(self) -> None:
        if not self._paper_ids:
            raise ValueError(f"{self.path}: the KB has no papers")


def _month_indices(ordinals: np.ndarray) -> np.ndarray:
    """``year * 12 + month - 1`` of each date ordinal (computed once per distinct day)."""
    days, positions = np.unique(np.asarray(ordinals, dtype=np.int64), return_inverse=True)
    months = [(day.year * 12 + day.month - 1) for day in map(date.fromordinal, days.tolist())]
    return np.asarray(months, dtype=np.int64)[positions.reshape(-1)]


def _save_row_dates(folder: Path, ids: list[str], ordinals: np.ndarray) -> None:
    """Write ``ids.json`` and ``ordinals.npy`` into ``folder`` atomically."""
    from foresci.core.io import atomic_folder

    with atomic_folder(folder) as staging:
        np.save(staging / "ordinals.npy", ordinals, allow_pickle=False)
        (staging / "ids.json").write_text(json.dumps(ids), encoding="utf-8")
