"""Document-embedding benchmark: papers/s of title + abstract on 1 and 2 cores, threads against processes.

Encodes the same real papers (title + abstract, the default ``kb.embed_field``) in chunks the way
``kb build`` does, with each way of using the cores:

- ``1 worker``: one batch at a time on one thread (the former default);
- ``intra-op 2``: one batch at a time, ONNX Runtime's two intra-op threads on it;
- ``2 threads``: ``runtime.embed_workers=2`` — two batches side by side, one thread each, one model
  (what ``kb build`` and the demo do now);
- ``2 processes``: two spawned processes, each with its own model copy at one thread, fed the same
  batches (start-up included);
- ``torch 1 worker`` (``--torch``): sentence-transformers at one thread.

For each: papers/s of wall time, papers per CPU-second (all threads and child processes: the per-core
rate, which the machine's load hardly changes; the issue's fp32 floor is 17.5 abstracts/s/core) and
whether its vectors equal the 1-worker ones bit for bit (else the largest difference and the share of
200 queries whose top-10 changes). Prints ``uptime`` and the thread counts beside the figures.

Goals (exit 1 when one is missed):
  * every ONNX way gives the 1-worker vectors bit for bit;
  * the 2-thread way projects the real corpus (``--corpus-papers``, 74.7k) to <= ``--goal-min`` minutes
    (50): checked only when the machine was quiet (1-minute load < ``--quiet-load``, default 0.5), since
    on a shared machine the wall rate measures the other jobs. A busy machine prints the projection and
    passes.

Run: ``python benchmarks/embed.py [--papers 512] [--chunk 256] [--torch]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = Path(os.environ.get("FORESCI_SHARED", REPO.parent / "shared")) / "corpora" / "arxiv-daily"
FP32_FLOOR = 17.5  # abstracts/s/core (issue 32: encoding FLOPs at the measured fp32 GEMM rate)


def real_texts(corpus: Path, count: int) -> list[str]:
    """Title + abstract (``Paper.text``, as ``kb build`` embeds it) of ``count`` papers spread over the
    corpus's days (every 7th day, its first rows)."""
    from foresci.kb.ingest import discover_sources, iter_source
    from foresci.kb.models import Paper

    sources = discover_sources([corpus])[::7]
    per_day = count // max(1, len(sources)) + 1
    texts: list[str] = []
    for source in sources:
        papers = (item for item in iter_source(source, 200_000) if isinstance(item, Paper))
        texts.extend(paper.text for _, paper in zip(range(per_day), papers, strict=False))
        if len(texts) >= count:
            break
    return texts[:count]


_WORKER_CPU = [0.0]  # CPU seconds spent by the live worker processes of the processes way


def _cpu_seconds() -> float:
    """CPU seconds of this process and its worker processes."""
    own = os.times()
    return own.user + own.system + _WORKER_CPU[0]


Way = Callable[[], tuple[Callable[[list[str]], np.ndarray], Callable[[], None]]]


def _timed(prepare: Way, texts: list[str], chunk: int) -> dict[str, float | np.ndarray]:
    """Prepare a way (model load, process start: timed apart), then encode ``texts`` chunk by chunk."""
    started = time.perf_counter()
    encode, close = prepare()
    setup = time.perf_counter() - started
    try:
        started, cpu = time.perf_counter(), _cpu_seconds()
        vectors = np.concatenate([encode(part) for part in _chunks(texts, chunk)])
        wall, used = time.perf_counter() - started, _cpu_seconds() - cpu
    finally:
        close()
    return {
        "vectors": vectors,
        "setup_s": setup,
        "wall_s": wall,
        "papers_per_s": len(texts) / wall,
        "papers_per_cpu_s": len(texts) / used if used > 0 else float("nan"),
        "load": os.getloadavg()[0],
    }


def _chunks(texts: list[str], size: int) -> list[list[str]]:
    return [texts[start : start + size] for start in range(0, len(texts), size)]


def embedder_way(workers: int, threads: int, backend: str) -> Way:
    """Through :class:`foresci.embedders.embedder.Embedder` with ``workers`` and ``threads`` (the kb build
    path: one ``encode_uncached`` per chunk)."""

    def prepare() -> tuple[Callable[[list[str]], np.ndarray], Callable[[], None]]:
        from foresci.core.threads import apply_threads
        from foresci.embedders.embedder import Embedder

        apply_threads(threads)
        embedder = Embedder(backend=backend, workers=workers)
        embedder.encode_uncached(["load the model"] * 40)  # both sessions a call may use
        embedder.encode_uncached(["load the model"])
        return embedder.encode_uncached, lambda: None

    return prepare


