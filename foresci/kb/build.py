"""Build and update a knowledge base folder (see :mod:`foresci.kb.store` for the layout).

``build_kb`` ingests every source, embeds (content-addressed cache: nothing is embedded twice),
screens per domain, indexes (BM25 term counts + vectors for FAISS) and swaps the new generation
in atomically. ``update_kb`` appends papers announced after the KB's last day as a new segment,
writing only them (:mod:`foresci.kb.append`); anything else (a back-fill) rebuilds every index. Both
hold the folder's write lock (:func:`foresci.core.locks.artifact_lock`): a second writer exits with a
one-line error instead of racing.
"""

from __future__ import annotations

import shutil
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from foresci.core.artifacts import (
    is_reusable,
    read_manifest,
    refresh_hashes,
    sha256_file,
    sha256_json,
    write_manifest,
)
from foresci.core.errors import InputDataError, UserError, naming_the_file
from foresci.core.io import read_json, write_json, write_jsonl
from foresci.core.locks import artifact_lock
from foresci.core.settings import Settings
from foresci.kb.append import new_terms_counts, write_appended_generation, write_appended_manifest
from foresci.kb.bm25 import BM25Index
from foresci.kb.domains import DomainSpec, load_domains
from foresci.kb.ingest import IngestResult, QuarantinedRow, dedup_papers, discover_sources, ingest
from foresci.kb.models import Paper, ScreenDecision
from foresci.kb.screen import DomainScreener, screen_papers
from foresci.kb.store import CURRENT_NAME, KnowledgeBase, live_generation, write_generation_db

KB_KIND = "kb"
OUTPUT_FILES = [
    "papers.sqlite",
    "vectors.npy",
    "bm25_counts.npz",
    "bm25_vocabulary.json",
    "bm25_terms.bin",  # the vocabulary as a mapped term table (foresci.kb.vocabulary)
    "quarantine.jsonl",
    "summary.json",
    "dense_ivf.faiss",  # only in KBs above runtime.approximate_above
    "dense_hnsw.faiss",  # only in KBs above runtime.graph_above, up to runtime.approximate_above
]


class BuildSummary(BaseModel):
    """What a build or update did."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(description="the KB folder")
    generation: str = Field(description="name of the live generation folder")
    fingerprint: str
    reused: bool = Field(default=False, description="true when an identical KB already existed")
    mode: str = Field(default="build", description="build | append | reorder | unchanged")
    papers: int = Field(description="papers in the KB after this step")
    added: int = Field(description="papers added by this step")
    rows_read: int = Field(default=0, description="non-blank rows read from the sources")
    duplicates: int = Field(default=0, description="rows of papers already seen (earliest date kept)")
    quarantined: int = Field(default=0, description="rows quarantined by this step")
    quarantine_reasons: dict[str, int] = Field(default_factory=dict)
    embedded: int = Field(default=0, description="texts embedded by the model in this step")
    embedding_reused: int = Field(default=0, description="vectors taken from the cache or the previous KB")
    screen_counts: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="domain -> status -> n"
    )
    min_date: date | None = None
    max_date: date | None = None
    timings: dict[str, float] = Field(default_factory=dict, description="seconds per stage")


def _reason_kind(reason: str) -> str:
    return (
        reason.split(":")[0]
        if not reason.startswith(("bad JSON", "not UTF-8", "absurd size"))
        else reason.split(":")[0]
    )


def _hash_inputs(sources: Sequence[Path]) -> dict[str, Any]:
    files = discover_sources(list(sources))
    return {"files": {str(item.path.resolve()): sha256_file(item.path) for item in files}}


def _kb_config(settings: Settings, domains: Sequence[DomainSpec]) -> dict[str, Any]:
    return {
        "embed_model": settings.embed.model,
        "kb": settings.kb.model_dump(mode="json"),
        "domains": sha256_json([spec.model_dump(mode="json") for spec in domains]),
    }


@contextmanager
def _stage(timings: dict[str, float], name: str) -> Iterator[None]:
    started = time.perf_counter()
    yield
    timings[name] = round(timings.get(name, 0.0) + time.perf_counter() - started, 3)


class _Progress:
    """Rich progress bars when asked for, silent otherwise."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._progress: Any = None

    def __enter__(self) -> _Progress:
        if self.enabled:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                _rate_column(),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
            )
            self._progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)

    def task(self, description: str, total: int, unit: str = "") -> Callable[[int], None]:
        """Start a bar (showing ``unit``/s when a unit is given); return a function advancing it."""
        if self._progress is None:
            return lambda amount: None
        task_id = self._progress.add_task(description, total=total, unit=unit)
        return lambda amount: self._progress.advance(task_id, amount)


