"""CLI: foresci taxonomy build | show | export | plot."""

from __future__ import annotations

from pathlib import Path

import typer

from foresci.app.cli_options import parse_date_option

app = typer.Typer(help="Induce, show and export temporal taxonomies.", no_args_is_help=True)




@app.command("build")
def build_command(
    kb: Path = typer.Argument(..., help="Knowledge-base folder (from `foresci kb build`)."),
    domain: str = typer.Option(..., "--domain", "-d", help="Domain slug, e.g. llm_agent."),
    cutoff: str = typer.Option(..., "--cutoff", "-t", help="Cutoff date YYYY-MM-DD; only papers announced "
                                                            "on or before it are read."),
    out: Path = typer.Option(..., "--out", "-o", help="Taxonomy folder to write."),
) -> None:
    """Induce the temporal taxonomy of a domain at a cutoff (offline, deterministic under the seed).

    Papers are cut into slices (taxonomy/slicing.yaml: coarse far from the cutoff, fine near it);
    the tree grows slice by slice and every slice's snapshot is saved.

    Examples:

      foresci taxonomy build workspace/kb --domain llm_agent --cutoff 2025-12-31 --out workspace/tax-agent

      FORESCI_TAXONOMY__SEED=7 foresci taxonomy build kb -d llm_agent -t 2025-11-30 -o tax
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from foresci.core.settings import load_settings
    from foresci.kb.store import KnowledgeBase
    from foresci.taxonomy.build import build_taxonomy
    from foresci.taxonomy.rules import TaxonomyRules
    from foresci.taxonomy.store import save_taxonomy

    cutoff_date = parse_date_option(cutoff, "--cutoff")
    settings = load_settings()
    knowledge_base = KnowledgeBase.open(kb, settings)
    rules = TaxonomyRules.load(settings.taxonomy)
    with Progress(TextColumn("[bold]slices"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()) as bar:
        task = bar.add_task("induce", total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        history = build_taxonomy(knowledge_base, domain, cutoff_date, settings, on_slice=advance, rules=rules)
    save_taxonomy(history, out, inputs={"kb": str(kb), "kb_fingerprint": knowledge_base.fingerprint})
    final = history.snapshots[-1] if history.snapshots else None
    nodes, papers = (len(final.nodes), final.paper_count) if final else (0, 0)
    typer.echo(f"{domain} @ {cutoff_date}: {len(history.slices)} slices, {nodes} nodes, {papers} papers "
               f"-> {out}")


@app.command("show")
def show_command(
    folder: Path = typer.Argument(..., help="Taxonomy folder (from `foresci taxonomy build`)."),
    slice_index: int = typer.Option(-1, "--slice", help="Snapshot to show (default: the last one)."),
    depth: int = typer.Option(9, "--depth", help="Deepest level to print."),
    signals: bool = typer.Option(False, "--signals", help="Also print bottleneck/future-work signals."),
    edges: bool = typer.Option(False, "--edges", help="Also list method-evolution edges."),
) -> None:
    """Print a taxonomy snapshot as a tree with paper counts, first-seen dates and venue shares.

    Examples:

      foresci taxonomy show workspace/tax-agent

      foresci taxonomy show workspace/tax-agent --slice 0 --depth 1

      foresci taxonomy show workspace/tax-agent --signals --edges
    """
    from rich.console import Console

    from foresci.taxonomy.render import render_tree
    from foresci.taxonomy.store import load_taxonomy

    history = load_taxonomy(folder)
    if not history.snapshots:
        raise typer.BadParameter(f"{folder} holds no snapshots", param_hint="FOLDER")
    snapshot = history.snapshots[slice_index]
    Console().print(render_tree(snapshot, max_depth=depth, with_signals=signals, with_edges=edges))


@app.command("export")
def export_command(
    folder: Path = typer.Argument(..., help="Taxonomy folder."),
    format: str = typer.Option("json", "--format", "-f", help="graphml or json (node-link)."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Output file (default FOLDER/taxonomy.<ext>)."),
    slice_index: int = typer.Option(-1, "--slice", help="Snapshot to export (default: the last)."),
) -> None:
    """Export a snapshot's graph (hierarchy + evolution edges) as GraphML or node-link JSON.

    Examples:

      foresci taxonomy export workspace/tax-agent --format graphml

      foresci taxonomy export workspace/tax-agent -f json -o agent.json --slice 3
    """
    import networkx as nx

    from foresci.core.io import write_json
    from foresci.taxonomy.graph import graphml_ready, snapshot_to_graph, to_node_link
    from foresci.taxonomy.store import load_taxonomy

    if format not in ("graphml", "json"):
        raise typer.BadParameter(f"{format!r}: choose graphml or json", param_hint="--format")
    snapshot = load_taxonomy(folder).snapshots[slice_index]
    target = out or folder / f"taxonomy.{format}"
    if format == "graphml":
        nx.write_graphml(graphml_ready(snapshot_to_graph(snapshot, with_centroids=False)), target)
    else:
        write_json(target, to_node_link(snapshot, with_centroids=False))
    typer.echo(f"{len(snapshot.nodes)} nodes, {len(snapshot.edges)} evolution edges -> {target}")


@app.command("plot")
def plot_command(
    folder: Path = typer.Argument(..., help="Taxonomy folder."),
    out_dir: Path | None = typer.Option(None, "--out-dir", help="Where the PNGs go (default: FOLDER/plots)."),
) -> None:
    """Draw node growth (monthly shares of the top nodes) and taxonomy growth per slice as PNGs.

    Example:

      foresci taxonomy plot workspace/tax-agent
    """
    from foresci.taxonomy.plots import plot_node_growth, plot_taxonomy_growth
    from foresci.taxonomy.store import load_taxonomy

    history = load_taxonomy(folder)
    target = out_dir or folder / "plots"
    for path in (plot_node_growth(history.final, target / "node_growth.png"),
                 plot_taxonomy_growth(history, target / "taxonomy_growth.png")):
        typer.echo(str(path))