_WORKER_ENCODER = None


def _process_init() -> None:
    global _WORKER_ENCODER
    from foresci.core.threads import apply_threads
    from foresci.embedders.embedder import Embedder

    apply_threads(1)
    _WORKER_ENCODER = Embedder(workers=1)
    _WORKER_ENCODER.encode_uncached(["load the model"])


def _process_encode(texts: list[str]) -> tuple[np.ndarray, float]:
    assert _WORKER_ENCODER is not None
    started = time.process_time()
    vectors = _WORKER_ENCODER.encode_uncached(texts)
    return vectors, time.process_time() - started


def _process_ready(_: int) -> int:
    time.sleep(0.2)  # long enough for every worker to take one
    return os.getpid()


def process_way(processes: int, batch_size: int) -> Way:
    """The 1-worker batches (longest first within a chunk), each sent whole to one of ``processes``
    spawned processes with their own model at one thread."""

    def prepare() -> tuple[Callable[[list[str]], np.ndarray], Callable[[], None]]:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        from tokenizers import Tokenizer

        from foresci.core.settings import DEFAULT_EMBEDDING_MODEL
        from foresci.embedders.model_dir import onnx_layout

        layout = onnx_layout(DEFAULT_EMBEDDING_MODEL)
        assert layout is not None
        tokenizer = Tokenizer.from_file(str(layout.directory / "tokenizer.json"))
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=layout.max_length)
        pool = ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_process_init)
        list(pool.map(_process_ready, range(processes)))

        def encode(part: list[str]) -> np.ndarray:
            lengths = np.asarray([len(item.ids) for item in tokenizer.encode_batch(part)])
            order = np.argsort(-lengths, kind="stable")
            batches = [order[start : start + batch_size] for start in range(0, len(order), batch_size)]
            output = np.zeros((len(part), layout.dimension), dtype=np.float32)
            jobs = [[part[index] for index in batch] for batch in batches]
            for batch, (vectors, cpu) in zip(batches, pool.map(_process_encode, jobs), strict=True):
                output[batch] = vectors
                _WORKER_CPU[0] += cpu
            return output

        return encode, lambda: pool.shutdown(wait=True)

    return prepare


def _measure_way(run: Way, texts: list[str], chunk: int) -> tuple[dict[str, float], np.ndarray]:
    result = _timed(run, texts, chunk)
    vectors = result.pop("vectors")
    assert isinstance(vectors, np.ndarray)
    return {key: float(value) for key, value in result.items() if not isinstance(value, np.ndarray)}, vectors


def _compare(vectors: np.ndarray, reference: np.ndarray) -> dict[str, float]:
    """Bitwise equality with the 1-worker vectors; else the largest difference and the top-10 changes."""
    if np.array_equal(vectors, reference):
        return {"bitwise_equal": 1.0}
    return {"bitwise_equal": 0.0, "max_abs_diff": float(np.abs(vectors - reference).max()),
            "top10_changed_share": top10_changed(reference, vectors)}


def _compare_fields(row: dict[str, float]) -> dict[str, float]:
    return {key: row[key] for key in ("max_abs_diff", "top10_changed_share")}


def _describe(row: dict[str, float]) -> str:
    extra = "bitwise equal" if row["bitwise_equal"] == 1.0 else (
        f"max |diff| {row['max_abs_diff']:.3g}, top-10 changed for {row['top10_changed_share']:.1%}")
    return (f"{row['papers_per_s']:6.1f} papers/s  {row['papers_per_cpu_s']:5.1f} per CPU-s "
            f"({row['papers_per_cpu_s'] / FP32_FLOOR:.0%} of the {FP32_FLOOR} fp32 floor/core)  "
            f"{row['wall_s']:6.1f} s (+{row['setup_s']:.1f} s start)  load {row['load']:.2f}  {extra}")


def top10_changed(reference: np.ndarray, other: np.ndarray, queries: int = 200) -> float:
    """Share of ``queries`` papers (as queries against all) whose exact top-10 differs between the two."""
    picks = np.linspace(0, len(reference) - 1, min(queries, len(reference))).astype(int)
    changed = 0
    for index in picks:
        first = np.argsort(-(reference @ reference[index]), kind="stable")[:10]
        second = np.argsort(-(other @ other[index]), kind="stable")[:10]
        changed += set(first) != set(second)
    return changed / len(picks)