def _rate_column() -> Any:
    """A rich progress column: the bar's recent rate in its unit per second (e.g. "21.4 papers/s"); made
    on demand, as rich loads only when a bar is shown."""
    from rich.progress import ProgressColumn
    from rich.text import Text

    class RateColumn(ProgressColumn):
        def render(self, task: Any) -> Text:
            unit = task.fields.get("unit")
            if not unit or not task.speed:
                return Text("")
            return Text(f"{task.speed:.1f} {unit}/s", style="progress.data.speed")

    return RateColumn()


def embedding_text(paper: Paper, field: str) -> str:
    """The text embedded for a paper under ``settings.kb.embed_field``."""
    return paper.title if field == "title" else paper.text


def embed_papers(
    papers: Sequence[Paper],
    settings: Settings,
    progress: _Progress,
    known: dict[str, np.ndarray] | None = None,
) -> tuple[np.ndarray, int, int]:
    """Embeddings of ``papers`` (row order); ``known`` maps texts to vectors already at hand.

    The texts not known are embedded chunk by chunk (``settings.kb.embed_chunk``), each chunk on
    ``runtime.embed_workers`` cores and stored in the embedding cache as soon as it is done, so a build
    killed midway embeds again only the chunk it was in. Returns (vectors, computed by the model, reused).
    """
    from foresci.embedders.embedder import embedder_from_settings

    embedder = embedder_from_settings(settings)
    known = known or {}
    texts = [embedding_text(paper, settings.kb.embed_field) for paper in papers]
    todo = [index for index, text in enumerate(texts) if text not in known]
    advance = progress.task(_embed_label(embedder, settings), len(texts), unit="papers")
    advance(len(texts) - len(todo))
    dimension: int | None = next((len(vector) for vector in known.values()), None)
    parts: dict[int, np.ndarray] = {}
    chunk = max(1, settings.kb.embed_chunk)
    chunks = [todo[start : start + chunk] for start in range(0, len(todo), chunk)]
    encoded = _encode_chunks(embedder, texts, chunks, settings, advance)
    for indices, vectors in zip(chunks, encoded, strict=True):
        for index, vector in zip(indices, vectors, strict=True):
            parts[index] = vector
        dimension = vectors.shape[1]
    if dimension is None:
        dimension = embedder.dimension
    matrix = np.zeros((len(texts), dimension), dtype=np.float32)
    for index, text in enumerate(texts):
        matrix[index] = parts[index] if index in parts else known[text]
    reused = len(texts) - embedder.computed
    return matrix, embedder.computed, reused


def _embed_label(embedder: Any, settings: Settings) -> str:
    """The embed bar's title: where the model work runs."""
    if settings.runtime.engine == "ray":
        return "embed (ray)"
    parallel = embedder.workers > 1 and embedder.backend == "onnx"  # torch encodes one batch at a time
    return f"embed ({embedder.workers} cores)" if parallel else "embed"


def screen_all(
    papers: Sequence[Paper], vectors: np.ndarray, domains: Sequence[DomainSpec], settings: Settings
) -> list[ScreenDecision]:
    """Rule + similarity screen of every paper for every domain, then the optional LLM screen."""
    decisions = screen_papers(papers, vectors, _screeners(domains, settings))
    if settings.kb.llm_screen and settings.llm.configured:
        from foresci.kb.llm_screen import llm_rescreen

        decisions = llm_rescreen(decisions, papers, domains, settings)
    return decisions


def _screeners(domains: Sequence[DomainSpec], settings: Settings) -> list[DomainScreener]:
    from foresci.embedders.embedder import embedder_from_settings

    embedder = embedder_from_settings(settings)
    return [DomainScreener(spec, embedder.encode(spec.seed_descriptions), settings.kb) for spec in domains]


def _next_generation(out: Path) -> Path:
    numbers = [
        int(path.name.split("-", 1)[1])
        for path in out.glob("gen-*")
        if path.is_dir() and path.name.split("-", 1)[1].isdigit()
    ]
    folder = out / f"gen-{max(numbers, default=0) + 1:04d}"
    folder.mkdir(parents=True)
    return folder


