"""Large-KB benchmark: the dense index at 1,000,000 papers (synthetic vectors), cutoff-exact.

Generates a corpus of N papers in announcement order (dates spread over the real stream's span,
clustered unit vectors of dimension 384 written to a memory-mapped .npy), builds the IVF index the
KB stores above ``runtime.approximate_above``, and searches it through ``DenseIndex`` exactly as
``KBView`` does: fresh (never-seen) query vectors at 5 cutoffs, p50/p95 latency, recall@10 against
an exact scan of the visible prefix, and a check that no row after the cutoff ever comes back.
Query encoding is not part of these figures (see benchmarks/kb.py for it).

Goals (exit status 1 when one is missed): recall@10 >= 0.95 at every cutoff, no row after a
cutoff, peak RSS <= 4 GiB, p50 <= 15 ms at every cutoff.

Examples:
  OMP_NUM_THREADS=1 python benchmarks/scale.py                       # 1,000,000 papers
  python benchmarks/scale.py --papers 200000 --json scale.json      # a quicker look
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import numpy as np

FIRST_DAY = date(2025, 3, 18)
LAST_DAY = date(2026, 7, 1)
CUTOFFS = [date(2025, 6, 30), date(2025, 9, 30), date(2025, 12, 31), date(2026, 3, 31), date(2026, 6, 30)]


class Corpus:
    """Generated papers: announcement ordinals (sorted) and clustered unit vectors."""

    def __init__(self, papers: int, dimension: int, folder: Path, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        self.dimension = dimension
        self.centres = self._unit(self.rng.normal(size=(max(64, papers // 200), dimension)))
        span = (LAST_DAY - FIRST_DAY).days
        self.ordinals = np.sort(FIRST_DAY.toordinal() + self.rng.integers(0, span + 1, papers))
        path = folder / "vectors.npy"
        out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(papers, dimension))
        for start in range(0, papers, 100_000):
            out[start : start + 100_000] = self.sample(min(100_000, papers - start))
        out.flush()
        del out
        self.vectors = np.load(path, mmap_mode="r")

    def sample(self, count: int) -> np.ndarray:
        """``count`` new vectors from the corpus distribution (a topic centre plus noise)."""
        topics = self.centres[self.rng.integers(0, len(self.centres), count)]
        noise = self.rng.normal(scale=0.045, size=(count, self.dimension))
        return self._unit(topics + noise)

    def prefix(self, cutoff: date) -> int:
        """Papers announced on or before ``cutoff``."""
        return int(np.searchsorted(self.ordinals, cutoff.toordinal(), side="right"))

    @staticmethod
    def _unit(vectors: np.ndarray) -> np.ndarray:
        return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def _peak_rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1024 * 1024)


def _ms(samples: list[float], quantile: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(quantile * len(ordered)))] * 1000.0


def measure_cutoff(index, corpus: Corpus, cutoff: date, queries: int, recall_queries: int) -> dict:
    """Fresh-query latency, recall@10 against exact search, and the cutoff check at one cutoff."""
    from foresci.kb.dense import exact_search

    prefix = corpus.prefix(cutoff)
    fresh = corpus.sample(queries)
    times, leaks = [], 0
    results = []
    for query in fresh:
        started = time.perf_counter()
        rows = index.search(query, prefix, 100)
        times.append(time.perf_counter() - started)
        leaks += sum(row >= prefix for row in rows)
        results.append(rows[:10])
    recalls = []
    for query, found in list(zip(fresh, results, strict=True))[:recall_queries]:
        exact = exact_search(corpus.vectors[:prefix], query, 10)
        recalls.append(len(set(exact) & set(found)) / 10)
    return {
        "cutoff": cutoff.isoformat(),
        "visible": prefix,
        "approximate": index.approximate(prefix),
        "p50_ms": statistics.median(times) * 1000.0,
        "p95_ms": _ms(times, 0.95),
        "recall_at_10": float(np.mean(recalls)),
        "rows_after_cutoff": leaks,
    }


def main() -> int:
    """Run the benchmark; print figures; exit 1 if a goal is missed."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--papers", type=int, default=1_000_000)
    parser.add_argument("--dimension", type=int, default=384)
    parser.add_argument("--queries", type=int, default=200, help="fresh queries per cutoff (latency)")
    parser.add_argument("--recall-queries", type=int, default=50, help="of those, checked against exact")
    parser.add_argument("--approximate-above", type=int, default=100_000)
    parser.add_argument("--nprobe", type=int, default=16)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()

    from foresci.core.threads import ensure_threads
    from foresci.kb.dense import DenseIndex, build_ivf, read_index, write_index

    threads = ensure_threads()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="foresci-scale-"))
    workdir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    corpus = Corpus(args.papers, args.dimension, workdir)
    generate_s = time.perf_counter() - started
    started = time.perf_counter()
    write_index(workdir, build_ivf(corpus.vectors))
    build_s = time.perf_counter() - started
    index = DenseIndex(
        corpus.vectors,
        ivf=read_index(workdir),
        mode="auto",
        approximate_above=args.approximate_above,
        nprobe=args.nprobe,
    )
    figures: dict = {
        "papers": args.papers,
        "threads": threads,
        "load_average": os.getloadavg()[0],
        "generate_s": generate_s,
        "ivf_build_s": build_s,
        "ivf_bytes": (workdir / "dense_ivf.faiss").stat().st_size,
        "cutoffs": [
            measure_cutoff(index, corpus, cutoff, args.queries, args.recall_queries) for cutoff in CUTOFFS
        ],
        "peak_rss_gib": _peak_rss_gib(),
        "load_average_after": os.getloadavg()[0],
    }
    checks = [
        ("recall@10 >= 0.95 at every cutoff", all(row["recall_at_10"] >= 0.95 for row in figures["cutoffs"])),
        ("no row after a cutoff", all(row["rows_after_cutoff"] == 0 for row in figures["cutoffs"])),
        ("p50 <= 15 ms at every cutoff", all(row["p50_ms"] <= 15.0 for row in figures["cutoffs"])),
        ("peak RSS <= 4 GiB", figures["peak_rss_gib"] <= 4.0),
    ]
    for key, value in figures.items():
        if key != "cutoffs":
            print(f"{key:20s} {value:.4g}" if isinstance(value, float) else f"{key:20s} {value}")
    print(f"{'cutoff':12s} {'visible':>9s} {'index':>6s} {'p50 ms':>8s} {'p95 ms':>8s} recall@10 leaks")
    for row in figures["cutoffs"]:
        print(
            f"{row['cutoff']:12s} {row['visible']:9d} {'ivf' if row['approximate'] else 'exact':>6s} "
            f"{row['p50_ms']:8.2f} {row['p95_ms']:8.2f} {row['recall_at_10']:9.3f} {row['rows_after_cutoff']}"
        )
    for name, passed in checks:
        print(f"{'PASS' if passed else 'MISS'}  {name}")
    if args.json:
        args.json.write_text(json.dumps({"figures": figures, "checks": dict(checks)}, indent=2))
    if args.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0 if all(passed for _, passed in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
