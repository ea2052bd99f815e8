"""Real-data release benchmark: build a release, audit it, import ResearchForesight, round-trip a package.

Usage (full KB, the normal path):
    python benchmarks/tasks.py --kb /work/kb-real --out /work/release-real
Fallback when no embedded KB exists yet (keyword screen + hashed bag-of-words vectors; say so in reports):
    python benchmarks/tasks.py --corpus ../shared/corpora/arxiv-daily --fast --out /work/release-real

Prints timings, the release audit, the ResearchForesight import audit and the package resolution summary.
Exits non-zero when a goal is missed: every family >= --per-family tasks, all four domains present, gates
passed, package resolved, and (when the taxonomies are induced from scratch, i.e. the taxonomy folder does not
exist yet) the release build within --max-seconds (60) and the process within --max-peak-gib (1.5 GiB).

Speed of `tasks build` (issue 32: <= 15 s with the KB's embeddings and the embedder's cache warm):
    python benchmarks/tasks.py --speed --kb /work/kbs/real --out /tmp/tasks-speed
Cutoffs 2025-06-30, 2025-09-30 and 2025-12-31 unless --speed-cutoff is given. Each cutoff is built in a fresh
process with a fresh taxonomy folder (taxonomies induced, nothing reused), as `foresci tasks build KB --cutoff
C --window 3m --window 6m` does; a first, untimed build per cutoff warms the embedding cache (--no-warm-up
skips it). The domains' taxonomies are induced side by side, one process per usable core
(FORESCI_RELEASE_WORKERS=1: one after another). Prints wall and CPU seconds (the forked processes'
included), the stage breakdown (taxonomy per domain, window evidence, each family's builder, writing), the
load average and the thread settings, and the hardest cutoff; exits non-zero when a timed build takes more
than --max-build-seconds (15) of wall time.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import resource
import sys
import time
from collections import Counter
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from foresci.core.io import iter_jsonl
from foresci.core.settings import Settings
from foresci.kb.models import Paper
from foresci.tasks.audit import audit_tasks, render_audit
from foresci.tasks.build import build_release
from foresci.tasks.families import family_names
from foresci.tasks.forecast import make_package, resolve_package
from foresci.tasks.hidden_io import load_hidden
from foresci.tasks.release import load_release
from foresci.tasks.rf_import import import_researchforesight
from foresci.tasks.text import content_tokens

DIMENSION = 384
START = time.perf_counter()


def say(message: str) -> None:
    """Print a timestamped progress line."""
    print(f"[{time.perf_counter() - START:7.1f}s] {message}", flush=True)


def hashed_vector(text: str) -> np.ndarray:
    """Unit-length hashed bag of content words with sublinear term frequency."""
    counts = Counter(content_tokens(text))
    vector = np.zeros(DIMENSION, dtype=np.float32)
    for token, count in counts.items():
        digest = int(hashlib.md5(token.encode()).hexdigest()[:8], 16)
        vector[digest % DIMENSION] += (1.0 + np.log(count)) * (1 if digest & 1 << 31 else -1)
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector


def _pattern(phrases: Sequence[str]) -> re.Pattern[str] | None:
    words = sorted({re.escape(" ".join(phrase.lower().split())) for phrase in phrases if phrase.strip()},
                   key=len, reverse=True)
    return re.compile(r"(?<![a-z0-9])(?:" + "|".join(words) + r")(?![a-z0-9])") if words else None


PATTERNS: dict[str, tuple[re.Pattern[str] | None, re.Pattern[str] | None]] = {}


def _patterns(spec: Any) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
    if spec.slug not in PATTERNS:
        PATTERNS[spec.slug] = _pattern(spec.include_keywords), _pattern(spec.exclude_keywords)
    return PATTERNS[spec.slug]


def keyword_screen(spec: Any, paper: Paper) -> bool:
    """Keyword-only domain screen from the domain YAML: allowed category, an include phrase, no exclusion."""
    if spec.categories and not set(paper.categories) & set(spec.categories):
        return False
    include, exclude = _patterns(spec)
    title, text = paper.title.lower(), paper.text.lower()
    if include is None or not include.search(text):
        return False
    return not (exclude is not None and exclude.search(text) and not include.search(title))


class LiteKB:
    """The KB reads the tasks code needs, over raw daily files: keyword screen, hashed vectors."""

    def __init__(self, corpus: Path, until: date | None = None, source: LiteKB | None = None) -> None:
        if source is None:
            from foresci.kb.domains import load_domains
            from foresci.kb.ingest import ingest

            result = ingest([corpus], max_row_bytes=200_000)
            specs = load_domains()
            self._domains_of: dict[str, set[str]] = {}
            for paper in result.papers:
                for spec in specs:
                    if keyword_screen(spec, paper):
                        self._domains_of.setdefault(paper.paper_id, set()).add(spec.slug)
            self._all = [paper for paper in result.papers if paper.paper_id in self._domains_of]
            self._vectors = {paper.paper_id: hashed_vector(paper.text) for paper in self._all}
            self.domains = [spec.slug for spec in specs]
        else:
            self._domains_of, self._all, self._vectors = source._domains_of, source._all, source._vectors
            self.domains = source.domains
        self._papers = [paper for paper in self._all if until is None or paper.announced <= until]
        self.max_date = max(paper.announced for paper in self._papers)
        self.fingerprint = f"lite-{len(self._papers)}-{self.max_date}"
        self.path = corpus

    def truncated(self, until: date) -> LiteKB:
        """The same KB cut at ``until`` (as if built from files up to that day)."""
        return LiteKB(self.path, until=until, source=self)

    def papers(self, until: date | None = None, since: date | None = None, domain: str | None = None,
               statuses: Sequence[str] = ("core", "support")) -> list[Paper]:
        """Screened papers in [since, until], announcement order."""
        return [paper for paper in self._papers if (until is None or paper.announced <= until)
                and (since is None or paper.announced >= since)
                and (domain is None or domain in self._domains_of[paper.paper_id])]

    def embeddings(self, paper_ids: Sequence[str]) -> np.ndarray:
        """Hashed vectors in the order of the ids."""
        if not paper_ids:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        return np.stack([self._vectors[paper_id] for paper_id in paper_ids])


class CutoffKB:
    """Any KB seen as if it had been built from files up to ``cutoff`` (max_date = cutoff)."""

    def __init__(self, kb: Any, cutoff: date) -> None:
        self._kb, self.max_date, self.domains = kb, cutoff, kb.domains
        self.fingerprint, self.path = f"{kb.fingerprint}@{cutoff}", kb.path

    def papers(self, until: date | None = None, since: date | None = None, domain: str | None = None,
               statuses: Sequence[str] = ("core", "support")) -> list[Paper]:
        """Papers up to the cutoff (and ``until``)."""
        bound = self.max_date if until is None else min(until, self.max_date)
        return list(self._kb.papers(until=bound, since=since, domain=domain, statuses=tuple(statuses)))

    def embeddings(self, paper_ids: Sequence[str]) -> np.ndarray:
        """Embeddings of the given (pre-cutoff) papers."""
        return np.asarray(self._kb.embeddings(list(paper_ids)))


STAGE_PREFIXES = (("taxonomy", re.compile(r"^(?P<domain>\S+): taxonomy at ")),
                  ("evidence", re.compile(r"^(?P<domain>\S+): routing ")),
                  ("taxonomy", re.compile(r"^taxonomies of (?P<domain>\d+ domains) at \S+: inducing on "
                                          r"(?P<workers>\d+) processes")),
                  ("domains", re.compile(r"^(?P<domain>\d+ domains) at \S+: taxonomy, evidence and "
                                         r"candidates on (?P<workers>\d+) processes")),
                  ("building", re.compile(r"^(?P<domain>\S+): building tasks")))


def timed_build(kb_path: Path, cutoff: date, out: Path) -> dict[str, Any]:
    """Build one release at ``cutoff`` in this process (fresh taxonomy folder) and time its stages."""
    from foresci.kb.store import KnowledgeBase

    started_wall, started_cpu = time.perf_counter(), time.process_time()
    started_children = _children_cpu()
    marks: list[tuple[float, str]] = []

    def mark(message: str) -> None:
        marks.append((time.perf_counter(), message))

    kb = KnowledgeBase.open(kb_path, Settings())
    opened = time.perf_counter()
    mark("domains with papers (first read of the KB's papers)")
    build_release(kb, out / "release", cutoff, windows=("3m", "6m"), settings=Settings(),
                  taxonomy_dir=out / "taxonomy", progress=mark)
    ended = time.perf_counter()
    stages: dict[str, float] = {}
    families: dict[str, float] = {}
    for (at, message), (after, _) in zip(marks, [*marks[1:], (ended, "")], strict=True):
        label = message
        for stage, pattern in STAGE_PREFIXES:
            found = pattern.match(message)
            if found:
                label = f"{stage} {found.group('domain')}"
                if "workers" in found.groupdict():
                    label += f" side by side on {found.group('workers')} processes"
        if message.startswith("built candidates: "):
            label = "selecting tasks"
            for part in message.removeprefix("built candidates: ").split(", "):
                family, seconds = part.rsplit(" ", 2)[:2]
                families[family] = float(seconds)
        stages[label] = stages.get(label, 0.0) + after - at
    children = _children_cpu() - started_children
    busiest = [float(found.group(1)) for _, message in marks
               if (found := re.search(r"busiest process (\S+) s CPU", message))]
    return {"cutoff": cutoff.isoformat(), "wall_s": ended - started_wall, "busiest_cpu_s": sum(busiest),
            "cpu_s": time.process_time() - started_cpu + children, "children_cpu_s": children,
            "open_s": opened - started_wall, "stages": stages,
            "families": families,
            "peak_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
            "children_peak_gib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20}


def _children_cpu() -> float:
    """CPU seconds of this process's finished child processes (the forked domain workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _child_build(kb_path: Path, cutoff: date, out: Path) -> dict[str, Any]:
    """:func:`timed_build` in a fresh interpreter (no caches from an earlier build), its figures as JSON."""
    import json
    import shutil
    import subprocess

    shutil.rmtree(out, ignore_errors=True)
    command = [sys.executable, __file__, "--speed-child", "--kb", str(kb_path),
               "--cutoff", cutoff.isoformat(), "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def speed(kb_path: Path, cutoffs: Sequence[date], out: Path, max_seconds: float, warm_up: bool) -> int:
    """Time `tasks build` at each cutoff (see the module docstring); 0 when every build is within
    ``max_seconds`` of wall time."""
    from foresci.tasks.parallel_taxonomies import WORKERS_VARIABLE, usable_cores

    names = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "FORESCI_RUNTIME__THREADS", WORKERS_VARIABLE)
    threads = {name: os.environ.get(name, "unset") for name in names}
    cache = os.environ.get("FORESCI_CACHE_DIR", "-")
    print(f"tasks build speed on {kb_path}; threads: {threads}; usable cores {usable_cores()} (release "
          f"processes: {WORKERS_VARIABLE} or one per core); cache {cache}")
    passed = True
    walls: dict[date, float] = {}
    for cutoff in cutoffs:
        folder = out / cutoff.isoformat()
        if warm_up:
            first = _child_build(kb_path, cutoff, folder)
            print(f"{cutoff} warm-up build: {first['wall_s']:.1f} s wall, {first['cpu_s']:.1f} s CPU")
        load_before = _load()
        figures = _child_build(kb_path, cutoff, folder)
        within = figures["wall_s"] <= max_seconds
        passed &= within
        walls[cutoff] = figures["wall_s"]
        print(f"{cutoff} tasks build: {figures['wall_s']:.1f} s wall, {figures['cpu_s']:.1f} s CPU (of which "
              f"{figures.get('children_cpu_s', 0.0):.1f} s in forked processes), peak "
              f"{figures['peak_gib']:.2f} GiB (largest forked process "
              f"{figures.get('children_peak_gib', 0.0):.2f} GiB); load average before {load_before}, after "
              f"{_load()} "
              f"(goal <= {max_seconds:g} s wall: {'ok' if within else 'MISSED'})")
        if figures.get("busiest_cpu_s"):
            own = figures["cpu_s"] - figures["children_cpu_s"]
            print(f"  on idle cores (an estimate, not the goal's measure): this process's {own:.1f} s CPU + "
                  f"the busiest forked process's {figures['busiest_cpu_s']:.1f} s = "
                  f"{own + figures['busiest_cpu_s']:.1f} s")
        print(f"  {'opening the KB':60s} {figures['open_s']:6.1f} s")
        totals: dict[str, float] = {}
        for label, seconds in figures["stages"].items():
            print(f"  {label:60s} {seconds:6.1f} s")
            stage = label.split(" ")[0] if label.split(" ")[0] in ("taxonomy", "evidence", "building",
                                                                   "domains") else "other"
            totals[stage] = totals.get(stage, 0.0) + seconds
        print("  totals: " + ", ".join(f"{stage} {seconds:.1f} s" for stage, seconds in totals.items()))
        print("  family builders (seconds summed over domains, in their processes): "
              + ", ".join(f"{family} {seconds:.1f} s" for family, seconds in figures["families"].items()))
    if walls:
        hardest = max(walls, key=lambda cutoff: walls[cutoff])
        print(f"hardest cutoff: {hardest} ({walls[hardest]:.1f} s wall; goal <= {max_seconds:g} s at every "
              f"cutoff: {'ok' if passed else 'MISSED'})")
    return 0 if passed else 1


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kb", type=Path, help="embedded KB folder (foresci kb build)")
    parser.add_argument("--corpus", type=Path, help="daily arXiv folder, with --fast")
    parser.add_argument("--fast", action="store_true", help="keyword screen + hashed vectors (no KB needed)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--cutoff", type=date.fromisoformat, default=date(2025, 12, 31))
    parser.add_argument("--per-family", type=int, default=25)
    parser.add_argument("--taxonomy-dir", type=Path, help="reuse/save T(d,t) here (default OUT-taxonomy)")
    parser.add_argument("--max-seconds", type=float, default=60.0,
                        help="goal for the release build when its taxonomies are induced from scratch")
    parser.add_argument("--max-peak-gib", type=float, default=1.5, help="goal for the process's peak RSS")
    parser.add_argument("--rf", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "releases"
                        / "researchforesight-quarter")
    parser.add_argument("--speed", action="store_true", help="time `tasks build` at each --speed-cutoff")
    parser.add_argument("--speed-cutoff", type=date.fromisoformat, action="append", default=[],
                        help="cutoff to time with --speed (repeatable; default 2025-06-30, 2025-09-30 and "
                             "2025-12-31)")
    parser.add_argument("--max-build-seconds", type=float, default=15.0, help="goal of --speed (wall time)")
    parser.add_argument("--no-warm-up", action="store_true", help="with --speed: no untimed first build")
    parser.add_argument("--speed-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.speed_child:
        import json

        print(json.dumps(timed_build(args.kb, args.cutoff, args.out)))
        return 0
    if args.speed:
        if args.kb is None:
            parser.error("--speed needs --kb")
        cutoffs = args.speed_cutoff or [date(2025, 6, 30), date(2025, 9, 30), date(2025, 12, 31)]
        return speed(args.kb, cutoffs, args.out, args.max_build_seconds, not args.no_warm_up)
    taxonomy_dir = args.taxonomy_dir or args.out.with_name(args.out.name + "-taxonomy")
    kb: Any
    if args.kb is not None:
        from foresci.kb.store import KnowledgeBase

        kb = KnowledgeBase.open(args.kb, Settings())
        truncated = CutoffKB(kb, args.cutoff)
    elif args.fast and args.corpus is not None:
        say(f"ingesting and keyword-screening {args.corpus}")
        kb = LiteKB(args.corpus)
        truncated = kb.truncated(args.cutoff)
    else:
        parser.error("give --kb, or --corpus with --fast")
    say(f"KB: {len(kb.papers())} screened papers up to {kb.max_date}; domains {kb.domains}")
    from_scratch = not taxonomy_dir.exists()
    started = time.perf_counter()
    build_release(kb, args.out, args.cutoff, windows=("3m", "6m"), settings=Settings(),
                  per_family=args.per_family,
                  taxonomy_dir=taxonomy_dir, progress=say)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB -> GiB
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"release build: {seconds:.1f} s, peak RSS {peak:.2f} GiB (whole process), load average {load}; "
          f"taxonomies {'induced from scratch' if from_scratch else 'reused from ' + str(taxonomy_dir)}")
    release = load_release(args.out)
    report = audit_tasks(release.tasks, load_hidden(args.out))
    say("release built")
    print(render_audit(report))
    counts = Counter(task.family for task in release.tasks)
    domains = {task.domain for task in release.tasks}
    enough = all(counts[family] >= args.per_family for family in family_names())
    goals = [enough, len(domains) >= 4, report.passed]
    print(f"tasks by family: {dict(counts)}; domains: {sorted(domains)}")
    if args.rf.is_dir():
        rf_out = args.out.with_name(args.out.name + "-rf")
        import_researchforesight(args.rf, rf_out, kb.papers())
        rf = load_release(rf_out)
        say("ResearchForesight import")
        print(render_audit(audit_tasks(rf.tasks, load_hidden(rf_out))))
    package = args.out.with_name(args.out.name + "-package")
    make_package(truncated or kb, package, args.cutoff, window="3m", n=12, settings=Settings(),
                 taxonomy_dir=taxonomy_dir)
    resolved = resolve_package(package, kb)
    say("package made from the truncated KB and resolved against the full one")
    questions = {row["question_id"]: row for row in iter_jsonl(package / "forecast.jsonl")}
    for row in iter_jsonl(resolved):
        question = questions[row["question_id"]]
        print(f"  {question['kind']:7s} {question['params']['family']:23s} "
              f"baseline={question['baseline']!s:8s} "
              f"outcome={row['outcome']}  {question['text'][:90]}")
    goals.append(resolved.is_file())
    if from_scratch:
        within = seconds <= args.max_seconds and peak <= args.max_peak_gib
        print(f"release build from scratch: {seconds:.1f} s (goal <= {args.max_seconds:g}), peak "
              f"{peak:.2f} GiB (goal <= {args.max_peak_gib:g}): {'ok' if within else 'MISSED'}")
        goals.append(within)
    return 0 if all(goals) else 1


if __name__ == "__main__":
    sys.exit(main())