def _swap_in(out: Path, generation: Path) -> None:
    """Point CURRENT at ``generation`` atomically; keep the generation it replaces (readers may still
    be using it), remove every other one (older or half-written)."""
    previous = (
        (out / CURRENT_NAME).read_text(encoding="utf-8").strip() if (out / CURRENT_NAME).is_file() else ""
    )
    pointer = out / f".{CURRENT_NAME}.tmp"
    pointer.write_text(generation.name + "\n", encoding="utf-8")
    pointer.replace(out / CURRENT_NAME)
    _copy_manifest(out, generation)
    for stale in out.glob("gen-*"):
        if stale.name not in (generation.name, previous) and stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)


def _final_summary(out: Path, generation: Path, summary: BuildSummary) -> None:
    """Rewrite ``summary.json`` with the final timings and keep its manifest hash true to it."""
    write_json(generation / "summary.json", summary)
    refresh_hashes(generation, ["summary.json"])
    _copy_manifest(out, generation)


def _copy_manifest(out: Path, generation: Path) -> None:
    """Refresh the top-level copy of the live generation's manifest (for people; reuse never reads it)."""
    shutil.copyfile(generation / "manifest.json", out / ".manifest.json.tmp")
    (out / ".manifest.json.tmp").replace(out / "manifest.json")


def _write_generation(
    out: Path,
    papers: Sequence[Paper],
    vectors: np.ndarray,
    decisions: Sequence[ScreenDecision],
    bm25: BM25Index,
    domains: Sequence[DomainSpec],
    quarantined: Sequence[QuarantinedRow],
    summary: BuildSummary,
    inputs: dict[str, Any],
    config: dict[str, Any],
    settings: Settings,
    copy_from: Path | None = None,
) -> Path:
    generation = _next_generation(out)
    try:  # a failed write (a full disk) names its file and leaves no half-written generation behind
        with naming_the_file(generation):
            _fill_generation(generation, papers, vectors, decisions, bm25, domains, quarantined, summary,
                             inputs, config, settings, copy_from)
    except BaseException:
        shutil.rmtree(generation, ignore_errors=True)
        raise
    return generation


def _fill_generation(
    generation: Path,
    papers: Sequence[Paper],
    vectors: np.ndarray,
    decisions: Sequence[ScreenDecision],
    bm25: BM25Index,
    domains: Sequence[DomainSpec],
    quarantined: Sequence[QuarantinedRow],
    summary: BuildSummary,
    inputs: dict[str, Any],
    config: dict[str, Any],
    settings: Settings,
    copy_from: Path | None,
) -> None:
    """Write every file of the new ``generation`` folder."""
    meta = _generation_meta(settings, vectors.shape[1])
    with naming_the_file(generation / "papers.sqlite"):
        write_generation_db(generation, papers, decisions, domains, meta, copy_from=copy_from)
    with naming_the_file(generation / "vectors.npy"):
        np.save(generation / "vectors.npy", vectors, allow_pickle=False)
    if len(vectors) > settings.runtime.approximate_above:  # large KB: an IVF index beside the vectors
        from foresci.kb.dense import build_ivf, write_index

        write_index(generation, build_ivf(vectors))
    elif len(vectors) > settings.runtime.graph_above:  # mid-sized KB: an HNSW graph
        from foresci.kb.dense import HNSW_FILE, build_hnsw, day_starts, write_index

        ordinals = np.asarray([paper.announced.toordinal() for paper in papers], dtype=np.int64)
        write_index(generation, build_hnsw(vectors, day_starts(ordinals)), HNSW_FILE)
    bm25.save(generation)
    write_jsonl(generation / "quarantine.jsonl", quarantined)
    summary.generation = generation.name
    summary.fingerprint = read_manifest_fingerprint(inputs, config)
    write_json(generation / "summary.json", summary)
    write_manifest(
        generation,
        KB_KIND,
        inputs=inputs,
        config=config,
        files=OUTPUT_FILES,
        counts={
            "papers": summary.papers,
            "quarantined": summary.quarantined,
            "screens": summary.screen_counts,
        },
    )


def _generation_meta(settings: Settings, dimension: int) -> dict[str, str]:
    """The build facts stored in ``papers.sqlite``'s meta table."""
    return {
        "embed_model": settings.embed.model,
        "dimension": str(dimension),
        "embed_field": settings.kb.embed_field,
        "built_on": date.today().isoformat(),
    }


def read_manifest_fingerprint(inputs: dict[str, Any], config: dict[str, Any]) -> str:
    """The fingerprint a manifest with these inputs and config gets."""
    from foresci.core.artifacts import fingerprint

    return fingerprint(KB_KIND, inputs, config)


