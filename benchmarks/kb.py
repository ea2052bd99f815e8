"""Knowledge-base benchmark on the real corpus: build cost, query latency, BM25, memory, update.

Goals (exit status 1 when one is missed):
  * total build time / embedding-only time of the same texts <= 1.3 (the default backend)
  * with fresh (never-seen) queries, encoded by the KB's encoder: hybrid p50 <= 15 ms end to end at
    the cutoffs 2025-06-30, 2025-12-31, 2026-06-30 (needs a KB: --kb, or the full build), and there the
    top-10 of the dense path the KB's size picks (exact, HNSW graph or IVF: foresci.kb.dense) holds
    >= 0.95 of the top-10 that exact dense search gives
  * fast-encoder (ONNX Runtime) recall@10 >= 0.95 against full-precision MiniLM (sentence-transformers)
    on 200 real titles as queries
  * hybrid query p50 <= 3x a bare FAISS flat search of the same vectors (full build only)
  * sparse BM25 returns the same top-10 as rank-bm25 (and is faster)
  * peak RSS <= 2 GiB
  * one-day update <= 10 s plus that day's embedding time
  * `foresci kb search` as a fresh process <= 1 s (the KB's derived postings cached; --kb or full build),
    both for a query whose vector is cached and for a never-seen one (which loads the ONNX encoder)
  * dense path per cutoff: the path 'auto' takes is within 1.25x of the faster of the exact 8-bit screen
    and the HNSW graph (p50, best of 3 a query); an exact choice returns exactly the exact top-100, a graph
    choice finds >= 0.95 of the exact top-10
  * cold process (the KB's files dropped from the page cache with POSIX_FADV_DONTNEED, in a copy of the
    KB): the first search and searches 2..12 take <= 2x those of a fresh process finding the files cached
    (both load the query encoder); peak RSS <= 926 MiB (2x issue 32's 463 MiB)
Also printed: papers/s of document embedding per backend, and query encoding / FAISS latency at 1
and 2 threads (the measured default of runtime.threads). Report `uptime` beside the figures.

Examples:
  python benchmarks/kb.py                                     # defaults below
  python benchmarks/kb.py --kb /work/data/realkb-title --ratio-papers 300    # query figures on a built KB
  FORESCI_CACHE_DIR=/work/cache-real python benchmarks/kb.py --field title
  python benchmarks/kb.py --ratio-days 0     # the ratio on the FULL corpus (slow: embeds twice)
  python benchmarks/kb.py --kb /work/kbs/real --search-only   # search figures only (cold, dense paths)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
CUTOFFS = (date(2025, 6, 30), date(2025, 12, 31), date(2026, 6, 30))
DEFAULT_CORPUS = Path(os.environ.get("FORESCI_SHARED", REPO.parent / "shared")) / "corpora" / "arxiv-daily"


def _settings(cache_dir: Path, field: str):
    from foresci.core.settings import Settings

    return Settings(cache_dir=cache_dir, kb={"embed_field": field})


def _p50_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000.0


def _first_rows(days: list[Path], papers: int, scratch: Path) -> list[Path]:
    """A JSONL file of the first ``papers`` rows of ``days`` (all of them when ``papers`` is 0)."""
    import gzip

    if papers <= 0:
        return days
    scratch.mkdir(parents=True, exist_ok=True)
    subset = scratch / f"{days[0].name.split('.')[0]}.jsonl"
    rows: list[str] = []
    for day in days:
        with gzip.open(day, "rt", encoding="utf-8") if day.suffix == ".gz" else day.open() as handle:
            rows.extend(line for line in handle if line.strip())
        if len(rows) >= papers:
            break
    subset.write_text("".join(rows[:papers]), encoding="utf-8")
    return [subset]


def measure_ratio(days: list[Path], field: str, scratch: Path) -> dict[str, float]:
    """Embedding-only time vs a full build of the same days, both with empty caches."""
    from foresci.embedders.embedder import embedder_from_settings
    from foresci.kb.build import build_kb, embedding_text
    from foresci.kb.ingest import ingest

    settings = _settings(scratch / "cache-build", field)
    embedder_from_settings(settings).encode_uncached(["warm up the model"])  # not part of either timing
    texts = [embedding_text(paper, field) for paper in ingest(days, settings.kb.max_row_bytes).papers]
    embedder = embedder_from_settings(settings.model_copy(update={"cache_dir": scratch / "cache-embed-only"}))
    started = time.perf_counter()
    for start in range(0, len(texts), settings.kb.embed_chunk):
        embedder.encode(texts[start : start + settings.kb.embed_chunk])
    embedding_only = time.perf_counter() - started
    started = time.perf_counter()
    build_kb(days, scratch / "kb-ratio", settings)
    total = time.perf_counter() - started
    return {
        "papers": len(texts),
        "backend": embedder.backend,
        "embedding_papers_per_s": len(texts) / embedding_only,
        "embedding_only_s": embedding_only,
        "build_s": total,
        "ratio": total / embedding_only,
    }


def measure_queries(kb_dir: Path, settings, cutoff: date, count: int) -> dict[str, float]:
    """Hybrid query latency at a cutoff vs a bare FAISS flat search of the same vectors."""
    import faiss

    from foresci.kb.retrieve import KBView
    from foresci.kb.store import KnowledgeBase

    kb = KnowledgeBase.open(kb_dir, settings)
    view = KBView(kb, cutoff)
    rng = random.Random(0)
    visible = kb.papers(until=cutoff)
    queries = [" ".join(paper.title.split()[:8]) for paper in rng.sample(visible, count)]
    started = time.perf_counter()
    for query in queries:
        view.query_vector(query)
    encode_each = (time.perf_counter() - started) / count
    view.search(queries[0])  # load indexes
    flat = faiss.IndexFlatIP(kb.vectors.shape[1])
    flat.add(kb.vectors[: view.size])  # the same vectors the view searches: those visible at the cutoff
    hybrid, bare = [], []
    for query in queries:  # interleaved, so both see the same machine load
        started = time.perf_counter()
        view.search(query, k=10)
        hybrid.append(time.perf_counter() - started)
        vector = view.query_vector(query).reshape(1, -1)
        started = time.perf_counter()
        flat.search(vector, 100)
        bare.append(time.perf_counter() - started)
    fresh = []
    for paper in random.Random().sample(visible, min(50, count)):  # unseeded: new texts each run
        query = " ".join(paper.abstract.split()[:10])  # not embedded before: includes query encoding
        started = time.perf_counter()
        view.search(query, k=10)
        fresh.append(time.perf_counter() - started)
    return {
        "papers": kb.size,
        "visible": view.size,
        "hybrid_p50_ms": _p50_ms(hybrid),
        "faiss_flat_p50_ms": _p50_ms(bare),
        "hybrid_over_faiss": _p50_ms(hybrid) / _p50_ms(bare),
        "query_encoding_ms": encode_each * 1000.0,
        "fresh_query_end_to_end_p50_ms": _p50_ms(fresh),
    }


def _fresh_queries(papers: list, count: int) -> list[str]:
    """Never-seen query texts: unseeded random word windows of abstracts (new on every run)."""
    rng = random.Random()
    queries = []
    for paper in rng.sample(papers, count):
        words = paper.abstract.split() or paper.title.split()
        start = rng.randrange(max(1, len(words) - 8))
        queries.append(" ".join(words[start : start + rng.randint(5, 9)]))
    return queries


def measure_fresh_hybrid(kb_dir: Path, scratch: Path, cutoffs: tuple[date, ...], count: int) -> dict:
    """End-to-end hybrid search p50 with fresh queries (no vector cache: every query is encoded)."""
    from foresci.core.settings import Settings
    from foresci.kb.retrieve import KBView
    from foresci.kb.store import KnowledgeBase

    kb = KnowledgeBase.open(kb_dir, Settings(cache_dir=scratch / "empty-query-cache"))
    exact_kb = KnowledgeBase.open(kb_dir, Settings(cache_dir=scratch / "exact-query-cache",
                                                   runtime={"dense_index": "flat"}))
    figures: dict[str, float] = {"kb_papers": kb.size}
    for cutoff in cutoffs:
        view, exact_view = KBView(kb, cutoff), KBView(exact_kb, cutoff)
        visible = kb.papers(until=cutoff)
        view.search("warm up the encoder and the indexes", k=10)
        times, found = [], {}
        for query in _fresh_queries(visible, count):
            started = time.perf_counter()
            hits = view.search(query, k=10)
            times.append(time.perf_counter() - started)
            found[query] = {hit.paper.paper_id for hit in hits}
        recall = [len(found[query] & {hit.paper.paper_id for hit in exact_view.search(query, k=10)}) / 10
                  for query in found]  # against exact dense search (the same fused BM25 ranking)
        figures[f"p50_ms@{cutoff}"] = _p50_ms(times)
        figures[f"visible@{cutoff}"] = view.size
        figures[f"dense_path@{cutoff}"] = kb.dense_index.path(view.size)
        figures[f"recall_at_10_vs_exact@{cutoff}"] = round(sum(recall) / len(recall), 4)
        figures[f"load@{cutoff}"] = os.getloadavg()[0]
    figures["encoder"] = view._embedder.backend if view._embedder is not None else "none"
    dense = kb.dense_index  # the 8-bit screen proved this many exact top-k (the rest scanned in full)
    figures["dense_screened"] = f"{dense.screened}/{dense.exact_searches}"
    return figures


def measure_cold_search(kb_dir: Path, scratch: Path, runs: int = 5) -> dict[str, float]:
    """Wall time of `foresci kb search` as a fresh process (the CLI a user runs), median of ``runs``.

    A first, untimed run derives the KB's postings into a fresh cache folder and caches the query
    vector (what every later search of a user finds); a never-seen query is timed apart.
    """
    import subprocess

    cache = scratch / "cold-cache"
    env = {**os.environ, "FORESCI_CACHE_DIR": str(cache), "PYTHONPATH": str(REPO)}

    def run(query: str) -> float:
        command = [sys.executable, "-m", "foresci", "kb", "search", str(kb_dir), query]
        command += ["--cutoff", "2025-12-31"]
        started = time.perf_counter()
        subprocess.run(command, env=env, check=True, capture_output=True)
        return time.perf_counter() - started

    run("graph memory for language agents")
    timed = [run("graph memory for language agents") for _ in range(runs)]
    fresh = [run(f"a never seen query number {index} about agents") for index in range(runs)]
    return {
        "cached_query_s": statistics.median(timed),
        "fresh_query_s": statistics.median(fresh),
        "load": os.getloadavg()[0],
    }


def measure_dense_paths(kb_dir: Path, scratch: Path, cutoffs: tuple[date, ...], count: int) -> dict:
    """Per cutoff: the dense path 'auto' takes (foresci.kb.dense.DenseIndex.path), and a top-100 on the
    exact 8-bit screen and on the HNSW graph (when stored) for the same never-seen queries, interleaved,
    best of 3 runs a query; recall@10 of each against exact search; whether the chosen path's results
    equal the exact ones."""
    from foresci.core.settings import Settings
    from foresci.kb.dense import DenseIndex, exact_search
    from foresci.kb.retrieve import KBView
    from foresci.kb.store import KnowledgeBase

    kb = KnowledgeBase.open(kb_dir, Settings(cache_dir=scratch / "dense-path-cache"))
    view = KBView(kb, kb.max_date)
    papers = kb.all_papers()
    vectors = [view.query_vector(query) for query in _fresh_queries(papers, count)]
    auto = kb.dense_index
    exact = DenseIndex(kb.vectors, mode="flat", screen_folder=auto.screen_folder)
    graph = DenseIndex(kb.vectors, mode="hnsw", hnsw=auto.hnsw) if auto.has_graph else None
    figures: dict = {"kb_papers": kb.size}
    for cutoff in cutoffs:
        prefix = kb.prefix(cutoff)
        chosen = auto.path(prefix)
        ways = {"exact": exact, "hnsw": graph} if graph is not None else {"exact": exact}
        times: dict[str, list[float]] = {name: [] for name in ways}
        found: dict[str, list[list[int]]] = {name: [] for name in ways}
        for index in ways.values():
            index.search(vectors[0], prefix, 100)
            index.search(vectors[0], prefix, 100)  # the second exact search builds or reads the screen
        for vector in vectors:
            for name, index in ways.items():
                best = float("inf")
                for _ in range(3):
                    started = time.perf_counter()
                    rows = index.search(vector, prefix, 100)
                    best = min(best, time.perf_counter() - started)
                times[name].append(best * 1000.0)
                found[name].append(rows)
        truth = [exact_search(kb.vectors[:prefix], vector, 100) for vector in vectors]
        chosen_rows = [auto.search(vector, prefix, 100) for vector in vectors]
        figures[f"visible@{cutoff}"] = prefix
        figures[f"chosen@{cutoff}"] = chosen
        for name in ways:
            figures[f"{name}_p50_ms@{cutoff}"] = round(statistics.median(times[name]), 3)
            figures[f"{name}_p95_ms@{cutoff}"] = round(float(np.percentile(times[name], 95)), 3)
            recall = [len(set(rows[:10]) & set(best[:10])) / 10 for rows, best in zip(found[name], truth,
                                                                                     strict=True)]
            figures[f"{name}_recall_at_10@{cutoff}"] = round(float(np.mean(recall)), 4)
        fastest = min(ways, key=lambda name: figures[f"{name}_p50_ms@{cutoff}"])
        figures[f"fastest@{cutoff}"] = fastest
        if chosen in ways:  # (an IVF choice is not timed here)
            figures[f"chosen_over_fastest@{cutoff}"] = round(
                figures[f"{chosen}_p50_ms@{cutoff}"] / figures[f"{fastest}_p50_ms@{cutoff}"], 3)
        figures[f"chosen_identical_to_exact@{cutoff}"] = float(np.mean(
            [rows == best for rows, best in zip(chosen_rows, truth, strict=True)]))
        figures[f"load@{cutoff}"] = os.getloadavg()[0]
    return figures


def _dense_path_checks(figures: dict, cutoffs: tuple[date, ...], checks: list[tuple[str, bool]]) -> None:
    for cutoff in cutoffs:
        chosen = figures[f"chosen@{cutoff}"]
        if f"chosen_over_fastest@{cutoff}" in figures:
            checks.append((f"dense path at {cutoff} ({chosen}) within 1.25x of the fastest path's p50",
                           figures[f"chosen_over_fastest@{cutoff}"] <= 1.25))
        if chosen == "exact":
            checks.append((f"exact dense path at {cutoff} returns exactly the exact top-100",
                           figures[f"chosen_identical_to_exact@{cutoff}"] == 1.0))
        elif f"{chosen}_recall_at_10@{cutoff}" in figures:
            checks.append((f"{chosen} dense path at {cutoff} recall@10 >= 0.95",
                           figures[f"{chosen}_recall_at_10@{cutoff}"] >= 0.95))


def _cold_checks(cold: dict, checks: list[tuple[str, bool]]) -> None:
    checks.append(("cold-process first search <= 2x a warm process's (prefetch on)",
                   cold["fadvise_first_ms"] <= 2 * cold["warm_first_ms"]))
    checks.append(("cold-process searches 2..12 <= 2x a warm process's (prefetch on)",
                   cold["fadvise_next_mean_ms"] <= 2 * cold["warm_next_mean_ms"]))
    checks.append(("KB files dropped from the page cache before each cold run",
                   cold["largest_resident_share_after_drop"] <= 0.05))
    checks.append(("peak RSS of a searching process <= 2 x 463 MiB (issue 32's figure)",
                   max(cold[f"{how}_peak_rss_mib"] for how in ("warm", "none", "fadvise", "read")) <= 926))


def _cli_timings(kb_dir: Path, workdir: Path, figures: dict, checks: list[tuple[str, bool]]) -> None:
    """CLI cold-start timings from ``benchmarks/cli_cold.py`` (its own module) when it is there."""
    try:
        import cli_cold  # type: ignore[import-not-found]  # benchmarks/cli_cold.py, beside this script
    except ImportError:
        return
    measure = getattr(cli_cold, "measure_for_kb_benchmark", None)
    if measure is not None:
        measure(kb_dir, workdir, figures, checks)


COLD_CHILD = "--cold-child"
COLD_SEARCHES = 12


def _cold_child(kb_dir: str, cutoff: str, queries_file: str) -> int:
    """In a fresh process: open the KB, make a view, time the first searches; print the figures as JSON."""
    from foresci.core.settings import load_settings
    from foresci.kb.retrieve import KBView
    from foresci.kb.store import KnowledgeBase

    started = time.perf_counter()
    kb = KnowledgeBase.open(Path(kb_dir), load_settings())
    view = KBView(kb, date.fromisoformat(cutoff))
    opened = time.perf_counter() - started
    times = []
    for query in json.loads(Path(queries_file).read_text(encoding="utf-8")):
        started = time.perf_counter()
        view.search(query, k=10)
        times.append((time.perf_counter() - started) * 1000.0)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"open_s": opened, "search_ms": times, "major_faults": usage.ru_majflt,
                      "peak_rss_mib": _peak_rss_mib(), "path": kb.dense_index.path(view.size)}))
    return 0


def _peak_rss_mib() -> float:
    """This process's peak RSS (VmHWM: ru_maxrss would count the parent's RSS at fork, kept over exec)."""
    for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure_cold_first_search(
    kb_dir: Path, scratch: Path, cutoffs: tuple[date, ...] = CUTOFFS, rounds: int = 2
) -> dict:
    """First searches of a fresh process with the KB's files out of the page cache, per prefetch way,
    against a fresh process that finds them cached (warm); never-seen queries each run.

    The KB is copied into ``scratch`` (its pages there are ours alone, so ``POSIX_FADV_DONTNEED`` drops
    them) with a cache folder of its own, primed once (BM25 postings and the 8-bit screen derived). Before
    each cold run every KB and derived file is dropped (their resident share is printed). Figures: the
    first search (which also loads the query encoder), the mean of searches 2..12, major page faults and
    peak RSS, median over ``rounds`` and ``cutoffs`` runs.
    """
    import subprocess

    from foresci.kb.prefetch import drop_from_cache, resident_share

    copy = scratch / "cold-kb"
    if not copy.exists():
        shutil.copytree(kb_dir, copy, ignore=shutil.ignore_patterns(".foresci.lock*"))
    cache = scratch / "cold-kb-cache"
    env = {**os.environ, "FORESCI_CACHE_DIR": str(cache), "PYTHONPATH": str(REPO)}
    papers = None

    def child(cutoff: date, how: str) -> dict:
        nonlocal papers
        if papers is None:
            from foresci.kb.store import KnowledgeBase

            papers = KnowledgeBase.open(kb_dir).all_papers()[:20_000]
        queries = scratch / "cold-queries.json"
        queries.write_text(json.dumps(_fresh_queries(papers, COLD_SEARCHES)), encoding="utf-8")
        command = [sys.executable, str(Path(__file__).resolve()), COLD_CHILD, str(copy), cutoff.isoformat(),
                   str(queries)]
        done = subprocess.run(command, env={**env, "FORESCI_KB_PREFETCH": how}, check=True,
                              capture_output=True, text=True)
        return json.loads(done.stdout.strip().splitlines()[-1])

    def files() -> list[Path]:
        found = [*copy.rglob("*"), *cache.rglob("*")]
        return [path for path in found if path.is_file() and path.stat().st_size > 0]

    for cutoff in cutoffs:  # prime: derived postings, row dates and the 8-bit screen in the cache folder
        child(cutoff, "none")
    samples: dict[str, list[dict]] = {"warm": [], "none": [], "fadvise": [], "read": []}
    resident = []
    for _ in range(rounds):
        for cutoff in cutoffs:
            for how in samples:  # interleaved: every way sees the same machine load
                if how != "warm":
                    drop_from_cache(files())
                    resident.append(max(resident_share(path) for path in files()))
                samples[how].append(child(cutoff, "fadvise" if how == "warm" else how))
    figures: dict = {"largest_resident_share_after_drop": round(max(resident), 3)}
    for how, runs in samples.items():
        figures[f"{how}_first_ms"] = statistics.median(run["search_ms"][0] for run in runs)
        figures[f"{how}_next_mean_ms"] = statistics.median(
            statistics.mean(run["search_ms"][1:]) for run in runs)
        figures[f"{how}_major_faults"] = statistics.median(run["major_faults"] for run in runs)
        figures[f"{how}_peak_rss_mib"] = max(run["peak_rss_mib"] for run in runs)
    figures["paths"] = ",".join(sorted({run["path"] for runs in samples.values() for run in runs}))
    figures["load"] = os.getloadavg()[0]
    return figures


def measure_encoders(kb_dir: Path, count: int, cutoff: date = date(2025, 12, 31)) -> dict:
    """ONNX Runtime vs sentence-transformers: recall@10 of dense results, query encoding p50.

    Queries are ``count`` real titles of papers announced after ``cutoff``; both encoders' vectors
    search the KB's vectors visible at ``cutoff`` (exact), and the ONNX top-10 is compared with the
    full-precision top-10.
    """
    from foresci.embedders.embedder import Embedder
    from foresci.kb.dense import exact_search
    from foresci.kb.store import KnowledgeBase

    kb = KnowledgeBase.open(kb_dir)
    prefix = kb.prefix(cutoff)
    later = kb.all_papers()[prefix:]
    titles = [paper.title for paper in random.Random(2).sample(later, min(count, len(later)))]
    visible = kb.vectors[:prefix]
    figures: dict[str, float] = {"queries": len(titles), "visible": prefix}
    results = {}
    for backend in ("torch", "onnx"):
        encoder = Embedder(backend=backend)
        encoder.encode_uncached(["warm up"])
        vectors, times = [], []
        for title in titles:
            started = time.perf_counter()
            vectors.append(encoder.encode_uncached([title])[0])
            times.append(time.perf_counter() - started)
        figures[f"{backend}_query_encode_p50_ms"] = _p50_ms(times)
        results[backend] = [exact_search(visible, vector, 10) for vector in vectors]
        figures[f"{backend}_load"] = os.getloadavg()[0]
    recalls = [
        len(set(full) & set(fast)) / 10 for full, fast in zip(results["torch"], results["onnx"], strict=True)
    ]
    figures["onnx_recall_at_10"] = float(np.mean(recalls))
    figures["speedup"] = figures["torch_query_encode_p50_ms"] / figures["onnx_query_encode_p50_ms"]
    return figures


def measure_document_backends(days: list[Path], papers: int) -> dict:
    """Papers/s of document embedding (title + abstract) per backend, same texts, no cache."""
    from foresci.embedders.embedder import Embedder
    from foresci.kb.build import embedding_text
    from foresci.kb.ingest import ingest

    texts = [embedding_text(paper, "text") for paper in ingest(days[:1], 200_000).papers[:papers]]
    figures: dict[str, float] = {"papers": len(texts)}
    for backend, batch in (("torch", 128), ("onnx", 16), ("onnx", 32), ("onnx", 64)):
        encoder = Embedder(backend=backend, batch_size=batch, onnx_batch_size=batch)
        encoder.encode_uncached(texts[:2])
        started = time.perf_counter()
        encoder.encode_uncached(texts)
        figures[f"{backend}_batch{batch}_papers_per_s"] = len(texts) / (time.perf_counter() - started)
        figures[f"{backend}_batch{batch}_load"] = os.getloadavg()[0]
    return figures


def measure_threads(kb_dir: Path, count: int) -> dict:
    """Query encoding (the default backend) and a FAISS top-100 over the KB at 1 and 2 threads."""
    import foresci.embedders.embedder
    from foresci.core.threads import apply_threads
    from foresci.embedders.embedder import Embedder
    from foresci.kb.dense import exact_search
    from foresci.kb.store import KnowledgeBase

    kb = KnowledgeBase.open(kb_dir)
    vectors = kb.vectors
    queries = _fresh_queries(kb.all_papers(), count)
    figures: dict[str, float] = {}
    for threads in (1, 2, 1, 2):  # twice each, interleaved: both see the same machine load
        apply_threads(threads)
        # a session with the new intra-op thread count
        foresci.embedders.embedder._onnx_encoder_for.cache_clear()
        encoder = Embedder()
        encoder.encode_uncached(["warm up"])
        encode, search = [], []
        for query in queries:
            started = time.perf_counter()
            vector = encoder.encode_uncached([query])[0]
            encode.append(time.perf_counter() - started)
            started = time.perf_counter()
            exact_search(vectors, vector, 100)
            search.append(time.perf_counter() - started)
        for name, samples in (("encode", encode), ("faiss_top100", search)):
            key = f"{name}_p50_ms@{threads}t"
            figures[key] = min(figures.get(key, float("inf")), _p50_ms(samples))
        figures[f"load@{threads}t"] = os.getloadavg()[0]
    apply_threads(1)
    return figures


def measure_bm25(kb_dir: Path, settings, cutoff: date, count: int) -> dict[str, float]:
    """Sparse BM25 vs rank-bm25 over the papers visible at the cutoff: same top-10, speed-up."""
    from rank_bm25 import BM25Okapi

    from foresci.kb.bm25 import tokenize
    from foresci.kb.store import KnowledgeBase

    kb = KnowledgeBase.open(kb_dir, settings)
    prefix = kb.prefix(cutoff)
    papers = kb.all_papers()[:prefix]
    oracle = BM25Okapi([tokenize(paper.text) for paper in papers])
    rng = random.Random(1)
    queries = [" ".join(paper.title.split()[:6]) for paper in rng.sample(papers, count)]
    ours_times, oracle_times, identical = [], [], 0
    for query in queries:
        started = time.perf_counter()
        ours = kb.bm25.top(query, prefix, 10)
        ours_times.append(time.perf_counter() - started)
        started = time.perf_counter()
        scores = oracle.get_scores(tokenize(query))
        expected = [row for row in np.argsort(-scores, kind="stable")[:10] if scores[row] > 0]
        oracle_times.append(time.perf_counter() - started)
        identical += [round(scores[row], 9) for row, _ in ours] == [round(scores[row], 9) for row in expected]
    return {
        "docs": prefix,
        "ours_p50_ms": _p50_ms(ours_times),
        "rank_bm25_p50_ms": _p50_ms(oracle_times),
        "speedup": _p50_ms(oracle_times) / _p50_ms(ours_times),
        "identical_top10": identical,
        "queries": count,
    }


def main() -> int:
    """Run the benchmark; print figures; exit 1 if a goal is missed."""
    if len(sys.argv) == 5 and sys.argv[1] == COLD_CHILD:
        return _cold_child(*sys.argv[2:])
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path(os.environ.get("FORESCI_CACHE_DIR", ".foresci/cache")),
        help="embedding cache for the full build (warm it to skip re-embedding)",
    )
    parser.add_argument("--field", choices=["text", "title"], default="text", help="settings.kb.embed_field")
    parser.add_argument(
        "--ratio-days",
        type=int,
        default=3,
        help="days used for the build/embedding ratio (0 = the full corpus)",
    )
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--cutoff", type=date.fromisoformat, default=date(2025, 11, 30))
    parser.add_argument("--workdir", type=Path, default=None, help="where to build (default: a temp folder)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--ratio-only", action="store_true", help="measure only the build/embedding ratio")
    parser.add_argument(
        "--ratio-papers", type=int, default=0, help="cap the ratio's papers (first rows of the days; 0 = all)"
    )
    parser.add_argument(
        "--kb", type=Path, default=None, help="a built KB (read-only) for the query figures; no full build"
    )
    parser.add_argument("--fresh-queries", type=int, default=100, help="fresh queries per cutoff")
    parser.add_argument("--doc-papers", type=int, default=64, help="papers for the per-backend papers/s")
    parser.add_argument("--search-only", action="store_true",
                        help="with --kb: only the search figures (fresh hybrid, dense path per cutoff, "
                        "cold-process first searches, CLI timings); no build")
    parser.add_argument("--cold-rounds", type=int, default=2, help="rounds of the cold-process figures")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    from foresci.core.threads import ensure_threads

    ensure_threads()  # the default (1 thread unless OMP_NUM_THREADS / FORESCI_RUNTIME__THREADS say otherwise)
    days = sorted(args.corpus.glob("*.jsonl*"))
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="foresci-kb-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    figures: dict[str, dict[str, float]] = {}
    checks: list[tuple[str, bool]] = []
    if args.search_only:
        if args.kb is None:
            print("--search-only needs --kb", file=sys.stderr)
            return 2
        _search_figures(args, workdir, figures, checks)
        _report(figures, checks, args.json)
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
        return 0 if all(passed for _, passed in checks) else 1

    ratio_days = days if args.ratio_days == 0 else days[: args.ratio_days]
    ratio_sources = _first_rows(ratio_days, args.ratio_papers, workdir / "ratio-source")
    figures["ratio"] = measure_ratio(ratio_sources, args.field, workdir / "ratio")
    figures["ratio"]["days"] = len(ratio_days)
    figures["ratio"]["load"] = os.getloadavg()[0]
    checks.append(("build / embedding-only <= 1.3", figures["ratio"]["ratio"] <= 1.3))
    shutil.rmtree(workdir / "ratio", ignore_errors=True)

    if not args.ratio_only:
        figures["document_backends"] = measure_document_backends(days, args.doc_papers)
        kb_dir = args.kb
        if kb_dir is None:
            _full_corpus_checks(days, args, workdir, figures, checks)
            kb_dir = workdir / "kb-full"
        figures["encoders"] = measure_encoders(kb_dir, args.queries)
        checks.append(("fast-encoder recall@10 >= 0.95", figures["encoders"]["onnx_recall_at_10"] >= 0.95))
        figures["fresh_hybrid"] = measure_fresh_hybrid(kb_dir, workdir, CUTOFFS, args.fresh_queries)
        for cutoff in CUTOFFS:
            p50 = figures["fresh_hybrid"][f"p50_ms@{cutoff}"]
            checks.append((f"fresh hybrid p50 <= 15 ms at {cutoff}", p50 <= 15.0))
            recall = figures["fresh_hybrid"][f"recall_at_10_vs_exact@{cutoff}"]
            checks.append((f"hybrid recall@10 against exact dense search >= 0.95 at {cutoff}",
                           recall >= 0.95))
        figures["threads"] = measure_threads(kb_dir, min(args.fresh_queries, 50))
        figures["cold_search"] = measure_cold_search(kb_dir, workdir)
        cold = figures["cold_search"]
        checks.append(("fresh-process kb search <= 1 s (cached query vector)", cold["cached_query_s"] <= 1.0))
        checks.append(("fresh-process kb search <= 1 s (never-seen query: loads the encoder)",
                       cold["fresh_query_s"] <= 1.0))
        figures["dense_paths"] = measure_dense_paths(kb_dir, workdir, CUTOFFS, min(args.fresh_queries, 100))
        _dense_path_checks(figures["dense_paths"], CUTOFFS, checks)
        figures["cold_first_search"] = measure_cold_first_search(kb_dir, workdir, CUTOFFS, args.cold_rounds)
        _cold_checks(figures["cold_first_search"], checks)
        _cli_timings(kb_dir, workdir, figures, checks)
    _report(figures, checks, args.json)
    if args.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0 if all(passed for _, passed in checks) else 1


def _search_figures(
    args: argparse.Namespace, workdir: Path, figures: dict, checks: list[tuple[str, bool]]
) -> None:
    """The search side on a built KB (``--search-only``): fresh hybrid latency and recall, the dense path
    per cutoff, cold-process first searches, and the CLI timings (benchmarks/cli_cold.py, when there)."""
    figures["fresh_hybrid"] = measure_fresh_hybrid(args.kb, workdir, CUTOFFS, args.fresh_queries)
    for cutoff in CUTOFFS:
        checks.append((f"fresh hybrid p50 <= 15 ms at {cutoff}",
                       figures["fresh_hybrid"][f"p50_ms@{cutoff}"] <= 15.0))
        checks.append((f"hybrid recall@10 against exact dense search >= 0.95 at {cutoff}",
                       figures["fresh_hybrid"][f"recall_at_10_vs_exact@{cutoff}"] >= 0.95))
    figures["dense_paths"] = measure_dense_paths(args.kb, workdir, CUTOFFS, min(args.fresh_queries, 100))
    _dense_path_checks(figures["dense_paths"], CUTOFFS, checks)
    figures["cold_first_search"] = measure_cold_first_search(args.kb, workdir, CUTOFFS, args.cold_rounds)
    _cold_checks(figures["cold_first_search"], checks)
    _cli_timings(args.kb, workdir, figures, checks)
    figures["machine"] = {"load_1min": os.getloadavg()[0], "threads": os.environ.get("OMP_NUM_THREADS", "")}


def _full_corpus_checks(
    days: list[Path],
    args: argparse.Namespace,
    workdir: Path,
    figures: dict[str, dict[str, float]],
    checks: list[tuple[str, bool]],
) -> None:
    """Build the full KB (minus the last day), update it with the last day, then time queries and BM25."""
    from foresci.kb.build import build_kb, update_kb

    settings = _settings(args.cache, args.field)
    kb_dir = workdir / "kb-full"
    started = time.perf_counter()
    summary = build_kb(days[:-1], kb_dir, settings)
    figures["full_build"] = {
        "seconds": time.perf_counter() - started,
        "papers": summary.papers,
        "embedded": summary.embedded,
        **{f"{k}_s": v for k, v in summary.timings.items()},
    }
    started = time.perf_counter()
    update = update_kb(kb_dir, days[-1:], settings)
    update_seconds = time.perf_counter() - started
    embed_seconds = update.timings.get("embed", 0.0)
    figures["update"] = {
        "seconds": update_seconds,
        "added": update.added,
        "embed_s": embed_seconds,
        "non_embedding_s": update_seconds - embed_seconds,
    }
    checks.append(("one-day update <= 10 s + its embedding", update_seconds - embed_seconds <= 10.0))

    figures["query"] = measure_queries(kb_dir, settings, args.cutoff, args.queries)
    checks.append(("hybrid query p50 <= 15 ms", figures["query"]["hybrid_p50_ms"] <= 15.0))
    checks.append(("hybrid p50 <= 3x bare FAISS flat", figures["query"]["hybrid_over_faiss"] <= 3.0))
    peak_gib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1024 * 1024)
    figures["memory"] = {"peak_rss_gib": peak_gib}
    checks.append(("peak RSS <= 2 GiB (build, update, queries)", peak_gib <= 2.0))

    figures["bm25"] = measure_bm25(kb_dir, settings, args.cutoff, min(args.queries, 30))
    checks.append(
        (
            "BM25 top-10 identical to rank-bm25",
            figures["bm25"]["identical_top10"] == figures["bm25"]["queries"],
        )
    )
    checks.append(("BM25 faster than rank-bm25", figures["bm25"]["speedup"] > 1.0))


def _report(
    figures: dict[str, dict[str, float]], checks: list[tuple[str, bool]], json_path: Path | None
) -> None:
    """Print every figure and check; optionally write them as JSON."""
    for section, values in figures.items():
        print(f"[{section}]")
        for key, value in values.items():
            print(f"  {key:24s} {value:.4g}" if isinstance(value, float) else f"  {key:24s} {value}")
    print()
    for name, passed in checks:
        print(f"{'PASS' if passed else 'MISS'}  {name}")
    if json_path:
        json_path.write_text(json.dumps({"figures": figures, "checks": dict(checks)}, indent=2))


if __name__ == "__main__":
    sys.exit(main())
