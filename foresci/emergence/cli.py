"""CLI: ``foresci emergence build`` (bulk link-prediction sets of a KB at a cutoff) and ``foresci emergence
score`` (AUC and precision@k of a method's pair scores, or of a network baseline)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import typer

from foresci.emergence.features import BASELINES

ALL = "all"
LEARNED_METHOD = "learned_links"

app = typer.Typer(
    help="Concept emergence: link prediction in the concept co-occurrence network at a cutoff.\n\n"
    "Example: foresci emergence build --kb work/kb --cutoff 2025-09-30 --out work/emergence && "
    "foresci emergence score work/emergence --baseline resource_allocation",
    no_args_is_help=True,
)


@app.command("build")
def build_command(
    kb: Path = typer.Option(..., help="a built KB folder"),
    cutoff: str = typer.Option(..., help="cutoff date YYYY-MM-DD"),
    out: Path = typer.Option(..., help="folder for emergence_pairs.jsonl (public), emergence_hidden.jsonl"),
    domain: list[str] = typer.Option([], help="KB domain (repeatable; default every domain; 'all': one "
                                              "network of every paper)"),
    window: list[int] = typer.Option([], help="window months (repeatable; default taxonomy/emergence.yaml)"),
) -> None:
    """Build the bulk set of each domain and window: candidate pairs at the cutoff and their window papers."""
    from foresci.core.artifacts import write_manifest
    from foresci.core.errors import UserError
    from foresci.emergence.build import emergence_set, shift_months
    from foresci.emergence.bulk import bulk_rows, write_bulk
    from foresci.emergence.config import load_emergence_settings
    from foresci.emergence.kb_source import papers_at, window_papers
    from foresci.kb.retrieve import KBView
    from foresci.kb.store import KnowledgeBase, last_announcement

    settings = load_emergence_settings()
    day = date.fromisoformat(cutoff)
    store = KnowledgeBase.open(kb)
    months = window or settings.targets.window_months
    if last_announcement(store) < shift_months(day, max(months)):
        raise UserError(f"the KB ends on {last_announcement(store)}; a {max(months)}-month window after "
                        f"{day} has not closed in it", path=kb, field="--cutoff")
    sets = []
    for slug in domain or store.domains:
        screened = None if slug == ALL else slug
        before = papers_at(KBView(store, day), settings, screened)
        for length in months:
            end = shift_months(day, length)
            later = window_papers(store, day, end, settings, screened)
            target = emergence_set([*before, *later], day, end, settings)
            sets.append(bulk_rows(target, slug, f"{length}m"))
            typer.echo(f"{slug} {length}m: {target.snapshot.candidates.total} candidates, "
                       f"{len(target.counts)} kept, {int(target.labels(1).sum())} with a window paper")
    out.mkdir(parents=True, exist_ok=True)
    files = write_bulk(out, sets)
    write_manifest(out, "emergence", inputs={"kb": str(kb), "kb_fingerprint": store.fingerprint,
                                             "cutoff": cutoff}, config=settings.model_dump(mode="json"),
                   files=files, counts={"pairs": sum(len(public) for public, _ in sets)})


@app.command("score")
def score_command(
    folder: Path = typer.Argument(..., help="a folder written by `foresci emergence build`, or a release"),
    scores: Path | None = typer.Option(None, help="JSONL of {pair_id, score} rows (a method's scores)"),
    baseline: str | None = typer.Option(None, help=f"a network baseline: {', '.join(BASELINES)}"),
    method: str | None = typer.Option(None, help=f"{LEARNED_METHOD}: the learned baseline trained from the "
                                                 "KB at each set's cutoff (needs --kb)"),
    kb: Path | None = typer.Option(None, help="the KB the set was built from (for --method)"),
    k: int = typer.Option(1, help="a pair is positive with at least k window papers"),
) -> None:
    """AUC and precision@k (95 % bootstrap intervals) per domain and window."""
    from foresci.core.errors import UserError
    from foresci.core.io import iter_jsonl
    from foresci.emergence.bulk import PUBLIC_FILE, baseline_scores, score_bulk
    from foresci.emergence.config import load_emergence_settings

    if sum(choice is not None for choice in (scores, baseline, method)) != 1:
        raise UserError("give exactly one of --scores, --baseline and --method", field="--scores")
    public = list(iter_jsonl(folder / PUBLIC_FILE))
    if baseline is not None:
        values = baseline_scores(public, baseline)
    elif method is not None:
        if method != LEARNED_METHOD or kb is None:
            raise UserError(f"--method takes {LEARNED_METHOD} and needs --kb", field="--method")
        values = learned_pair_scores(public, kb)
    else:
        values = {str(row["pair_id"]): float(row["score"]) for row in iter_jsonl(scores)}  # type: ignore[arg-type]
    results = score_bulk(folder, values, k, load_emergence_settings().scoring)
    typer.echo(json.dumps({group: {name: interval.as_dict() for name, interval in metrics.items()}
                           for group, metrics in results.items()}, indent=1))


def learned_pair_scores(public: list[dict[str, object]], kb_path: Path) -> dict[str, float]:
    """pair_id -> the learned baseline's probability, trained from ``KBView(kb, cutoff)`` of each set's
    domain at its cutoff on its core papers, as a release's sets are built (pairs that are no candidate
    there get no score: they rank last)."""
    from foresci.emergence.run_scores import learned_scores
    from foresci.kb.retrieve import KBView
    from foresci.kb.store import KnowledgeBase

    store = KnowledgeBase.open(kb_path)
    return learned_scores(public, lambda cutoff: KBView(store, cutoff))