def _count_screens(decisions: Sequence[ScreenDecision]) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = {}
    for item in decisions:
        bucket = counts.setdefault(item.domain, {})
        bucket[item.status] = bucket.get(item.status, 0) + 1
    return counts


def _quarantine_reasons(rows: Sequence[QuarantinedRow]) -> dict[str, int]:
    return dict(Counter(row.reason.split(":")[0] for row in rows).most_common())


def _require_papers(sources: Sequence[Path], result: IngestResult, allow_empty: bool) -> None:
    """An empty source or one whose every row is quarantined is an error unless ``allow_empty``."""
    if result.papers or allow_empty:
        return
    if result.quarantined:
        first = result.quarantined[0]
        raise InputDataError(
            f"no paper could be read: all {len(result.quarantined)} row(s) quarantined, the first for "
            f"{first.reason}",
            path=first.file,
            line=first.line,
        )
    raise InputDataError(
        "no papers found (no *.jsonl / *.jsonl.gz rows); pass --allow-empty to build an empty KB",
        path=", ".join(str(source) for source in sources),
    )


def _encode_chunks(
    embedder: Any,
    texts: Sequence[str],
    chunks: list[list[int]],
    settings: Settings,
    advance: Callable[[int], None],
) -> Iterator[np.ndarray]:
    """The vectors of each chunk of text indices, in order: here, or on Ray (``runtime.engine``)."""
    if settings.runtime.engine == "ray":
        from foresci.embedders.ray_embedding import embed_chunks_ray

        chunk_texts = [[texts[index] for index in indices] for indices in chunks]
        yield from embed_chunks_ray(embedder, chunk_texts, settings, advance)
        return
    for indices in chunks:  # each chunk reaches the cache before the next one starts
        yield embedder.encode([texts[index] for index in indices], on_encoded=advance)


def build_kb(
    sources: list[Path],
    out: Path,
    settings: Settings,
    domains_dirs: list[Path] | None = None,
    progress: bool = False,
    allow_empty: bool = False,
) -> BuildSummary:
    """Build a KB from ``sources`` (files or folders of any supported format) into ``out``.

    An identical earlier build (same input hashes, settings and domains, read from the live
    generation's own manifest) is reused as is. Sources with no paper are an error unless
    ``allow_empty``. Holds the write lock of ``out`` throughout.
    """
    out = Path(out)
    with artifact_lock(out):
        return _build_locked(sources, out, settings, domains_dirs, progress, allow_empty)


def _build_locked(
    sources: list[Path],
    out: Path,
    settings: Settings,
    domains_dirs: list[Path] | None,
    progress: bool,
    allow_empty: bool,
) -> BuildSummary:
    timings: dict[str, float] = {}
    domains = load_domains(domains_dirs, settings.kb.domains or None)
    with _stage(timings, "hash_inputs"):
        inputs = _hash_inputs(sources)
    config = _kb_config(settings, domains)
    if (out / CURRENT_NAME).is_file():
        live = live_generation(out)
        if is_reusable(live, KB_KIND, inputs, config):
            _copy_manifest(out, live)
            summary = BuildSummary.model_validate(read_json(live / "summary.json"))
            summary.reused = True
            return summary
    with _Progress(progress) as bars:
        with _stage(timings, "ingest"):
            files = discover_sources(sources)
            advance = bars.task("ingest", len(files))
            result: IngestResult = ingest(
                sources, settings.kb.max_row_bytes, on_file=lambda source, total: advance(1)
            )
        _require_papers(sources, result, allow_empty)
        with _stage(timings, "embed"):
            vectors, computed, reused = embed_papers(result.papers, settings, bars)
        with _stage(timings, "screen"):
            decisions = screen_all(result.papers, vectors, domains, settings)
        with _stage(timings, "bm25"):
            bm25 = BM25Index.empty().appended([paper.text for paper in result.papers])
        summary = BuildSummary(
            path=str(out),
            generation="",
            fingerprint="",
            mode="build",
            papers=len(result.papers),
            added=len(result.papers),
            rows_read=result.rows,
            duplicates=result.duplicates,
            quarantined=len(result.quarantined),
            quarantine_reasons=_quarantine_reasons(result.quarantined),
            embedded=computed,
            embedding_reused=reused,
            screen_counts=_count_screens(decisions),
            min_date=result.papers[0].announced if result.papers else None,
            max_date=result.papers[-1].announced if result.papers else None,
            timings=timings,
        )
        with _stage(timings, "write"):
            generation = _write_generation(
                out,
                result.papers,
                vectors,
                decisions,
                bm25,
                domains,
                result.quarantined,
                summary,
                inputs,
                config,
                settings,
            )
            _swap_in(out, generation)
    summary.timings = timings
    _final_summary(out, generation, summary)
    return summary


