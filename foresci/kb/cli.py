"""CLI: foresci kb build | update | search | stats."""

from __future__ import annotations

from pathlib import Path

import typer

from foresci.app.cli_options import parse_date_option
from foresci.engines import ENGINE_HELP

app = typer.Typer(
    help="Build, update, search and inspect the cutoff-aligned knowledge base.", no_args_is_help=True
)


def world_domains(sources: list[Path]) -> list[Path]:
    """The ``domains/`` folders of the generated worlds (``foresci sim generate``) the sources come from:
    a source that is a world, its ``corpus/`` folder or a file in it, beside ``ground_truth.json``."""
    found: list[Path] = []
    for source in sources:
        for root in (source, source.parent, source.parent.parent):
            domains = root / "domains"
            if (root / "ground_truth.json").is_file() and domains.is_dir() and domains not in found:
                found.append(domains)
                break
    return found


@app.command("build")
def build_command(
    sources: list[Path] = typer.Argument(
        ...,
        help="Files or folders: daily-arXiv JSONL, arXiv snapshot JSONL, or a ResearchForesight KB layer.",
    ),
    out: Path = typer.Option(..., "--out", "-o", help="KB folder to create or replace atomically."),
    domains_dir: list[Path] = typer.Option([], "--domains-dir", help="Extra folder of domain YAML files."),
    allow_empty: bool = typer.Option(
        False, "--allow-empty", help="Build even when the sources hold no paper (otherwise an error)."
    ),
    engine: str | None = typer.Option(None, "--engine", help=ENGINE_HELP),
) -> None:
    """Build a knowledge base: ingest, embed, screen per domain, index (BM25 + FAISS).

    Bad rows go to quarantine.jsonl (file, line, reason) and never stop the build; sources with no
    paper at all are an error (unless --allow-empty). One writer at a time: a second build or update
    of the same folder exits with an error naming the holder. The corpus of a generated world (`foresci
    sim generate`) brings its own domains (its domains/ folder), no --domains-dir needed. Embeddings are
    cached (FORESCI_CACHE_DIR) after each chunk of FORESCI_KB__EMBED_CHUNK papers (2048), so a rebuild
    embeds nothing twice and a rerun after a kill embeds again only the chunk that was in progress (set
    a smaller chunk to lose less); an identical earlier build is reused.

    Examples:

      foresci kb build ../shared/corpora/arxiv-daily --out workspace/kb

      FORESCI_CACHE_DIR=/tmp/cache foresci kb build day.jsonl.gz snap.jsonl --out kb --domains-dir mine

      FORESCI_KB__EMBED_FIELD=title foresci kb build corpus/ --out kb   # titles only: ~10x faster on CPU

      RAY_ADDRESS=auto foresci kb build corpus/ --out kb --engine ray   # embedding on a Ray cluster
    """
    from foresci.core.settings import load_settings
    from foresci.engines import with_engine
    from foresci.kb.build import build_kb

    missing = next((source for source in sources if not source.exists()), None)
    if missing is not None:  # before the settings and domains, whose errors would hide it
        raise FileNotFoundError(2, "No such file or directory", str(missing))
    settings = with_engine(load_settings(), engine)
    if not domains_dir:
        domains_dir = world_domains(sources)
        if domains_dir:
            typer.echo(f"domains of the generated world: {', '.join(map(str, domains_dir))}", err=True)
    summary = build_kb(sources, out, settings, domains_dir or None, progress=True, allow_empty=allow_empty)
    _print_summary(summary.model_dump(mode="json"))


@app.command("update")
def update_command(
    kb_dir: Path = typer.Argument(..., help="An existing KB folder."),
    sources: list[Path] = typer.Argument(..., help="New files or folders to add."),
) -> None:
    """Add new papers (e.g. one more daily file) without rebuilding or re-embedding existing ones.

    Papers announced after the KB's last day are appended as a new segment: the update writes only
    them (and grows the HNSW graph), so a day costs what it adds. A day the KB already has, or an
    earlier one, rebuilds every index over all papers (mode 'reorder', said on stderr). Either way the
    KB searches exactly like one built from scratch over the same files.

    Example:

      foresci kb update workspace/kb ../shared/corpora/arxiv-daily/2026-07-01.jsonl.gz
    """
    from foresci.core.settings import load_settings
    from foresci.kb.build import update_kb

    summary = update_kb(kb_dir, sources, load_settings(), progress=True)
    _print_summary(summary.model_dump(mode="json"))
    if summary.mode == "reorder":
        typer.echo(
            f"{kb_dir}: papers announced on or before the KB's last day: rebuilt every index over all "
            f"{summary.papers} papers (not an append)",
            err=True,
        )


@app.command("search")
def search_command(
    kb_dir: Path = typer.Argument(..., help="A KB folder."),
    query: str = typer.Argument(..., help="Free-text query."),
    cutoff: str = typer.Option(
        ..., "--cutoff", help="Only papers announced on or before this date (YYYY-MM-DD)."
    ),
    domain: str | None = typer.Option(None, "--domain", help="Restrict to papers screened into this domain."),
    k: int = typer.Option(10, "-k", min=1, help="Number of results."),
) -> None:
    """Hybrid search (BM25 + dense, reciprocal rank fusion) as an agent would see it at a cutoff.

    Example:

      foresci kb search workspace/kb "tool-using LLM agents" --cutoff 2025-11-30 --domain llm_agent -k 5
    """
    from foresci.app.kb_search import print_search

    print_search(kb_dir, query, lambda: parse_date_option(cutoff, "--cutoff"), domain, k)


