"""Cold CLI benchmark: `foresci --help` and a never-seen `foresci kb search` as fresh processes.

Goals (issue 32; exit status 1 when one is missed), each the median of --runs fresh processes:
  * `foresci --help` <= 0.15 s
  * `foresci kb search KB "<never-seen query>" --cutoff DATE` <= 0.35 s on the real KB (a different query
    each run, so no query vector comes from the cache; the KB's derived postings are made by one untimed
    search first, in the cache folder, as every later search of a user finds them)
Also printed: the CPU time of the same processes (steadier than wall time on a busy machine), the
import-time breakdown (top 10 packages by self time, `python -X importtime`) of one
more run of each, the load average and the thread count. The KB is only read (searches write to the
cache folder: a temporary one unless --cache-dir).

With --check-queries N, first (in this process) the one-shot search `kb search` runs (numpy query encoder,
numpy exact dense scan) is compared with the usual exact search and with the 'auto' path on N real queries:
it must give the same top-10 as exact search on every one (exit 1 otherwise).

Examples:
  python benchmarks/cli_cold.py                          # the real KB at /work/kbs/real
  python benchmarks/cli_cold.py --kb /path/to/kb --runs 9 --cutoff 2025-12-31
  python benchmarks/cli_cold.py --check-queries 200      # also the one-shot vs exact check
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
HELP_GOAL_S = 0.15
SEARCH_GOAL_S = 0.35
DEFAULT_KB = Path("/work/kbs/real")
TOPICS = ("graph neural", "protein design", "speech recognition", "robot grasping", "code generation",
          "weather forecasting", "medical imaging", "recommender", "theorem proving", "image editing",
          "molecule generation", "traffic prediction", "music generation", "tabular data", "video captioning")
ASPECTS = ("calibration", "distillation", "privacy", "robustness", "sparsity", "curriculum", "pruning",
           "uncertainty", "few-shot transfer", "long context", "reward shaping", "active learning")


def foresci_command() -> list[str]:
    """How a user starts foresci here: the console script beside this Python, else ``python -m``."""
    script = Path(sys.executable).with_name("foresci")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "foresci"]


def never_seen_queries(count: int) -> list[str]:
    """``count`` distinct queries no earlier run asked (a topic, an aspect and a fresh number)."""
    chooser = random.Random(time.time_ns())
    stamp = time.time_ns() % 1_000_000_007
    return [f"{chooser.choice(ASPECTS)} for {chooser.choice(TOPICS)} models {stamp + index}"
            for index in range(count)]


def _environment(cache: Path, code: Path) -> dict[str, str]:
    """The searches' environment: ``code`` first on the path, the cache folder, and bytecode written (as
    an installed package has it: PYTHONDONTWRITEBYTECODE would compile every changed module each run)."""
    env = {**os.environ, "FORESCI_CACHE_DIR": str(cache)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(code), os.environ.get("PYTHONPATH"))))
    return env


def _timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one process running ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)}: exit {result.returncode}: {result.stderr.strip()[-500:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def import_breakdown(command: list[str], env: dict[str, str], top: int = 10) -> list[tuple[str, float]]:
    """Self import time (ms) per package of one run of ``command`` (foresci modules by sub-package).

    Run from an empty folder: ``python -c`` puts the working directory first on the path, where a
    checkout would shadow the code under test."""
    python = [sys.executable, "-X", "importtime", "-c", "from foresci.cli import main; main()"]
    arguments = command[len(foresci_command()):]
    with tempfile.TemporaryDirectory() as empty:
        result = subprocess.run(python + arguments, env=env, capture_output=True, text=True, cwd=empty)
    totals: Counter[str] = Counter()
    for line in result.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, _, name = line[len("import time:"):].split("|")
        parts = name.strip().split(".")
        totals[".".join(parts[:3] if parts[0] == "foresci" else parts[:1])] += int(self_us)
    return [(name, micros / 1000.0) for name, micros in totals.most_common(top)]


@dataclass
class Figure:
    """The wall times of fresh processes of one command line, and one more run's import breakdown."""

    runs_s: list[float]
    cpu_s: list[float]
    imports_ms: list[tuple[str, float]]

    @property
    def median_s(self) -> float:
        return statistics.median(self.runs_s)