def update_kb(out: Path, sources: list[Path], settings: Settings, progress: bool = False) -> BuildSummary:
    """Add the papers of ``sources`` to the KB at ``out`` without recomputing existing papers.

    Papers already in the KB are skipped (their first announcement is kept). When every new paper is
    announced after the KB's last day, its rows are appended as a new segment and only they are
    written (mode ``append``, :mod:`foresci.kb.append`); otherwise (a back-fill, or more papers for a
    day the KB already holds) every index is rebuilt over all papers in announcement order, reusing
    every stored vector (mode ``reorder``): either way the KB equals the one built from scratch over
    the same sources.
    """
    out = Path(out)
    live_generation(out)  # not a KB: say so before taking (and creating) a lock in that folder
    with artifact_lock(out):
        return _update_locked(out, sources, settings, progress)


def _update_locked(out: Path, sources: list[Path], settings: Settings, progress: bool) -> BuildSummary:
    timings: dict[str, float] = {}
    kb = KnowledgeBase.open(out, settings)
    settings = _settings_of(kb, settings)
    domains = kb.domain_specs
    previous = read_manifest(kb.generation)
    with _stage(timings, "hash_inputs"):
        added_inputs = _hash_inputs(sources)
    inputs = {"files": {**previous.inputs.get("files", {}), **added_inputs["files"]}}
    config = previous.config
    with _Progress(progress) as bars:
        with _stage(timings, "ingest"):
            files = discover_sources(sources)
            advance = bars.task("ingest", len(files))
            result = ingest(sources, settings.kb.max_row_bytes, on_file=lambda source, total: advance(1))
        fresh = [paper for paper in result.papers if kb.row_of(paper.paper_id) is None]
        earlier = [
            paper
            for paper in result.papers
            if (row := kb.row_of(paper.paper_id)) is not None and paper.announced < kb.announced_at(row)
        ]
        append = not earlier and (kb.size == 0 or all(paper.announced > kb.max_date for paper in fresh))
        old_quarantine = list(_read_quarantine(kb.quarantine_path()))
        quarantined = merge_quarantine(old_quarantine, result.quarantined)
        if not fresh and not earlier and len(quarantined) == len(old_quarantine):  # nothing new at all
            kb.close()
            return _unchanged_summary(out, result, timings)
        if append and kb.size:
            with _stage(timings, "embed"):
                vectors, computed, reused = (
                    embed_papers(fresh, settings, bars)
                    if fresh
                    else (np.zeros((0, kb.vectors.shape[1]), dtype=np.float32), 0, 0)
                )
            with _stage(timings, "screen"):
                decisions = screen_all(fresh, vectors, domains, settings) if fresh else []
            with _stage(timings, "bm25"):
                counts = new_terms_counts(kb, [paper.text for paper in fresh])
            summary = _update_summary(
                out,
                kb.size + len(fresh),
                fresh,
                result,
                computed,
                reused,
                decisions,
                "append",
                kb.min_date,
                fresh[-1].announced if fresh else kb.max_date,
                timings,
            )
            previous_counts = kb.summary().get("screen_counts") or kb.screen_counts()
            summary.screen_counts = _merge_counts(previous_counts, summary.screen_counts)
            with _stage(timings, "write"):
                generation = _next_generation(out)
                written = write_appended_generation(
                    generation,
                    kb,
                    fresh,
                    vectors,
                    decisions,
                    counts,
                    domains,
                    _generation_meta(settings, vectors.shape[1]),
                    quarantined,
                    settings,
                )
                summary.generation = generation.name
                summary.fingerprint = read_manifest_fingerprint(inputs, config)
                write_json(generation / "summary.json", summary)
                write_appended_manifest(
                    generation,
                    kb,
                    [*written, "summary.json"],
                    KB_KIND,
                    inputs,
                    config,
                    {
                        "papers": summary.papers,
                        "quarantined": summary.quarantined,
                        "screens": summary.screen_counts,
                    },
                )
        else:
            merged, _ = dedup_papers(kb.all_papers() + result.papers)
            known = {
                embedding_text(paper, settings.kb.embed_field): kb.vectors[row]
                for row, paper in enumerate(kb.all_papers())
            }
            with _stage(timings, "embed"):
                vectors, computed, reused = embed_papers(merged, settings, bars, known=known)
            with _stage(timings, "screen"):
                decisions = screen_all(merged, vectors, domains, settings)
            with _stage(timings, "bm25"):
                bm25 = BM25Index.empty().appended([paper.text for paper in merged])
            summary = _update_summary(
                out,
                len(merged),
                fresh,
                result,
                computed,
                reused,
                decisions,
                "append" if append else "reorder",
                merged[0].announced,
                merged[-1].announced,
                timings,
            )
            with _stage(timings, "write"):
                generation = _write_generation(
                    out,
                    merged,
                    vectors,
                    decisions,
                    bm25,
                    domains,
                    quarantined,
                    summary,
                    inputs,
                    config,
                    settings,
                )
        kb.close()
        _swap_in(out, generation)
    summary.timings = timings
    _final_summary(out, generation, summary)
    return summary