@app.command("stats")
def stats_command(kb_dir: Path = typer.Argument(..., help="A KB folder.")) -> None:
    """Counts per domain and status, per month, and a quarantine summary.

    Example:

      foresci kb stats workspace/kb
    """
    from collections import Counter

    from rich.console import Console
    from rich.table import Table

    from foresci.core.io import iter_jsonl
    from foresci.kb.store import KnowledgeBase

    kb = KnowledgeBase.open(kb_dir)
    console = Console()
    console.print(f"[bold]{kb.path}[/bold]  generation {kb.generation.name}  fingerprint {kb.fingerprint}")
    if kb.size:
        console.print(f"{kb.size} papers, {kb.min_date} .. {kb.max_date}")
    domains = Table(title="screening per domain")
    for column in ("domain", "core", "support", "excluded"):
        domains.add_column(column)
    for domain, statuses in sorted(kb.screen_counts().items()):
        domains.add_row(domain, *(str(statuses.get(status, 0)) for status in ("core", "support", "excluded")))
    console.print(domains)
    months = Table(title="papers per month (all / per domain core+support)")
    months.add_column("month")
    months.add_column("all")
    for domain in kb.domains:
        months.add_column(domain[:18])
    month_of = [kb.announced_at(row).isoformat()[:7] for row in range(kb.size)]
    totals = Counter(month_of)
    per_domain = {
        domain: Counter(month_of[row] for row in kb.domain_mask(domain).nonzero()[0]) for domain in kb.domains
    }
    for month in sorted(totals):
        months.add_row(month, str(totals[month]), *(str(per_domain[domain][month]) for domain in kb.domains))
    console.print(months)
    reasons: Counter[str] = Counter()
    files: Counter[str] = Counter()
    if kb.quarantine_path().is_file():
        for row in iter_jsonl(kb.quarantine_path()):
            reasons[str(row["reason"]).split(":")[0]] += 1
            files[Path(str(row["file"])).name] += 1
    console.print(f"quarantined rows: {sum(reasons.values())}  ({kb.quarantine_path()})")
    for reason, count in reasons.most_common(10):
        console.print(f"  {count:6d}  {reason}")
    for name, count in files.most_common(5):
        console.print(f"  {count:6d}  in {name}")


@app.command("verify")
def verify_command(kb_dir: Path = typer.Argument(..., help="A KB folder.")) -> None:
    """Check the live generation's files (papers, vectors, BM25, IVF index...) against its manifest hashes.

    Exits 1 naming every file whose content changed since the build.

    Example:

      foresci kb verify workspace/kb
    """
    from foresci.core.artifacts import changed_files
    from foresci.core.errors import UserError
    from foresci.kb.store import live_generation

    generation = live_generation(kb_dir)
    changed = changed_files(generation)
    if changed:
        raise UserError(
            f"content changed since the build (hash mismatch): {', '.join(changed)}", path=generation
        )
    typer.echo(f"{generation}: every file matches its manifest hash")


@app.command("harvest")
def harvest_command(
    service: str = typer.Argument(..., help="'arxiv' (arXiv API) or 'openalex'."),
    query: str = typer.Argument(..., help="Search query in the service's syntax."),
    out: Path = typer.Option(..., "--out", "-o", help="JSONL file to write (foresci Paper rows)."),
    max_results: int = typer.Option(200, "--max", help="Stop after this many results."),
    since: str | None = typer.Option(None, "--since", help="OpenAlex only: earliest publication date."),
    until: str | None = typer.Option(None, "--until", help="OpenAlex only: latest publication date."),
    mailto: str | None = typer.Option(None, "--mailto", help="OpenAlex polite-pool e-mail address."),
) -> None:
    """Harvest papers online into a JSONL file that `kb build` / `kb update` ingest.

    Requests are rate limited (arXiv: one per 3 s) and a server's Retry-After is honoured.

    Examples:

      foresci kb harvest arxiv 'all:"retrieval augmented generation"' --out rag.jsonl --max 300

      foresci kb harvest openalex "diffusion model" --since 2025-01-01 --out diff.jsonl

      foresci kb update workspace/kb rag.jsonl
    """
    from rich.progress import Progress

    from foresci.core.io import write_jsonl
    from foresci.kb.online import ArxivClient, OpenAlexClient

    if service == "arxiv":
        papers = ArxivClient().search(query, max_results=max_results)
    elif service == "openalex":
        papers = OpenAlexClient(mailto=mailto).search(
            query,
            since=parse_date_option(since, "--since") if since else None,
            until=parse_date_option(until, "--until") if until else None,
            max_results=max_results,
        )
    else:
        raise typer.BadParameter("expected 'arxiv' or 'openalex'", param_hint="SERVICE")
    collected = []
    with Progress() as progress:
        task = progress.add_task(f"harvest {service}", total=max_results)
        for paper in papers:
            collected.append(paper)
            progress.advance(task)
    write_jsonl(out, collected)
    typer.echo(f"wrote {len(collected)} papers to {out}")


def _print_summary(summary: dict[str, object]) -> None:
    """The build or update summary as JSON (for ``jq`` and scripts; was a Python dict)."""
    import json

    typer.echo(json.dumps(summary, indent=2))
