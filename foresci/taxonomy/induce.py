"""Induce the temporal taxonomy T(d, t) of one domain from papers announced on or before the cutoff.

Offline and deterministic under ``settings.taxonomy.seed``: papers are sorted by (announcement date,
id), cut into chronological slices (``taxonomy/slicing.yaml``), and the tree grows slice by slice
(:mod:`foresci.taxonomy.grow`). After every slice a :class:`Snapshot` records the tree as it stood at
the slice's end, built only from papers visible then.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from foresci.kb.models import Paper
from foresci.taxonomy.cluster import normalise_rows
from foresci.taxonomy.dimensions import DimensionRouter
from foresci.taxonomy.evidence import build_nodes, monthly_counts
from foresci.taxonomy.evolution import evolution_edges
from foresci.taxonomy.grow import GrowingTree
from foresci.taxonomy.models import Dimension, Snapshot
from foresci.taxonomy.naming import EmbedFn, name_snapshot
from foresci.taxonomy.rules import TaxonomyRules
from foresci.taxonomy.signals import attach_signals
from foresci.taxonomy.slicing import slice_bounds
from foresci.taxonomy.text import TermMatrix
from foresci.taxonomy.trajectory import attach_recent_momentum

SliceCallback = Callable[[int, int], None]


class TaxonomyHistory(BaseModel):
    """Snapshots of one domain's taxonomy at every slice boundary up to the cutoff (oldest first)."""

    model_config = ConfigDict(extra="forbid")

    domain: str
    cutoff: date
    slices: list[tuple[date, date]] = Field(default_factory=list)
    snapshots: list[Snapshot] = Field(default_factory=list)
    config: dict[str, Any] = Field(default_factory=dict, description="taxonomy settings used")

    @property
    def final(self) -> Snapshot:
        """The snapshot at the cutoff."""
        if not self.snapshots:
            raise ValueError(f"taxonomy history of {self.domain} at {self.cutoff} has no snapshots")
        return self.snapshots[-1]

    def at(self, day: date) -> Snapshot:
        """The latest snapshot whose slice ends on or before ``day``."""
        eligible = [snapshot for snapshot in self.snapshots if snapshot.cutoff <= day]
        if not eligible:
            raise ValueError(f"no snapshot of {self.domain} ends on or before {day}")
        return eligible[-1]


def check_inputs(papers: Sequence[Paper], embeddings: np.ndarray, cutoff: date) -> None:
    """Raise ValueError on a paper after the cutoff, a duplicate id, or a shape mismatch."""
    for position, paper in enumerate(papers):
        if paper.announced > cutoff:
            raise ValueError(f"paper {paper.paper_id} (input position {position}) was announced "
                             f"{paper.announced}, after the cutoff {cutoff}; filter papers to <= cutoff")
    seen: set[str] = set()
    for position, paper in enumerate(papers):
        if paper.paper_id in seen:
            raise ValueError(f"paper {paper.paper_id} appears twice (again at input position {position})")
        seen.add(paper.paper_id)
    if embeddings.ndim != 2 or embeddings.shape[0] != len(papers):
        raise ValueError(f"embeddings have shape {embeddings.shape}; expected ({len(papers)}, dim): one row "
                         "per paper, in the order of papers")


def induce_taxonomy(papers: Sequence[Paper], embeddings: np.ndarray, domain: str, cutoff: date,
                    settings: Any, on_slice: SliceCallback | None = None,
                    embedding_model: str = "", name_embed: EmbedFn | None = None,
                    rules: TaxonomyRules | None = None) -> TaxonomyHistory:
    """Induce the taxonomy history of ``domain`` at ``cutoff`` from papers announced on or before it.

    ``embeddings`` has one row per paper (same order). ``settings`` is a foresci ``Settings``.
    ``on_slice(done, total)`` is called after each slice (progress bars). The final snapshot's nodes are
    named by :func:`foresci.taxonomy.naming.name_snapshot` (``name_embed``: the KB's embedder, or None for
    lexical ranking). ``rules``: the rule files as the command loaded them (None: read here from
    ``settings.taxonomy``). Raises ValueError naming the first paper announced after the cutoff.
    """
    check_inputs(papers, embeddings, cutoff)
    config = settings.taxonomy
    history = TaxonomyHistory(domain=domain, cutoff=cutoff, config=config.model_dump(mode="json"))
    if not papers:
        return history
    order = sorted(range(len(papers)), key=lambda index: (papers[index].announced, papers[index].paper_id))
    ordered = [papers[index] for index in order]
    vectors = normalise_rows(np.asarray(embeddings, dtype=np.float32)[order])
    rules = rules or TaxonomyRules.load(config)
    router = DimensionRouter(rules.dimensions)
    primary: list[Dimension] = [router.route(paper.text)[0] for paper in ordered]
    terms = TermMatrix([paper.text for paper in ordered])
    history.slices = slice_bounds(ordered[0].announced, cutoff, rules.slicing)
    tree = GrowingTree(domain, [paper.paper_id for paper in ordered], vectors, config)
    position = 0
    for slice_index, (start, end) in enumerate(history.slices):
        members: list[int] = []
        while position < len(ordered) and ordered[position].announced <= end:
            if ordered[position].announced >= start:
                members.append(position)
            position += 1
        tree.add_slice(members, slice_index, end)
        visible = ordered[:position]
        terms.restrict(position)
        nodes = build_nodes(tree, ordered, terms, primary, config.label_terms, config.key_terms,
                            config.representatives)
        snapshot = Snapshot(
            domain=domain, cutoff=end, slice_index=slice_index, slice_bounds=history.slices[:slice_index + 1],
            nodes=nodes, normalised_by=f"all papers of domain {domain!r} given to induction (per month)",
            reference_monthly=monthly_counts(visible), paper_count=len(visible),
            embedding_model=embedding_model)
        if config.signals_every_slice or slice_index == len(history.slices) - 1:
            attach_signals(snapshot, visible, rules.signals)
            snapshot.edges = evolution_edges(snapshot, visible, rules.evolution)
            attach_recent_momentum(snapshot, config.recent_months, config.recent_baseline_months,
                                   rules.trajectory)
        history.snapshots.append(snapshot)
        if on_slice is not None:
            on_slice(slice_index + 1, len(history.slices))
    if history.snapshots:
        name_snapshot(history.final, {paper.paper_id: paper.text for paper in ordered}, name_embed,
                      vectors={paper.paper_id: vectors[index] for index, paper in enumerate(ordered)})
    return history