def measure(kb: Path, cutoff: str, runs: int, cache: Path, code: Path = REPO) -> dict[str, Figure]:
    """``runs`` fresh `--help` and never-seen `kb search` processes (wall times) and their imports, running
    the foresci source in ``code``."""
    env = _environment(cache, code)
    foresci = foresci_command()
    search = [*foresci, "kb", "search", str(kb)]
    _timed([*search, "derive the postings once", "--cutoff", cutoff], env)  # untimed: fills the cache
    helps = [_timed([*foresci, "--help"], env) for _ in range(runs)]
    queries = never_seen_queries(runs + 1)
    searches = [_timed([*search, query, "--cutoff", cutoff], env) for query in queries[:runs]]
    return {
        "--help": Figure([wall for wall, _ in helps], [cpu for _, cpu in helps],
                         import_breakdown([*foresci, "--help"], env)),
        "kb search": Figure([wall for wall, _ in searches], [cpu for _, cpu in searches],
                            import_breakdown([*search, queries[runs], "--cutoff", cutoff], env)),
    }


def measure_for_kb_benchmark(kb: Path, workdir: Path, figures: dict, checks: list[tuple[str, bool]],
                             cutoff: str = "2026-06-30", runs: int = 5) -> None:
    """benchmarks/kb.py's hook: the CLI figures into ``figures['cli']``, the two goals into ``checks``."""
    measured = measure(kb, cutoff, runs, workdir / "cli-cache")
    figures["cli"] = {label: {"median_s": figure.median_s, "runs_s": figure.runs_s, "cpu_s": figure.cpu_s}
                      for label, figure in measured.items()}
    goals = {"--help": HELP_GOAL_S, "kb search": SEARCH_GOAL_S}
    for label, figure in measured.items():
        checks.append((f"foresci {label} <= {goals[label]} s (median of {runs} fresh processes)",
                       figure.median_s <= goals[label]))


def check_one_shot(kb: Path, cutoff: str, count: int, scratch: Path, code: Path = REPO) -> dict[str, float]:
    """The one-shot search `kb search` runs (numpy query encoder, numpy exact dense scan) against the usual
    exact search (ONNX Runtime encoder, FAISS exact path) and the 'auto' path (HNSW above the cost model's
    crossover) on ``count`` real queries (word windows of the KB's abstracts, new each run): the share of
    queries with the same top-10 papers, the same hits (ids, BM25 and dense ranks), and the largest
    difference of the query vectors. Each view has its own vector cache, so each encodes every query.
    Runs the foresci source in ``code`` (first on the path, before an installed copy)."""
    from datetime import date

    sys.path[:0] = [str(code), str(REPO / "benchmarks")]
    from foresci.core.settings import Settings
    from foresci.kb.retrieve import KBView
    from foresci.kb.store import KnowledgeBase
    from kb import _fresh_queries  # type: ignore[import-not-found]

    day = date.fromisoformat(cutoff)

    def view(name: str, one_shot: bool = False, **runtime: str) -> KBView:
        settings = Settings(cache_dir=scratch / name, runtime={"encoder": "auto", **runtime})
        return KBView(KnowledgeBase.open(kb, settings, one_shot=one_shot), day)

    one_shot, exact, auto = view("one-shot", True), view("exact", dense_index="flat"), view("auto")
    queries = _fresh_queries(one_shot.kb.papers(until=day), count)
    figures: dict[str, float] = {"queries": len(queries), "visible": one_shot.size,
                                 "auto_dense_path": auto.kb.dense_index.path(auto.size)}  # type: ignore[dict-item]
    same = {"exact": [0, 0], "auto": [0, 0]}
    largest = 0.0
    for query in queries:
        hits = one_shot.search(query)
        largest = max(largest, float(np.abs(one_shot.query_vector(query) - exact.query_vector(query)).max()))
        for name, other in (("exact", exact), ("auto", auto)):
            theirs = other.search(query)
            same[name][0] += {hit.paper.paper_id for hit in hits} == {hit.paper.paper_id for hit in theirs}
            same[name][1] += ([(hit.paper.paper_id, hit.bm25_rank, hit.dense_rank) for hit in hits]
                              == [(hit.paper.paper_id, hit.bm25_rank, hit.dense_rank) for hit in theirs])
    for name, (top10, identical) in same.items():
        figures[f"same_top10_vs_{name}"] = top10 / len(queries)
        figures[f"identical_hits_vs_{name}"] = identical / len(queries)
    figures["largest_query_vector_difference"] = largest
    return figures


