"""Dense search over the id prefix ``[0, prefix)``: exact (FAISS flat), an HNSW graph for mid-sized KBs,
IVF for large ones.

Rows are in announcement order, so a cutoff is an id prefix. The exact path scans the prefix of
the vector matrix in place. Every approximate path searches through an ``IDSelectorRange``/
``IDSelectorBitmap`` of the visible rows, so a row after the cutoff can never come back, and widens its
search as the visible share shrinks, so recall stays steady across cutoffs:

* above ``runtime.graph_above`` visible papers (KBs up to ``runtime.approximate_above``), a stored HNSW
  graph (``IndexHNSWFlat``, 32 links a node) with ``runtime.hnsw_ef_search`` candidates (384) when the whole
  KB is visible, where it is cheaper than the exact 8-bit screen by the measured cost model
  (:func:`graph_is_cheaper`: on the real KB, from about 49k of its 74.7k papers visible). On the real KB
  (74.7k MiniLM title vectors, 100 never-seen queries, 1 thread, best of 3, load 13-16 on 2 cores) a
  top-100 took 0.59 ms on the graph at width 384 instead of 1.60 ms on the exact screen at 74.4k visible,
  but 1.36 instead of 1.17 ms at 47k and 2.36 instead of 0.79 ms at 30k, finding 0.96-0.98 of the exact
  top-10 (width 256: 0.94 at 74.4k); building it took 25 s. The graph (and the float32 copy of the vectors
  it searches) is read on its first use. A KB opened ``one_shot`` (one search a process: the CLI) never
  takes the graph: reading it costs more than it saves, so its dense side is an exact numpy scan;
* above ``runtime.approximate_above``, a stored IVF index (8-bit scalar-quantised lists) whose candidates
  are re-scored exactly against the float32 vectors, probing more lists as the visible share shrinks.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

IVF_FILE = "dense_ivf.faiss"
HNSW_FILE = "dense_hnsw.faiss"
HNSW_LINKS = 32
HNSW_EF_CONSTRUCTION = 80
HNSW_MAX_EF = 4096
RERANK_FACTOR = 4
SCREEN_MIN_ROWS = 20_000  # below this an exact scan is already fast
SCREEN_MAX_ROWS = 800_000  # the 8-bit copy costs 1 byte a dimension a row
SCREEN_EXTRA = 1.0  # candidates screened beyond the wanted depth (a share of it)
SCREEN_FILE = "screen.faiss"  # a cached 8-bit screen (codes memory-mapped) in a derived folder
SCREEN_FACTS = "screen.json"  # its error bound and float slack
# The cost model choosing between the exact 8-bit screen and the HNSW graph (milliseconds, one thread, a
# top-100). The screen reads one byte a dimension of every row it scans, fitted on the real KB (74,728 MiniLM
# title vectors, 384 dimensions, 120 real titles, best of 3, load 5 on 2 cores; 0.86 ms at 25k, 1.15 at
# 45k, 1.61 at 74.7k; again 0.79 at 30k, 1.17 at 47k, 1.60 at 74.4k at load 13-16). The graph at width 384
# (runtime.hnsw_ef_search, scaled up by size / visible) costs 0.57-0.59 ms with (nearly) the whole KB visible
# and more the smaller the visible share: 0.71 at 62k, 1.05 at 55k, 1.36 at 47k, 1.68 at 40k, 2.36 at 30k
# (100 never-seen queries, best of 3, load 13-16). The fit errs on the graph's side being dearer (the exact
# screen is exact and has a short tail): crossover at about 49k visible of 74.7k.
EXACT_FIXED_MS = 0.49
EXACT_MS_PER_ROW = 0.015e-3  # per row scanned at 384 dimensions (scaled by the dimension)
GRAPH_FULL_MS = 0.60
GRAPH_SHARE_EXPONENT = 1.7


def exact_cost_ms(scanned: int, dimension: int) -> float:
    """Modelled time of an exact (8-bit screened) top-100 that scans ``scanned`` rows."""
    return EXACT_FIXED_MS + EXACT_MS_PER_ROW / 384 * dimension * scanned


def graph_cost_ms(visible: int, size: int) -> float:
    """Modelled time of an HNSW top-100 over a graph of ``size`` rows of which ``visible`` are allowed."""
    return GRAPH_FULL_MS * (size / max(visible, 1)) ** GRAPH_SHARE_EXPONENT


def graph_is_cheaper(visible: int, scanned: int, size: int, dimension: int) -> bool:
    """True when the cost model expects the graph to beat the exact screen (KBs the screen serves).

    Below :data:`SCREEN_MIN_ROWS` rows the model was not measured (and the screen is not used): the graph
    is then chosen by ``graph_above`` alone, as before.
    """
    if size < SCREEN_MIN_ROWS:
        return True
    return graph_cost_ms(visible, size) < exact_cost_ms(scanned, dimension)


def exact_search(
    vectors: np.ndarray, query: np.ndarray, depth: int, rows: np.ndarray | None = None
) -> list[int]:
    """Rows of ``vectors`` (or of its subset ``rows``) with the largest inner product, best first."""
    return [row for row, _ in exact_scores(vectors, query, depth, rows)]


def exact_scores(
    vectors: np.ndarray, query: np.ndarray, depth: int, rows: np.ndarray | None = None
) -> list[tuple[int, float]]:
    """:func:`exact_search` with each row's inner product."""
    import faiss

    candidates = vectors if rows is None else vectors[rows]
    if len(candidates) == 0 or depth <= 0:
        return []
    scores, found = faiss.knn(
        np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32),
        np.ascontiguousarray(candidates, dtype=np.float32),
        min(depth, len(candidates)),
        metric=faiss.METRIC_INNER_PRODUCT,
    )
    hits = [
        (int(index), float(score)) for index, score in zip(found[0], scores[0], strict=True) if index >= 0
    ]
    return hits if rows is None else [(int(rows[index]), score) for index, score in hits]


