"""The taxonomy T(d, t) a forecaster routes papers through, induced from its own cutoff-bounded KB view.

The task builder draws direction and planning options from nodes of T(d, t); a forecaster measures an
option by the papers T(d, t) routes into that node's subtree, so an option reads the same papers whatever
the other options of the task are. T(d, t) is induced here from the view: papers on or before the cutoff
screened into ``taxonomy.member_statuses`` and their KB vectors, the same inputs and the same
``taxonomy`` settings the builder used, so node ids match. It is induced once per view and domain, and
shared by every task answered through that view.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from foresci.agents.tools import KBViewLike
from foresci.taxonomy.models import Node, Snapshot

_LOCK = threading.Lock()
_CACHE: weakref.WeakKeyDictionary[Any, dict[str | None, Snapshot | None]] = weakref.WeakKeyDictionary()


@dataclass
class OptionNode:
    """The node of T(d, t) an option is measured by, and how it was found."""

    node: Node
    how: str


def taxonomy_of(view: KBViewLike, domain: str | None) -> Snapshot | None:
    """T(domain, view.cutoff) induced from the view's papers (None without a domain, papers or vectors)."""
    with _LOCK:
        per_view = _CACHE.setdefault(view, {})
        if domain not in per_view:
            per_view[domain] = _induce(view, domain)
        return per_view[domain]


def _induce(view: KBViewLike, domain: str | None) -> Snapshot | None:
    from foresci.settings import Settings
    from foresci.taxonomy.induce import induce_taxonomy

    if domain is None:
        return None
    settings = Settings()
    papers = view.papers(domain, statuses=tuple(settings.taxonomy.member_statuses))
    if not papers:
        return None
    vectors = np.asarray(view.embeddings([paper.paper_id for paper in papers]), dtype=np.float32)
    if vectors.ndim != 2 or vectors.shape[0] != len(papers):
        return None
    history = induce_taxonomy(papers, vectors, domain, view.cutoff, settings)
    return history.final if history.snapshots else None


def option_node(snapshot: Snapshot | None, node_id: str | None, name: str) -> OptionNode | None:
    """The option's node: by its node id, else the node whose label reads as the option's name."""
    if snapshot is None:
        return None
    by_id = {node.node_id: node for node in snapshot.nodes}
    if node_id and node_id in by_id:
        return OptionNode(by_id[node_id], "its node in T(t)")
    wanted = " ".join(name.lower().replace("_", " ").replace("/", " / ").split())
    for node in snapshot.nodes:
        if " ".join(node.label.lower().replace("_", " ").replace("/", " / ").split()) == wanted:
            return OptionNode(node, "the T(t) node with its name")
    return None