def _conditions() -> str:
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    threads = os.environ.get("FORESCI_RUNTIME__THREADS") or os.environ.get("OMP_NUM_THREADS") or "default (1)"
    return f"load average {load}; threads {threads}; {os.cpu_count()} cores"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--kb", type=Path, default=DEFAULT_KB, help="a built KB (only read)")
    parser.add_argument("--cutoff", default="2026-06-30", help="the searches' --cutoff")
    parser.add_argument("--runs", type=int, default=5, help="fresh processes per figure (median)")
    parser.add_argument("--cache-dir", type=Path, default=None,
                        help="FORESCI_CACHE_DIR (default: a temp folder)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--check-queries", type=int, default=0,
                        help="also compare the one-shot search with the usual exact and 'auto' searches on "
                             "this many real queries (in this process; needs 100%% the same top-10 as exact)")
    parser.add_argument("--code", type=Path, default=REPO,
                        help="the foresci checkout to run (default: this one; e.g. main to compare)")
    options = parser.parse_args()
    if not (options.kb / "CURRENT").is_file():
        parser.error(f"{options.kb}: not a KB folder (no CURRENT file)")
    scratch = Path(tempfile.mkdtemp(prefix="foresci-cli-cold-"))
    checked: dict[str, float] = {}
    try:
        if options.check_queries:
            checked = check_one_shot(options.kb, options.cutoff, options.check_queries, scratch / "check",
                                     options.code.resolve())
            print(f"one-shot vs usual search ({options.cutoff}): "
                  + ", ".join(f"{key} {value}" for key, value in checked.items()), flush=True)
        figures = measure(options.kb, options.cutoff, options.runs, options.cache_dir or scratch / "cache",
                          options.code.resolve())
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"conditions: {_conditions()}")
    print(f"command: {' '.join(foresci_command())} (code: {options.code.resolve()})")
    goals = {"--help": HELP_GOAL_S, "kb search": SEARCH_GOAL_S}
    for label, figure in figures.items():
        runs = ", ".join(f"{value:.3f}" for value in figure.runs_s)
        print(f"{label}: median {figure.median_s:.3f} s of {options.runs} fresh processes ({runs}); "
              f"CPU time median {statistics.median(figure.cpu_s):.3f} s")
        print(f"  import time, top 10 by self time ({label}):")
        for name, millis in figure.imports_ms:
            print(f"    {millis:7.1f} ms  {name}")
    if options.json is not None:
        data = {label: {"median_s": figure.median_s, **asdict(figure)} for label, figure in figures.items()}
        options.json.write_text(json.dumps({**data, "conditions": _conditions()}, indent=2) + "\n")
    missed = 0
    if checked:
        passed = checked["same_top10_vs_exact"] == 1.0
        missed += not passed
        print(f"{'PASS' if passed else 'MISS'}  one-shot search: the same top-10 as exact search on "
              f"{int(checked['queries'])} real queries: {checked['same_top10_vs_exact']:.3f}")
    for label, figure in figures.items():
        passed = figure.median_s <= goals[label]
        missed += not passed
        print(f"{'PASS' if passed else 'MISS'}  foresci {label} <= {goals[label]} s: {figure.median_s:.3f} s")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
