"""Planted purity of a synthetic world's direction options: is each option node one planted direction?

A taxonomy node that holds the papers of two planted directions (a small direction absorbed into a
neighbour's leaf: a leaf under the taxonomy's split threshold, ``max_leaf_papers``, never splits again) is
the biggest option of every set it is in, and it grows whenever either of its directions accelerates: its
sets read size and growth together, and its world's persistence score swings with it (#29: at 40 papers a
month, 12 of 20 worlds of one seed set held such a node at difficulty 0.6; in one of them persistence won
24 of 24 tasks). The signal benchmark prints, per world, how many direction tasks offer such a mixed node,
so this cause stays visible in every run.

Only the synthetic world's ground truth (``world/paper_labels.jsonl``) names a paper's planted direction;
this reads it after the pipeline ran, for the report, never for answering or selecting tasks.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from foresci.core.errors import UserError
from foresci.core.io import iter_jsonl
from foresci.sim.truth import PAPER_LABELS_NAME
from foresci.tasks.release import HIDDEN_FILE
from foresci.taxonomy.store import load_taxonomy

PURE_SHARE = 0.85
"""A node is pure when at least this share of its pre-cutoff papers come from one planted direction
(background papers count against it)."""


def signal_family() -> str:
    """The family the signal benchmark reads: the first registered one with ``signal_benchmark`` set."""
    from foresci.tasks.families import all_families

    found = next((family.name for family in all_families() if family.signal_benchmark), None)
    if found is None:
        raise UserError("no registered task family sets signal_benchmark: the signal benchmark has no tasks "
                        "to read", field="signal_benchmark")
    return found


def node_purity(world: Path, taxonomies: list[Path]) -> dict[str, float]:
    """Each node of every domain's last taxonomy snapshot (the one at the cutoff): the share of its papers
    written in the node's most common planted direction's words (``written_as``: a mislabelled paper
    counts where its text belongs; a fragmenting direction's children count as their parent; off-domain
    background papers as one more source)."""
    planted: dict[str, str] = {}
    for row in iter_jsonl(world / PAPER_LABELS_NAME):
        written = row.get("written_as") or "background"  # a mislabelled paper reads as another direction
        planted[row["paper_id"]] = "/".join(written.split("/")[:2])  # a child's paper: its parent
    purity: dict[str, float] = {}
    for taxonomy in taxonomies:
        history = load_taxonomy(taxonomy)
        if not history.snapshots:
            continue
        for node in history.snapshots[-1].nodes:
            counts = Counter(planted.get(paper, "background") for paper in node.paper_ids)
            total = sum(counts.values())
            purity[node.node_id] = counts.most_common(1)[0][1] / total if total else 1.0
    return purity


def mixed_direction_tasks(world: Path, taxonomies: list[Path], release: Path) -> tuple[int, int]:
    """(tasks of the signal family, :func:`signal_family`, offering at least one mixed option node, its
    tasks) of a world's release."""
    purity = node_purity(world, taxonomies)
    family = signal_family()
    mixed = total = 0
    for row in iter_jsonl(release / HIDDEN_FILE):
        if row.get("family") != family:
            continue
        total += 1
        nodes = (row.get("stats") or {}).get("node_ids", {}).values()
        mixed += any(purity.get(node, 1.0) < PURE_SHARE for node in nodes)
    return mixed, total
