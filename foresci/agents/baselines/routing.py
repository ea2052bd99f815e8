"""The taxonomy T(d, t) a forecaster routes papers through, induced from its own cutoff-bounded KB view.

The task builder draws direction and planning options from nodes of T(d, t); a forecaster measures an
option by the papers T(d, t) routes into that node's subtree, so an option reads the same papers whatever
the other options of the task are. T(d, t) is induced here from the view: papers on or before the cutoff
screened into ``taxonomy.member_statuses`` and their KB vectors, the same inputs and the same
``taxonomy`` settings the builder used, so node ids match. It is induced once per view and domain, and
shared by every task answered through that view.

Papers reach a node by routing (:func:`foresci.taxonomy.assign.assign_papers`: every visible paper descends
the final tree by centroid similarity), the way the task builder counts both the level and the window of
the hidden target. Not by the nodes' induction-time membership (``Node.paper_ids``): the taxonomy grows
over chronological slices, so a paper stays with the node that existed when it arrived and a node split
part-way through keeps its early papers while later ones go to its children; membership series then fall
or rise with the growth schedule of the tree, not with the literature. Where a world's nodes are its
top-level directions the two agree; where nodes were split they do not: with routing the demo's trend
top-1 went from 0.650 to 0.775, and the signal benchmark's difficulty-0.6 worlds from 0.654 to 0.538
(task-pooled), each now read from the papers the hidden target counts.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from foresci.agents.tools import KBViewLike
from foresci.taxonomy.models import Node, Snapshot
from foresci.taxonomy.rules import TaxonomyRules

_LOCK = threading.Lock()
_CACHE: weakref.WeakKeyDictionary[Any, dict[str | None, RoutedTaxonomy | None]] = weakref.WeakKeyDictionary()
_RULES: weakref.WeakKeyDictionary[Any, TaxonomyRules] = weakref.WeakKeyDictionary()


@dataclass
class RoutedTaxonomy:
    """T(d, t) and, per node, the ids of the view's papers routed into its subtree (oldest first)."""

    snapshot: Snapshot
    routed: dict[str, list[str]]


@dataclass
class OptionNode:
    """The node of T(d, t) an option is measured by, and how it was found."""

    node: Node
    how: str


def taxonomy_of(view: KBViewLike, domain: str | None) -> Snapshot | None:
    """T(domain, view.cutoff) induced from the view's papers (None without a domain, papers or vectors)."""
    routed = routed_taxonomy(view, domain)
    return routed.snapshot if routed is not None else None


def routed_taxonomy(view: KBViewLike, domain: str | None) -> RoutedTaxonomy | None:
    """T(domain, view.cutoff) with the view's papers routed into it (None as for :func:`taxonomy_of`)."""
    with _LOCK:
        per_view = _CACHE.setdefault(view, {})
        if domain not in per_view:
            per_view[domain] = _induce(view, domain)
        return per_view[domain]


def seed_routed(view: KBViewLike, domain: str, snapshot: Snapshot) -> None:
    """Hand ``view`` the T(domain, view.cutoff) its caller already induced from the same papers, vectors and
    ``taxonomy`` settings (a round's opening: :func:`foresci.rounds.open.open_round`), so the forecasters
    route into it instead of inducing it again; kept as is when one is already there."""
    with _LOCK:
        per_view = _CACHE.setdefault(view, {})
        if domain not in per_view:
            per_view[domain] = _routed(view, domain, snapshot)


def share_rules(view: KBViewLike, rules: TaxonomyRules) -> None:
    """Hand ``view`` the taxonomy's rule files as its caller's command loaded them (from the ``taxonomy``
    settings this module induces with), so an induction here reads no rule file again."""
    with _LOCK:
        _RULES[view] = rules


def _routed(view: KBViewLike, domain: str, snapshot: Snapshot) -> RoutedTaxonomy | None:
    """The view's papers of ``domain`` routed into ``snapshot``'s subtrees."""
    found = _inputs(view, domain)
    return None if found is None else _route(snapshot, *found)


def _inputs(view: KBViewLike, domain: str) -> tuple[list[Any], np.ndarray] | None:
    """The view's papers of ``domain`` screened into ``taxonomy.member_statuses`` and their vectors."""
    from foresci.core.settings import Settings

    papers = view.papers(domain, statuses=tuple(Settings().taxonomy.member_statuses))
    if not papers:
        return None
    vectors = np.asarray(view.embeddings([paper.paper_id for paper in papers]), dtype=np.float32)
    if vectors.ndim != 2 or vectors.shape[0] != len(papers):
        return None
    return papers, vectors


def _route(snapshot: Snapshot, papers: list[Any], vectors: np.ndarray) -> RoutedTaxonomy:
    from foresci.taxonomy.assign import assign_papers
    from foresci.taxonomy.window import ancestors

    routed: dict[str, list[str]] = {node.node_id: [] for node in snapshot.nodes}
    chains: dict[str, list[str]] = {}
    for paper_id, leaf in assign_papers(snapshot, papers, vectors).items():
        for node_id in chains.setdefault(leaf, ancestors(snapshot, leaf)):
            routed[node_id].append(paper_id)
    return RoutedTaxonomy(snapshot, routed)


def _induce(view: KBViewLike, domain: str | None) -> RoutedTaxonomy | None:
    from foresci.core.settings import Settings
    from foresci.taxonomy.induce import induce_taxonomy

    if domain is None:
        return None
    found = _inputs(view, domain)
    if found is None:
        return None
    papers, vectors = found
    history = induce_taxonomy(papers, vectors, domain, view.cutoff, Settings(), rules=_RULES.get(view))
    if not history.snapshots:
        return None
    return _route(history.final, papers, vectors)


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
