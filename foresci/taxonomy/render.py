"""Rich renderings of a snapshot (the tree ``foresci taxonomy show`` prints)."""

from __future__ import annotations

from rich.tree import Tree

from foresci.taxonomy.models import Node, Snapshot


def node_line(node: Node) -> str:
    """One line about a node: label, papers, first seen, top venue families, trajectory, id."""
    venues = sorted(node.venue_counts.items(), key=lambda item: -item[1])[:2]
    venue_text = ", ".join(f"{name} {count}" for name, count in venues)
    parts = [f"[bold]{node.label}[/bold]", f"{len(node.paper_ids)} papers",
             f"since {node.first_seen}" if node.first_seen else "", node.dimension]
    if venue_text:
        parts.append(f"venues: {venue_text}")
    if node.trajectory:
        parts.append(f"[italic]{node.trajectory}[/italic]")
    if node.lineage and node.lineage.event in ("width", "depth"):
        parts.append(f"+{node.lineage.event}@{node.lineage.created_at}")
    return " · ".join(part for part in parts if part) + f" [dim]{node.node_id}[/dim]"


def render_tree(snapshot: Snapshot, max_depth: int = 9, with_signals: bool = False,
                with_edges: bool = False) -> Tree:
    """A rich Tree of the snapshot (children ordered as stored: largest first)."""
    root = Tree(f"[bold]{snapshot.domain}[/bold] @ {snapshot.cutoff} · {snapshot.paper_count} papers · "
                f"{len(snapshot.nodes)} nodes · slice {snapshot.slice_index}")

    def add(branch: Tree, parent_id: str | None) -> None:
        for node in snapshot.children(parent_id):
            if node.depth > max_depth:
                continue
            child = branch.add(node_line(node))
            if with_signals:
                for signal in node.signals:
                    child.add(f"[yellow]{signal.kind}[/yellow] ×{signal.count}: {signal.text[:140]}")
            add(child, node.node_id)

    add(root, None)
    if with_edges and snapshot.edges:
        labels = {node.node_id: node.label for node in snapshot.nodes}
        evolution = root.add("[bold]method-evolution edges[/bold]")
        for edge in snapshot.edges:
            evolution.add(f"{labels.get(edge.source, edge.source)} --{edge.relation}--> "
                          f"{labels.get(edge.target, edge.target)} ({len(edge.evidence_ids)} papers)")
    return root
