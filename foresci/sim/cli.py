"""CLI: ``foresci sim generate`` and ``foresci sim truth``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from foresci.core.errors import UserError
from foresci.sim.knobs import WorldConfig

DEFAULTS = WorldConfig()

app = typer.Typer(
    help="Generate synthetic research worlds with planted dynamics.\n\n"
    "Example: foresci sim generate worlds/w1 --seed 7 --difficulty 0.8 && "
    "foresci sim truth worlds/w1",
    no_args_is_help=True,
)


@app.command("generate")
def generate_command(
    out: Path = typer.Argument(..., help="folder to write the world into (created; corpus files replaced)"),
    seed: int = typer.Option(DEFAULTS.seed, help="world seed; same seed and knobs, byte-identical world"),
    domains: int = typer.Option(DEFAULTS.n_domains, "--domains", help="invented research domains"),
    directions: int = typer.Option(
        DEFAULTS.directions_per_domain, "--directions", help="planted directions per domain"
    ),
    start: str = typer.Option(DEFAULTS.start, help="first simulated month, YYYY-MM"),
    months: int = typer.Option(DEFAULTS.months, help="simulated months"),
    cutoff_month: str | None = typer.Option(
        None, help="last month before the cutoff (YYYY-MM); default leaves --window months after it"
    ),
    window: int = typer.Option(
        DEFAULTS.window_months, help="hidden months after the cutoff (when --cutoff-month is unset)"
    ),
    papers_per_month: float = typer.Option(
        DEFAULTS.papers_per_month, help="mean expected papers per month before the cutoff"
    ),
    difficulty: float = typer.Option(
        DEFAULTS.difficulty,
        min=0.0,
        max=1.0,
        help="0: trends visible before the cutoff; 1: change only after it",
    ),
    noise: float = typer.Option(
        DEFAULTS.noise, min=0.0, max=1.0, help="observation noise: mislabels, missing, delays"
    ),
    counterfactual: str | None = typer.Option(
        None,
        help="same vocabulary, shifted dynamics: reverse "
        "(accelerating<->cooling), shuffle, null (all steady)",
    ),
    gzip: bool = typer.Option(False, "--gzip", help="write corpus days as .jsonl.gz"),
) -> None:
    """Generate a world: OUT/corpus/YYYY-MM-DD.jsonl (daily-arXiv format), OUT/domains/*.yaml,
    OUT/ground_truth.json, OUT/paper_labels.jsonl and OUT/manifest.json.

    Examples:

        foresci sim generate worlds/default

        foresci sim generate worlds/hard --difficulty 1.0 --noise 0.3

        foresci sim generate worlds/cf --counterfactual reverse   # same words, reversed dynamics
    """
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from foresci.sim.world import generate_world

    try:
        config = WorldConfig(
            seed=seed,
            n_domains=domains,
            directions_per_domain=directions,
            start=start,
            months=months,
            cutoff_month=cutoff_month,
            window_months=window,
            papers_per_month=papers_per_month,
            difficulty=difficulty,
            noise=noise,
            counterfactual=counterfactual,
            gzip=gzip,
        )
    except (ValueError, UserError) as error:
        raise typer.BadParameter(str(error)) from error
    console = Console()
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=console,
    ) as bar:
        task = bar.add_task("planning world", total=config.months)

        def report(stage: str, done: int, total: int) -> None:
            bar.update(task, description=stage, completed=done, total=total)

        paths = generate_world(config, out, progress=report)
    from foresci.sim.world import load_ground_truth

    truth = load_ground_truth(paths.root)
    console.print(
        f"[green]world written[/green] to {paths.root}: {truth.paper_count} papers "
        f"({truth.row_count} rows) over {len(paths.corpus_files)} days, "
        f"{len(truth.domains)} domains, {len(truth.directions)} directions, cutoff {truth.cutoff}"
    )
    from foresci.tasks.world_cutoff import last_corpus_day, task_cutoff

    last_day = last_corpus_day(paths.corpus_files)
    if last_day is not None:
        usable = task_cutoff(truth.cutoff, last_day)
        # the world's own domains: the KB also screens foresci's shipped domains, which it does not cover
        domain_options = " ".join(f"--domain {domain.slug}" for domain in truth.domains)
        console.print(
            f"build tasks at cutoff {usable} (its 3m, 6m and venue-cycle windows close by the last corpus "
            f"day, {last_day}):\n  foresci kb build {paths.root / 'corpus'} --out KB\n"
            f"  foresci tasks build KB --cutoff {usable} {domain_options} --out RELEASE",
            markup=False,
            soft_wrap=True,
        )


@app.command("truth")
def truth_command(
    out: Path = typer.Argument(..., help="a world folder written by `foresci sim generate`"),
    chains: bool = typer.Option(False, "--chains", help="also list bottleneck -> opportunity chains"),
) -> None:
    """Print a world's ground truth: every direction's planted trajectory, rates and venue preference.

    Example: foresci sim truth worlds/default --chains
    """
    from rich import box
    from rich.console import Console
    from rich.table import Table

    from foresci.sim.stats import window_counts
    from foresci.sim.world import load_ground_truth

    try:
        truth = load_ground_truth(out)
    except (FileNotFoundError, ValueError, UserError) as error:
        raise typer.BadParameter(str(error)) from error
    console = Console()
    by_domain: dict[str, list[Any]] = {}
    for direction in truth.directions:
        by_domain.setdefault(direction.direction_id.rsplit("/", 1)[0], []).append(direction)
    window_text = f"cutoff {truth.cutoff}, window {truth.window_months[0]}..{truth.window_months[-1]}"
    # One table per domain, its directions by their number in it; names are never cut (a long one wraps
    # inside its cell), so the tables fit 80 columns.
    for domain, directions in by_domain.items():
        table = Table(title=f"planted directions of {domain} ({window_text})", box=box.SIMPLE_HEAD,
                      pad_edge=False)
        table.add_column("dir", no_wrap=True)
        table.add_column("name", overflow="fold")
        table.add_column("trajectory", no_wrap=True)
        table.add_column("before", justify="right", no_wrap=True)
        table.add_column("window", justify="right", no_wrap=True)
        table.add_column("top venue", no_wrap=True)
        for direction in directions:
            before, window = window_counts(truth, direction.direction_id)
            table.add_row(
                direction.direction_id.rsplit("/", 1)[-1],
                direction.name,
                f"{direction.trajectory} x{direction.planted_factor:.2f}",
                str(before),
                str(window),
                direction.venue_ranking[0],
            )
            for child in direction.children:
                table.add_row("", f"└ {child.vocabulary.name}", "child", "", "", "")
        console.print(table)
        if chains:
            chain_table = Table(title=f"bottleneck -> opportunity chains of {domain}", box=box.SIMPLE_HEAD,
                                pad_edge=False)
            chain_table.add_column("dir", no_wrap=True)
            for column in ("bottleneck", "opportunity"):
                chain_table.add_column(column, overflow="fold")
            chain_table.add_column("resolved", no_wrap=True)
            chain_table.add_column("after cutoff", no_wrap=True)
            for direction in directions:
                for chain in direction.bottlenecks:
                    after = "yes" if chain.after_cutoff else "no"
                    chain_table.add_row(direction.direction_id.rsplit("/", 1)[-1], chain.bottleneck,
                                        chain.opportunity, chain.resolved, after)
            console.print(chain_table)
    console.print("dir: the direction's number in its domain (id DOMAIN/N); before / window: papers "
                  "observed in the window's length before the cutoff / in the window; x: the planted factor; "
                  "└: the sub-directions a fragmenting direction splits into", markup=False, highlight=False)