def _unchanged_summary(out: Path, result: IngestResult, timings: dict[str, float]) -> BuildSummary:
    """The summary of an update that found nothing new: the live generation stays, nothing is written."""
    summary = BuildSummary.model_validate(read_json(live_generation(out) / "summary.json"))
    return summary.model_copy(
        update={
            "reused": True,
            "mode": "unchanged",
            "added": 0,
            "rows_read": result.rows,
            "duplicates": result.rows - len(result.quarantined),
            "quarantined": 0,
            "quarantine_reasons": {},
            "embedded": 0,
            "embedding_reused": 0,
            "timings": timings,
        }
    )


def _settings_of(kb: KnowledgeBase, settings: Settings) -> Settings:
    """``settings`` with the embedding choices the KB was built with (an update must not mix them)."""
    model = kb.meta.get("embed_model", settings.embed.model)
    if model != settings.embed.model:
        raise UserError(
            f"built with embedding model {model!r}, but the settings name {settings.embed.model!r}; "
            "rebuild instead of updating",
            path=kb.generation / "papers.sqlite",
            field="embed.model",
        )
    field = kb.meta.get("embed_field", "text")
    return settings.model_copy(update={"kb": settings.kb.model_copy(update={"embed_field": field})})


def _merge_counts(
    old: dict[str, dict[str, int]], new: dict[str, dict[str, int]]
) -> dict[str, dict[str, int]]:
    merged = {domain: dict(statuses) for domain, statuses in old.items()}
    for domain, statuses in new.items():
        for status, count in statuses.items():
            merged.setdefault(domain, {})[status] = merged.get(domain, {}).get(status, 0) + count
    return merged


def _update_summary(
    out: Path,
    total: int,
    fresh: Sequence[Paper],
    result: IngestResult,
    computed: int,
    reused: int,
    decisions: Sequence[ScreenDecision],
    mode: str,
    min_date: date | None,
    max_date: date | None,
    timings: dict[str, float],
) -> BuildSummary:
    return BuildSummary(
        path=str(out),
        generation="",
        fingerprint="",
        mode=mode,
        papers=total,
        added=len(fresh),
        rows_read=result.rows,
        duplicates=result.rows - len(result.quarantined) - len(fresh),
        quarantined=len(result.quarantined),
        quarantine_reasons=_quarantine_reasons(result.quarantined),
        embedded=computed,
        embedding_reused=reused,
        screen_counts=_count_screens(decisions),
        min_date=min_date,
        max_date=max_date,
        timings=timings,
    )


def quarantine_key(row: QuarantinedRow) -> tuple[str, int, str]:
    """The identity of a quarantined row: the same (file, line, reason) is recorded once."""
    return (str(Path(row.file).resolve()), row.line, row.reason)


def merge_quarantine(old: Sequence[QuarantinedRow], new: Sequence[QuarantinedRow]) -> list[QuarantinedRow]:
    """``old`` followed by the rows of ``new`` not already recorded (keyed by :func:`quarantine_key`)."""
    seen = {quarantine_key(row) for row in old}
    merged = list(old)
    for row in new:
        key = quarantine_key(row)
        if key not in seen:
            seen.add(key)
            merged.append(row)
    return merged


def _read_quarantine(path: Path) -> Iterator[QuarantinedRow]:
    from foresci.core.io import iter_jsonl

    if path.is_file():
        for row in iter_jsonl(path):
            yield QuarantinedRow.model_validate(row)
