"""One day's `kb update` on a built KB: its wall time against the day's own embedding time.

Goals (exit status 1 when one is missed):
  * the update (ingest, embed, screen, index, write, swap) takes <= --max-seconds (5 s)
  * and <= --max-ratio (2) x the time the embedding model takes for the same day's texts alone

The KB is copied (`cp -r`) into --workdir first (the original is never written). The day is a real
daily file announced after the KB's last day (--day), or, by default, a stand-in for the next day: the
rows of the median-sized corpus day with their ids moved out of arXiv's range (YYMM.99NNN) and the file
dated the day after the KB's last day (real titles and abstracts, never embedded before: the update's
embedding cache starts empty of them). The model is loaded before either timing (both exclude it), and
the KB's derived postings and row dates and the domains' seed vectors are cached first, as the day
before's update left them: by default that day's update is run first (a stand-in day of its own, the
corpus day just above the median, ids YYMM.98NNN), so the measured update is a steady-state one (the
KB in segments, its term table written; --no-warm-up, or --day, times the first update after the build
instead). Each update (--update-repeats, median kept) runs on a fresh hard-linked copy of the KB with a
fresh copy of that cache.

Printed: the update's time split into its embedding stage and the rest (ingest, screen, term counts,
write, swap), its stage timings, the day's embedding alone on one worker (the ratio's denominator) and on
the update's workers (the floor of the update's own embedding stage), threads and load average; with
--before (an earlier run's --json, e.g. of the code before a change) a before/after table of the split.

The day's texts are what the KB embeds (its ``embed_field``): a titles KB (the issue's goal) is built
with ``FORESCI_KB__EMBED_FIELD=title foresci kb build CORPUS --out KB``; a title + abstract KB (field
``text``, e.g. /work/kbs/real) embeds ~250-token texts, whose embedding alone on 2 cores outlasts 5 s
for a day of ~300 papers.

Examples:
  OMP_NUM_THREADS=1 python benchmarks/kb_update.py --kb /work/kbs/real --workdir /tmp/kbupdate
  OMP_NUM_THREADS=1 python benchmarks/kb_update.py --kb KB --day corpus/2026-07-02.jsonl.gz --workdir W
  PYTHONPATH=../main python benchmarks/kb_update.py --kb KB --workdir W1 --json before.json  # main's code
  python benchmarks/kb_update.py --kb KB --workdir W2 --before before.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from foresci.core.settings import Settings

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = Path(os.environ.get("FORESCI_SHARED", REPO.parent / "shared")) / "corpora" / "arxiv-daily"


def stand_in_day(corpus: Path, after: date, folder: Path, rank: int = 0, block: int = 99) -> Path:
    """A daily file dated the day after ``after``: the rows of the median-sized corpus day of the last 60
    (``rank`` places above the median), ids moved to ``YYMM.<block>NNN``, a number arXiv has not reached
    in a month."""
    days = sorted(corpus.glob("*.jsonl.gz"))
    sizes = []
    for path in days[-60:]:
        with gzip.open(path, "rt", encoding="utf-8") as rows:
            sizes.append((sum(1 for _ in rows), path))
    _, source = sorted(sizes)[min(len(sizes) - 1, len(sizes) // 2 + rank)]
    announced = after + timedelta(days=1)
    target = folder / f"{announced.isoformat()}.jsonl.gz"
    with gzip.open(source, "rt", encoding="utf-8") as rows, gzip.open(target, "wt", encoding="utf-8") as out:
        for number, line in enumerate(rows):
            row = json.loads(line)
            row["id"] = f"{announced:%y%m}.{block}{number:03d}"
            out.write(json.dumps(row) + "\n")
    return target


def day_texts(day: Path, field: str) -> list[str]:
    """The distinct texts the update embeds for the papers of ``day``."""
    from foresci.kb.build import embedding_text
    from foresci.kb.ingest import ingest

    texts = [embedding_text(paper, field) for paper in ingest([day], 200_000).papers]
    return list(dict.fromkeys(texts))  # the model sees each distinct text once (so does the update)


def prepared_copy(kb: Path, template: Path, folder: Path) -> tuple[Path, Settings]:
    """A hard-linked copy of ``kb`` (an update never writes a file in place) with its own copy of the
    prepared cache ``template`` (seed vectors, derived postings): one update's starting point."""
    from foresci.core.settings import Settings

    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    subprocess.run(["cp", "-al", str(kb), str(folder / "kb")], check=True)
    for lock in (folder / "kb").glob(".foresci.lock*"):
        lock.unlink()
    subprocess.run(["cp", "-r", str(template), str(folder / "cache")], check=True)
    return folder / "kb", Settings(cache_dir=folder / "cache")