def numpy_exact_search(
    vectors: np.ndarray, query: np.ndarray, depth: int, prefix: int, rows: np.ndarray | None = None
) -> list[int]:
    """Exact best ``depth`` rows of ``vectors[:prefix]`` (or of ``rows``, all below ``prefix``) by inner
    product, with numpy alone (ties: the lower row first).

    For a process that searches once (``foresci kb search``): one matrix-vector product over the
    memory-mapped vectors costs less than importing FAISS (about 70 ms of CPU) and, above the cost model's
    crossover, reading the HNSW graph and copying the vectors into it (about 100 ms). Exact, so its hits
    are the exact path's (scores may differ from FAISS's in the last float bits, so two rows whose scores
    tie within that may swap); above the crossover they are the exact hits the graph approximates.
    """
    candidates = vectors[:prefix] if rows is None else vectors[rows]
    count = min(depth, len(candidates))
    if count <= 0:
        return []
    scores = candidates @ np.asarray(query, dtype=np.float32).reshape(-1)
    best = np.argpartition(-scores, count - 1)[:count] if count < len(scores) else np.arange(len(scores))
    best = best[np.lexsort((best, -scores[best]))]
    return [int(row) for row in (best if rows is None else rows[best])]


def ivf_lists(size: int) -> int:
    """Number of IVF lists for ``size`` vectors (about 1,000 vectors a list, 64 .. 4096)."""
    return int(min(4096, max(64, size // 1000)))


def build_ivf(vectors: np.ndarray, seed: int = 0) -> Any:
    """A trained IVF index with 8-bit scalar-quantised lists over ``vectors`` (ids = rows)."""
    import faiss

    size, dimension = vectors.shape
    lists = ivf_lists(size)
    quantizer = faiss.IndexFlatIP(dimension)
    index = faiss.IndexIVFScalarQuantizer(
        quantizer, dimension, lists, faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT
    )
    index.cp.niter = 10
    index.cp.seed = seed
    sample_size = min(size, lists * 48)
    sample = np.random.default_rng(seed).choice(size, size=sample_size, replace=False)
    index.train(np.ascontiguousarray(vectors[np.sort(sample)], dtype=np.float32))
    for start in range(0, size, 100_000):
        chunk = np.ascontiguousarray(vectors[start : start + 100_000], dtype=np.float32)
        index.add_with_ids(chunk, np.arange(start, start + len(chunk), dtype=np.int64))
    return index


def build_hnsw(vectors: np.ndarray, day_starts: Sequence[int] = ()) -> Any:
    """An HNSW graph over ``vectors`` by inner product (ids = rows; FAISS keeps its own float32 copy).

    Rows are inserted one announcement day at a time (``day_starts``: the first row of each day after
    the first), as :func:`grow_hnsw` adds the days of an update, so a graph grown day by day is the very
    graph built from scratch over the same days (same bytes, so the same search results).
    """
    import faiss

    index = faiss.IndexHNSWFlat(vectors.shape[1], HNSW_LINKS, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
    grow_hnsw(index, vectors, day_starts)
    return index


def grow_hnsw(index: Any, vectors: np.ndarray, day_starts: Sequence[int] = ()) -> None:
    """Add ``vectors`` (the next rows of ``index``) to an HNSW graph, one announcement day per batch.

    ``day_starts`` are offsets into ``vectors`` where a new day begins. Each row's level in the graph is
    drawn from its row number (not from FAISS's generator, whose state a stored graph loses), and FAISS
    inserts on one thread: the graph depends only on the rows and their days, never on how many updates
    brought them.
    """
    import faiss

    bounds = [0, *sorted(int(start) for start in day_starts if 0 < start < len(vectors)), len(vectors)]
    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        for begin, end in zip(bounds[:-1], bounds[1:], strict=True):
            if end <= begin:
                continue
            first = int(index.ntotal)
            for level in _row_levels(index, first, first + end - begin).tolist():
                index.hnsw.levels.push_back(level)
            index.add(np.ascontiguousarray(vectors[begin:end], dtype=np.float32))
    finally:
        faiss.omp_set_num_threads(threads)


def _row_levels(index: Any, start: int, stop: int) -> np.ndarray:
    """FAISS's stored level (top layer + 1) of rows ``[start, stop)``: a fixed hash of each row number
    mapped through the graph's layer probabilities."""
    import faiss

    probabilities = faiss.vector_to_array(index.hnsw.assign_probas)
    state = np.arange(start, stop, dtype=np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):  # splitmix64: wrap-around is the point
        state = (state ^ (state >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        state = (state ^ (state >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        state = state ^ (state >> np.uint64(31))
    uniform = (state >> np.uint64(11)).astype(np.float64) / float(1 << 53)
    layers = np.searchsorted(np.cumsum(probabilities), uniform, side="right")
    return np.minimum(layers, len(probabilities) - 1).astype(np.int64) + 1


def day_starts(ordinals: np.ndarray) -> list[int]:
    """Rows where a new announcement day begins (after the first row), from the rows' date ordinals."""
    return (np.flatnonzero(np.diff(np.asarray(ordinals, dtype=np.int64))) + 1).tolist()


def write_index(folder: Path, index: Any, name: str = IVF_FILE) -> Path:
    """Store a FAISS index in ``folder`` as ``name``: the IVF index, or (``HNSW_FILE``) the HNSW graph.

    The graph is stored without its vectors (``IO_FLAG_SKIP_STORAGE``; they are the KB's ``vectors.npy``):
    on the real KB's 75k titles that is 20 MB instead of 130 MB, which an update rewrites whole.
    """
    import faiss

    path = folder / name
    if name == HNSW_FILE:
        faiss.write_index(index, str(path), faiss.IO_FLAG_SKIP_STORAGE)  # type: ignore[call-overload]
    else:
        faiss.write_index(index, str(path))
    return path


def read_index(
    folder: Path,
    name: str = IVF_FILE,
    mapped: bool = True,
    vectors: np.ndarray | Sequence[np.ndarray] | None = None,
) -> Any | None:
    """The IVF index (or, with ``name=HNSW_FILE``, the HNSW graph) stored in ``folder``, or None.

    A graph stored without its vectors (:func:`write_index`) gets ``vectors`` (the KB's, row order; or its
    segments' parts, in row order, never joined) as its storage. A graph stored whole (KBs built before)
    has its vectors memory-mapped (``IO_FLAG_MMAP_IFC``), not read (opening the real KB's 135 MB graph
    took 21 ms instead of 140-180 ms); ``mapped=False`` reads it whole (a graph that will grow).
    """
    path = folder / name
    if not path.is_file():  # before importing FAISS: a KB without this index never loads it
        return None
    import faiss

    if mapped and name == HNSW_FILE and hasattr(faiss, "IO_FLAG_MMAP_IFC"):
        index = faiss.read_index(str(path), faiss.IO_FLAG_MMAP_IFC)
    else:
        index = faiss.read_index(str(path))
    if name == HNSW_FILE and getattr(index, "storage", None) is None:
        parts = [] if vectors is None else [vectors] if isinstance(vectors, np.ndarray) else list(vectors)
        if vectors is None or sum(len(part) for part in parts) != index.ntotal:
            rows = "no" if vectors is None else sum(len(part) for part in parts)
            raise ValueError(f"{path}: a graph of {index.ntotal} rows needs its vectors ({rows} given)")
        attach_storage(index, parts)
    return index


def attach_storage(graph: Any, vectors: np.ndarray | Sequence[np.ndarray]) -> None:
    """Give an HNSW graph read without vectors a flat inner-product storage holding ``vectors`` (one
    array, or parts in row order: copied into the storage part by part, never joined first): the same
    storage as ``IndexFlatIP.add`` of every row, in one copy."""
    import faiss

    parts = [vectors] if isinstance(vectors, np.ndarray) else list(vectors)
    storage = faiss.IndexFlatIP(graph.d)
    rows = sum(len(part) for part in parts)
    # sized once and filled in place (adding part by part would grow, and so copy, the codes again)
    storage.codes.resize(rows * graph.d * 4)
    if rows == 0:
        _give_storage(graph, storage)
        return
    codes = faiss.rev_swig_ptr(storage.codes.data(), rows * graph.d * 4).view(np.float32)
    codes = codes.reshape(rows, graph.d)
    start = 0
    for part in parts:
        codes[start : start + len(part)] = part
        start += len(part)
    storage.ntotal = rows
    _give_storage(graph, storage)


def _give_storage(graph: Any, storage: Any) -> None:
    """Make ``storage`` the graph's, freed with it. SWIG's setter disowns the Python wrapper
    (``storage.thisown`` turns False), so with ``own_fields`` False nobody freed it: every graph read for
    an update or a search leaked its whole storage (48 MB a day on a 32k-paper KB; 15 GB over the real
    rounds replay)."""
    graph.storage = storage
    graph.own_fields = True
    graph.referenced_objects = [storage]  # the wrapper lives as long as the graph (no dangling use)


class QuantizedScreen:
    """Exact top-k by inner product at a quarter of the memory traffic: screen on 8-bit codes, confirm
    on float32.

    A FAISS 8-bit scalar-quantiser copy of the vectors (one range for all dimensions: the fastest
    decoder) gives approximate scores ``a_i = q . r_i`` of the decoded rows ``r_i``. With ``E`` the
    largest reconstruction error ``max_i ||x_i - r_i||`` (measured over every row at construction),
    ``|a_i - s_i| <= ||q|| E`` plus float32 summation slack: ``bound``. The best ``m > depth``
    approximate candidates are re-scored exactly; with ``t`` the depth-th exact score among them, any
    other row scores at most ``a_m + bound``. When that is below ``t`` the candidates' exact
    top-``depth`` is the true one; otherwise (many near-ties) the caller falls back to the full exact
    scan. So results never differ from exact search. On the real KB (74k MiniLM title vectors, 200
    fresh queries) the screen proves every top-100 with ``m = 200`` and takes about half the time of
    the float32 scan (a float16 screen took two thirds).
    """

    def __init__(
        self, vectors: np.ndarray | None = None, stored: tuple[Any, float, float] | None = None
    ) -> None:
        if stored is not None:  # (index, error, slack) read back by :meth:`load`
            self.index, self.error, self.slack = stored
            return
        if vectors is None:
            raise ValueError("a screen needs vectors or a stored screen")
        import faiss

        size, dimension = vectors.shape
        self.index = faiss.IndexScalarQuantizer(
            dimension, faiss.ScalarQuantizer.QT_8bit_uniform, faiss.METRIC_INNER_PRODUCT
        )
        self.index.train(np.ascontiguousarray(vectors, dtype=np.float32))  # the range of all values
        error = largest = 0.0
        for start in range(0, size, 50_000):
            chunk = np.ascontiguousarray(vectors[start : start + 50_000], dtype=np.float32)
            self.index.add(chunk)
            decoded = self.index.sa_decode(self.index.sa_encode(chunk))
            error = max(error, float(np.linalg.norm(chunk - decoded, axis=1).max(initial=0.0)))
            largest = max(largest, float(np.linalg.norm(chunk, axis=1).max(initial=0.0)))
        self.error = error
        self.slack = 4 * dimension * 2.0**-24 * (largest + error) + 1e-6

    def save(self, folder: Path) -> None:
        """Write the screen (its codes and bounds) into ``folder`` atomically."""
        import faiss

        from foresci.core.io import atomic_folder

        with atomic_folder(folder) as staging:
            faiss.write_index(self.index, str(staging / SCREEN_FILE))
            facts = {"rows": int(self.index.ntotal), "error": self.error, "slack": self.slack}
            (staging / SCREEN_FACTS).write_text(json.dumps(facts), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path, rows: int) -> QuantizedScreen | None:
        """A screen saved by :meth:`save` for ``rows`` vectors (codes memory-mapped), or None."""
        import faiss

        facts_path, index_path = folder / SCREEN_FACTS, folder / SCREEN_FILE
        if not (facts_path.is_file() and index_path.is_file()):
            return None
        facts = json.loads(facts_path.read_text(encoding="utf-8"))
        if facts.get("rows") != rows:
            return None
        flags = faiss.IO_FLAG_MMAP_IFC if hasattr(faiss, "IO_FLAG_MMAP_IFC") else 0
        index = faiss.read_index(str(index_path), flags)
        if index.ntotal != rows:
            return None
        return cls(stored=(index, float(facts["error"]), float(facts["slack"])))

    def search(
        self, vectors: np.ndarray, query: np.ndarray, depth: int, selector: Any, visible: int
    ) -> list[int] | None:
        """The exact best ``depth`` rows among those ``selector`` allows, or None when unproven."""
        import faiss

        wanted = min(visible, depth + max(16, int(depth * SCREEN_EXTRA)))
        if wanted <= depth:
            return None
        parameters = faiss.SearchParameters()
        parameters.sel = selector
        approximate, found = self.index.search(
            np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32), wanted, params=parameters
        )
        candidates = found[0][found[0] >= 0]
        if len(candidates) < wanted:
            return None
        ranked = exact_scores(vectors, query, depth, np.sort(candidates))
        norm = float(np.linalg.norm(query))
        bound = norm * (self.error + self.slack)
        if len(ranked) < depth or float(approximate[0][wanted - 1]) + bound >= ranked[-1][1]:
            return None
        return [row for row, _ in ranked]


class DenseIndex:
    """Cutoff-bounded inner-product search over row-ordered, normalised vectors."""

    def __init__(
        self,
        vectors: np.ndarray,
        ivf: Any | None = None,
        mode: str = "auto",
        approximate_above: int = 100_000,
        nprobe: int = 16,
        hnsw: Any | None = None,
        graph_above: int = 30_000,
        ef_search: int = 384,
        screen_folder: Path | None = None,
        one_shot: bool = False,
    ) -> None:
        """``hnsw``: the graph, or a function reading it (called on the graph's first use, so a process
        whose searches stay exact never reads it nor copies the vectors into it). ``screen_folder``: where
        the 8-bit screen is cached (read from the first exact search on; written when built).
        ``one_shot``: a process that searches once (``foresci kb search``): see :func:`numpy_exact_search`."""
        self.vectors = vectors
        self.ivf = ivf
        self._graph_loader: Callable[[], Any] | None = hnsw if callable(hnsw) else None
        self._graph: Any | None = None if callable(hnsw) else hnsw
        self.screen_folder = screen_folder
        self.mode = mode
        self.approximate_above = approximate_above
        self.graph_above = graph_above
        self.nprobe = nprobe
        self.ef_search = ef_search
        self.exact_searches = 0
        self.screened = 0
        self._screen: QuantizedScreen | None = None
        self._screen_missing = False
        self.one_shot = one_shot

    @property
    def size(self) -> int:
        """Number of vectors."""
        return int(self.vectors.shape[0])

    @property
    def has_graph(self) -> bool:
        """True when an HNSW graph is stored (read or not yet)."""
        return self._graph is not None or self._graph_loader is not None

    @property
    def hnsw(self) -> Any | None:
        """The HNSW graph (read on first use), or None when none is stored."""
        if self._graph is None and self._graph_loader is not None:
            self._graph, self._graph_loader = self._graph_loader(), None
        return self._graph

    def approximate(self, visible: int) -> bool:
        """True when a search over ``visible`` rows uses an approximate index (:meth:`path`)."""
        return self.path(visible) != "exact"

    def path(self, visible: int, scanned: int | None = None) -> str:
        """How a search over ``visible`` rows runs: 'ivf', 'hnsw' or 'exact' (mode, stored indexes, size).

        The graph is searched only while the candidates it keeps, scaled up by size / visible, stay within
        ``HNSW_MAX_EF``: with fewer rows visible (an early cutoff, a domain's mask) a filtered graph walk
        would miss them, and an exact scan of so few rows is fast anyway. In 'auto' mode it is searched
        above ``graph_above`` visible rows only where the cost model (:func:`graph_is_cheaper`) expects it
        to beat the exact screen over the ``scanned`` rows (the cutoff's prefix; ``visible`` by default).
        """
        graph = self.has_graph and self.ef_search * self.size <= HNSW_MAX_EF * visible
        if self.mode == "ivf" and self.ivf is not None:
            return "ivf"
        if self.mode == "hnsw" and graph:
            return "hnsw"
        if self.mode != "auto":
            return "exact"
        if self.ivf is not None and visible > self.approximate_above:
            return "ivf"
        dimension = int(self.vectors.shape[1])
        scanned = visible if scanned is None else scanned
        if self.one_shot:  # reading the graph costs a one-search process more than it ever saves
            return "exact"
        if graph and visible > self.graph_above and graph_is_cheaper(visible, scanned, self.size, dimension):
            return "hnsw"
        return "exact"

    def search(self, query: np.ndarray, prefix: int, depth: int, mask: np.ndarray | None = None) -> list[int]:
        """Best ``depth`` rows among ``[0, prefix)`` (and ``mask``), by inner product with ``query``."""
        prefix = min(prefix, self.size)
        if prefix <= 0 or depth <= 0:
            return []
        rows = None if mask is None else np.flatnonzero(mask[:prefix])
        visible = prefix if rows is None else len(rows)
        if visible == 0:
            return []
        path = self.path(visible, prefix)
        if path == "ivf":
            found = self._ivf_search(query, prefix, rows, depth)
        elif path == "hnsw":
            found = self._hnsw_search(query, prefix, rows, depth)
        else:
            found = self._exact(query, prefix, rows, visible, depth)
        return [row for row in found if 0 <= row < prefix]

    def _hnsw_search(self, query: np.ndarray, prefix: int, rows: np.ndarray | None, depth: int) -> list[int]:
        """The HNSW graph through a selector of the visible rows; more candidates the fewer are visible."""
        import faiss

        graph: Any = self.hnsw
        visible = prefix if rows is None else len(rows)
        parameters = faiss.SearchParametersHNSW()  # type: ignore[attr-defined]  # missing from the stubs
        selector = _selector(self.size, prefix, rows)  # held here: FAISS keeps only a pointer to it
        parameters.sel = selector
        wanted = math.ceil(self.ef_search * self.size / visible)
        parameters.efSearch = int(min(HNSW_MAX_EF, max(depth, wanted)))
        _, found = graph.search(
            np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32), min(depth, visible),
            params=parameters,
        )
        return [int(row) for row in found[0] if 0 <= row < prefix]

    def _exact(
        self, query: np.ndarray, prefix: int, rows: np.ndarray | None, visible: int, depth: int
    ) -> list[int]:
        """Exact search; in a mid-sized KB screened on 8-bit codes (from the first search when the screen is
        cached, else from the second, which builds and caches it)."""
        self.exact_searches += 1
        if self.one_shot:
            return numpy_exact_search(self.vectors, query, depth, prefix, rows)
        screen = self._quantized(build=self.exact_searches > 1) if visible >= SCREEN_MIN_ROWS else None
        if screen is not None:
            found = screen.search(self.vectors, query, depth, _selector(self.size, prefix, rows), visible)
            if found is not None:
                self.screened += 1
                return found
        if rows is None:
            return exact_search(self.vectors[:prefix], query, depth)
        return exact_search(self.vectors, query, depth, rows)

    def _quantized(self, build: bool = True) -> QuantizedScreen | None:
        """The 8-bit screen: cached (read from ``screen_folder``), else built when ``build`` (and cached).

        A process's first exact search reads a cached screen but does not build one (building scans and
        re-encodes every vector: 0.3-1.4 s on the real KB), so a one-search process never pays for it.
        """
        if self._screen is not None or not SCREEN_MIN_ROWS <= self.size <= SCREEN_MAX_ROWS:
            return self._screen
        if self.screen_folder is not None and not self._screen_missing:
            self._screen = QuantizedScreen.load(self.screen_folder, self.size)
            self._screen_missing = self._screen is None
        if self._screen is None and build:
            self._screen = QuantizedScreen(self.vectors)
            if self.screen_folder is not None:
                with contextlib.suppress(OSError):  # a read-only cache folder: built again next time
                    self._screen.save(self.screen_folder)
        return self._screen

    def _ivf_search(self, query: np.ndarray, prefix: int, rows: np.ndarray | None, depth: int) -> list[int]:
        import faiss

        ivf: Any = self.ivf
        parameters = faiss.SearchParametersIVF()
        visible = prefix if rows is None else len(rows)
        selector = _selector(self.size, prefix, rows)  # held here: FAISS keeps only a pointer to it
        parameters.sel = selector
        parameters.nprobe = int(min(ivf.nlist, math.ceil(self.nprobe * self.size / visible)))
        wanted = min(visible, depth * RERANK_FACTOR)
        _, found = ivf.search(
            np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32), wanted, params=parameters
        )
        candidates = np.asarray([row for row in found[0] if 0 <= row < prefix], dtype=np.int64)
        if len(candidates) == 0:
            return []
        scores = self.vectors[np.sort(candidates)] @ query.astype(np.float32)
        ordered = np.sort(candidates)[np.argsort(-scores, kind="stable")]
        return [int(row) for row in ordered[:depth]]


def _selector(size: int, prefix: int, rows: np.ndarray | None) -> Any:
    """A FAISS id selector of the rows ``[0, prefix)`` (or of ``rows``, all below ``prefix``)."""
    import faiss

    if rows is None:
        return faiss.IDSelectorRange(0, prefix)
    allowed = np.zeros(size, dtype=bool)
    allowed[rows] = True
    bitmap = np.packbits(allowed, bitorder="little")
    selector: Any = faiss.IDSelectorBitmap(size, faiss.swig_ptr(bitmap))
    selector.referenced_bitmap = bitmap  # the selector reads this buffer: keep it alive with it
    return selector