def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return f"load {os.getloadavg()}"


def main() -> int:
    """Measure every way, print the figures, return 1 when a goal is missed."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--papers", type=int, default=512, help="papers encoded by each way")
    parser.add_argument("--chunk", type=int, default=256, help="papers per chunk (kb.embed_chunk)")
    parser.add_argument("--batch-size", type=int, default=32, help="runtime.encoder_batch_size")
    parser.add_argument("--workers", type=int, default=2, help="cores of the parallel ways")
    parser.add_argument("--repeat", type=int, default=1, help="rounds of every way, interleaved (medians)")
    parser.add_argument("--torch", action="store_true", help="also sentence-transformers at one thread")
    parser.add_argument("--only", nargs="*", default=None, help="ways to run (names as printed)")
    parser.add_argument("--corpus-papers", type=int, default=74_700, help="papers of the real corpus")
    parser.add_argument("--goal-min", type=float, default=50.0, help="minutes allowed for the real corpus")
    parser.add_argument("--quiet-load", type=float, default=0.5, help="1-min load below which goals apply")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if not args.corpus.is_dir():
        print(f"corpus not found: {args.corpus}", file=sys.stderr)
        return 2
    texts = real_texts(args.corpus, args.papers)
    workers = args.workers
    ways: dict[str, Way] = {
        "1 worker": embedder_way(1, 1, "onnx"),
        f"{workers} threads": embedder_way(workers, 1, "onnx"),
        f"intra-op {workers}": embedder_way(1, workers, "onnx"),
        f"{workers} processes": process_way(workers, args.batch_size),
    }
    if args.torch:
        ways["torch 1 worker"] = embedder_way(1, 1, "torch")
    if args.only:
        ways = {name: run for name, run in ways.items() if name in args.only or name == "1 worker"}
    print(f"{len(texts)} real papers (title + abstract), chunks of {args.chunk}, "
          f"batches of {args.batch_size}")
    print(f"before: {_uptime()}")
    figures: dict[str, dict[str, float]] = {}
    reference: np.ndarray | None = None
    failures: list[str] = []
    started_load = os.getloadavg()[0]
    rounds: dict[str, list[dict[str, float]]] = {name: [] for name in ways}
    for round_number in range(args.repeat):  # the ways interleaved, so a change of load hits each alike
        if args.repeat > 1:
            print(f" round {round_number + 1} of {args.repeat}")
        for name, run in ways.items():
            row, vectors = _measure_way(run, texts, args.chunk)
            if reference is None:
                reference = vectors
            row.update(_compare(vectors, reference))
            if not row["bitwise_equal"] and not name.startswith("torch"):
                failures.append(f"{name}: vectors differ from 1 worker (max {row['max_abs_diff']:.3g})")
            rounds[name].append(row)
            print(f"  {name:<16} {_describe(row)}", flush=True)
    for name, rows in rounds.items():
        common = [key for key in rows[0] if all(key in row for row in rows)]
        figures[name] = {key: statistics.median(row[key] for row in rows) for key in common}
        figures[name]["bitwise_equal"] = min(row["bitwise_equal"] for row in rows)
        if figures[name]["bitwise_equal"] == 0.0 and "max_abs_diff" not in figures[name]:
            figures[name].update(next(_compare_fields(row) for row in rows if not row["bitwise_equal"]))
    if args.repeat > 1:
        print(" medians:")
        for name, row in figures.items():
            print(f"  {name:<16} {_describe(row)}")
    print(f"after: {_uptime()}")
    parallel = figures.get(f"{workers} threads")
    if parallel is not None:
        minutes = args.corpus_papers / parallel["papers_per_s"] / 60
        quiet = max(started_load, os.getloadavg()[0]) < args.quiet_load
        checked = "checked" if quiet else "not checked: machine busy"
        print(f"projected real corpus ({args.corpus_papers} papers) with {workers} threads: "
              f"{minutes:.0f} min (goal <= {args.goal_min:.0f} min; {checked})")
        if quiet and minutes > args.goal_min:
            failures.append(f"projected {minutes:.0f} min > {args.goal_min:.0f} min")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    for failure in failures:
        print(f"MISSED: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