def before_after(before: dict[str, Any], after: dict[str, Any]) -> str:
    """A table of the update's time split (embedding, the rest) before and after."""
    lines = [f"{'':24}{'before':>10}{'after':>10}"]
    for key in ("update_s", "update_embed_s", "update_rest_s", "day_embedding_s", "ratio"):
        old, new = before.get(key), after.get(key)
        lines.append(f"{key:24}{'-' if old is None else old:>10}{'-' if new is None else new:>10}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--kb", type=Path, required=True, help="a built KB (copied, never written)")
    parser.add_argument("--workdir", type=Path, required=True, help="where the copy and caches go")
    parser.add_argument("--day", type=Path, default=None, help="a daily file after the KB's last day")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="for the stand-in day")
    parser.add_argument("--max-seconds", type=float, default=5.0)
    parser.add_argument("--max-ratio", type=float, default=2.0)
    parser.add_argument("--embed-repeats", type=int, default=3, help="embedding timings (median kept)")
    parser.add_argument("--update-repeats", type=int, default=3,
                        help="updates, each on a fresh copy (median kept)")
    parser.add_argument("--no-warm-up", dest="warm_up", action="store_false",
                        help="time the first update of the KB as built (no stand-in day before it)")
    parser.add_argument("--before", type=Path, default=None,
                        help="the --json of an earlier run (e.g. the code before a change): print both")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()

    from foresci.core.settings import Settings
    from foresci.embedders.embedder import Embedder, embed_workers
    from foresci.kb.build import update_kb
    from foresci.kb.store import KnowledgeBase

    workdir = args.workdir
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    kb_copy = workdir / "kb"
    subprocess.run(["cp", "-r", str(args.kb), str(kb_copy)], check=True)
    for lock in kb_copy.glob(".foresci.lock*"):
        lock.unlink()
    template = workdir / "cache"
    settings = Settings(cache_dir=template)
    kb = KnowledgeBase.open(kb_copy, settings)
    field = kb.meta.get("embed_field", "text")
    seeds = [text for spec in kb.domain_specs for text in spec.seed_descriptions]
    cached = Embedder(
        model=settings.embed.model, cache_dir=settings.cache_dir, backend=settings.runtime.encoder
    )
    cached.encode(seeds)  # the domains' seed vectors, cached by every earlier build or update
    if cached.cache:
        cached.cache.close()
    last, built_size = kb.max_date, kb.size
    kb.close()
    warm_up = None
    if args.warm_up and args.day is None:  # the day before's update, on its own copy of the cache
        warm_up = stand_in_day(args.corpus, last, workdir, rank=1, block=98)
        shutil.copytree(template, workdir / "warm-up-cache")
        update_kb(kb_copy, [warm_up], Settings(cache_dir=workdir / "warm-up-cache"))
        shutil.rmtree(workdir / "warm-up-cache")
    kb = KnowledgeBase.open(kb_copy, settings)
    kb.bm25_postings  # noqa: B018  (derive and cache them, as the previous day's update left them)
    last, before_size = kb.max_date, kb.size
    kb.close()
    day = args.day or stand_in_day(args.corpus, last, workdir)
    texts = day_texts(day, field)

    model = Embedder(model=settings.embed.model, cache_dir=None, backend=settings.runtime.encoder)
    model.encode(["warm up the encoder"])
    embed_seconds = []
    for _ in range(args.embed_repeats):
        started = time.perf_counter()
        model.encode_uncached(texts)
        embed_seconds.append(time.perf_counter() - started)
    embed = statistics.median(embed_seconds)
    workers = embed_workers(settings)
    parallel = Embedder(model=settings.embed.model, cache_dir=None, backend=settings.runtime.encoder,
                        onnx_batch_size=settings.runtime.encoder_batch_size, workers=workers)
    parallel.encode_uncached(texts[:1] * (settings.runtime.encoder_batch_size + 1))  # its sessions
    started = time.perf_counter()
    parallel.encode_uncached(texts)
    embed_workers_s = time.perf_counter() - started

    runs = []
    for repeat in range(max(1, args.update_repeats)):
        path, run_settings = prepared_copy(kb_copy, template, workdir / f"run{repeat}")
        run_settings = run_settings.model_copy(
            update={"kb": run_settings.kb.model_copy(update={"embed_field": field})}
        )
        load_before = os.getloadavg()
        started = time.perf_counter()
        summary = update_kb(path, [day], run_settings)
        seconds = time.perf_counter() - started
        runs.append((seconds, summary, load_before, os.getloadavg()))
        shutil.rmtree(workdir / f"run{repeat}")
    update_seconds, summary, load_before, load_after = sorted(runs, key=lambda run: run[0])[len(runs) // 2]
    update_embed = summary.timings.get("embed", 0.0)

    figures = {
        "kb": str(args.kb),
        "embed_field": field,
        "day": str(day),
        "warm_up_day": str(warm_up) if warm_up else None,
        "papers_built": built_size,
        "papers_before": before_size,
        "papers_after": summary.papers,
        "added": summary.added,
        "embedded": summary.embedded,
        "mode": summary.mode,
        "update_s": round(update_seconds, 3),
        "update_runs_s": [round(run[0], 3) for run in runs],
        "update_embed_s": round(update_embed, 3),
        "update_rest_s": round(update_seconds - update_embed, 3),
        "stages_s": summary.timings,
        "day_embedding_s": round(embed, 3),
        "day_embedding_workers_s": round(embed_workers_s, 3),
        "embed_workers": workers,
        "ratio": round(update_seconds / embed, 2) if embed else None,
        "threads": os.environ.get("OMP_NUM_THREADS", "unset"),
        "load_before": load_before,
        "load_after": load_after,
    }
    print(json.dumps(figures, indent=2))
    if args.before:
        print(before_after(json.loads(args.before.read_text(encoding="utf-8")), figures))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")
    misses = []
    if summary.added == 0:
        misses.append("the update added no paper (is --day after the KB's last day?)")
    if update_seconds > args.max_seconds:
        misses.append(f"update {update_seconds:.2f} s > {args.max_seconds} s")
    if embed and update_seconds > args.max_ratio * embed:
        misses.append(f"update {update_seconds:.2f} s > {args.max_ratio} x the day's embedding {embed:.2f} s")
    for miss in misses:
        print(f"MISS: {miss}", file=sys.stderr)
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
