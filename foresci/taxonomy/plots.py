"""PNG plots (matplotlib, Agg backend): node growth over time and taxonomy growth per slice."""

from __future__ import annotations

from pathlib import Path

from foresci.taxonomy.induce import TaxonomyHistory
from foresci.taxonomy.models import Snapshot


def plot_node_growth(snapshot: Snapshot, out_png: Path | str, top: int = 8) -> Path:
    """Monthly share of the reference for the ``top`` largest top-level nodes; returns the PNG path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    months = sorted(snapshot.reference_monthly)
    nodes = sorted(snapshot.children(None), key=lambda node: -len(node.paper_ids))[:top]
    figure, axes = plt.subplots(figsize=(9, 4.8))
    for node in nodes:
        shares = [node.monthly_counts.get(month, 0) / max(1, snapshot.reference_monthly[month])
                  for month in months]
        axes.plot(months, shares, marker="o", markersize=3, label=node.label[:40])
    axes.set_title(f"Node growth, {snapshot.domain} (taxonomy at {snapshot.cutoff})")
    axes.set_ylabel("share of month's papers")
    axes.set_xlabel(f"month (normalised by: {snapshot.normalised_by})"[:110], fontsize=7)
    axes.tick_params(axis="x", labelrotation=60, labelsize=7)
    axes.legend(fontsize=6, loc="upper left", ncol=2)
    figure.tight_layout()
    out_png = Path(out_png)
    out_png.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out_png, dpi=120)
    plt.close(figure)
    return out_png


def plot_taxonomy_growth(history: TaxonomyHistory, out_png: Path | str) -> Path:
    """Cumulative papers and node count (with nodes added by width/depth) per slice; returns the PNG path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [snapshot.cutoff.isoformat() for snapshot in history.snapshots]
    papers = [snapshot.paper_count for snapshot in history.snapshots]
    nodes = [len(snapshot.nodes) for snapshot in history.snapshots]
    width = [sum(1 for node in snapshot.nodes if node.lineage and node.lineage.event == "width"
                 and node.lineage.created_slice == snapshot.slice_index) for snapshot in history.snapshots]
    depth = [sum(1 for node in snapshot.nodes if node.lineage and node.lineage.event == "depth"
                 and node.lineage.created_slice == snapshot.slice_index) for snapshot in history.snapshots]
    figure, paper_axes = plt.subplots(figsize=(9, 4.8))
    paper_axes.bar(labels, papers, color="#c9d6ea", label="cumulative papers")
    paper_axes.set_ylabel("papers up to slice end")
    node_axes = paper_axes.twinx()
    node_axes.plot(labels, nodes, color="#1f4e8c", marker="o", label="nodes")
    node_axes.plot(labels, width, color="#d9822b", marker="^", linestyle="--", label="new by width")
    node_axes.plot(labels, depth, color="#3a8d3a", marker="v", linestyle="--", label="new by depth")
    node_axes.set_ylabel("nodes")
    paper_axes.set_title(f"Taxonomy growth, {history.domain} (cutoff {history.cutoff})")
    paper_axes.tick_params(axis="x", labelrotation=60, labelsize=7)
    handles = paper_axes.get_legend_handles_labels()[0] + node_axes.get_legend_handles_labels()[0]
    names = paper_axes.get_legend_handles_labels()[1] + node_axes.get_legend_handles_labels()[1]
    node_axes.legend(handles, names, fontsize=7, loc="upper left")
    figure.tight_layout()
    out_png = Path(out_png)
    out_png.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out_png, dpi=120)
    plt.close(figure)
    return out_png
