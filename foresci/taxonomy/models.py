"""Taxonomy types: nodes (research sub-directions), method-evolution edges, snapshots at a cutoff."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Trajectory = Literal["accelerating", "fragmenting", "steady", "cooling"]
TRAJECTORIES: tuple[Trajectory, ...] = ("accelerating", "fragmenting", "steady", "cooling")
Relation = Literal["extension", "adaptation", "replacement", "component_reuse", "competition"]
Dimension = Literal["tasks", "methods", "datasets", "evaluation_methods", "application_domains"]


class Lineage(BaseModel):
    """Where a node came from."""

    model_config = ConfigDict(extra="forbid")

    created_slice: int = Field(description="index of the slice in which the node first appeared")
    created_at: date = Field(description="end date of that slice")
    event: Literal["root", "seed", "width", "depth", "split", "merge"] = "seed"
    parents: list[str] = Field(default_factory=list, description="node ids it split/merged from")


class Signal(BaseModel):
    """A recurring limitation (bottleneck) or future-work statement, clustered across papers."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["bottleneck", "future_work"]
    text: str = Field(description="representative phrasing")
    variants: list[str] = Field(default_factory=list)
    paper_ids: list[str] = Field(default_factory=list)
    count: int = 0
    first_seen: date | None = None


class NameEvidence(BaseModel):
    """Why a node has its name: how it was made and which of the node's papers use the phrase."""

    model_config = ConfigDict(extra="forbid")

    method: Literal["phrase_mining", "llm", "label"] = Field(
        description="phrase_mining: offline noun-phrase mining; llm: a builder-model proposal that passed "
                    "the checks; label: no phrase qualified, the term label is kept")
    support: int = Field(default=0, description="node papers containing the name near-verbatim")
    paper_ids: list[str] = Field(default_factory=list, description="some of those papers")
    score: float = 0.0
    alternatives: list[str] = Field(default_factory=list, description="other key phrases of the node")
    rejected: list[str] = Field(default_factory=list, description="LLM proposals refused, with the reason")


class Node(BaseModel):
    """A research sub-direction and its evidence record."""

    model_config = ConfigDict(extra="forbid")

    node_id: str = Field(description="stable id across slices")
    label: str
    name: str = Field(default="", description="readable noun-phrase name grounded in the node's papers")
    name_evidence: NameEvidence | None = None
    description: str = ""
    dimension: Dimension = "methods"
    parent_id: str | None = None
    depth: int = 0
    key_terms: list[str] = Field(default_factory=list)
    paper_ids: list[str] = Field(default_factory=list, description="supporting papers (all assigned)")
    representative_ids: list[str] = Field(default_factory=list, description="most central papers")
    monthly_counts: dict[str, int] = Field(default_factory=dict, description="'YYYY-MM' -> papers")
    venue_counts: dict[str, int] = Field(default_factory=dict, description="venue family -> papers")
    first_seen: date | None = None
    last_seen: date | None = None
    lineage: Lineage | None = None
    trajectory: Trajectory | None = Field(default=None,
                                          description="trajectory over the last window, if computed")
    signals: list[Signal] = Field(default_factory=list)
    centroid: list[float] | None = Field(default=None, description="unit-length mean embedding of the "
                                         "node's papers; assign_papers routes new papers by it")
    dimension_shares: dict[str, float] = Field(
        default_factory=dict, description="share of the node's papers routed to each dimension")
    recent_trajectory: Trajectory | None = Field(
        default=None, description="pre-cutoff momentum: the last `recent_months` months up to the cutoff "
                                  "against the `recent_baseline_months` before them (cutoff-safe)")
    recent_lift: float | None = Field(default=None, description="share lift behind recent_trajectory")
    cohesion: float | None = Field(default=None,
                                   description="mean cosine of the node's papers to its centroid")


class Edge(BaseModel):
    """A method-evolution relation between two nodes."""

    model_config = ConfigDict(extra="forbid")

    source: str
    target: str
    relation: Relation
    evidence_ids: list[str] = Field(default_factory=list)
    weight: float = 1.0


class Snapshot(BaseModel):
    """The taxonomy T(d, t) of one domain at one cutoff, built from papers announced on or before it."""

    model_config = ConfigDict(extra="forbid")

    domain: str
    cutoff: date
    slice_index: int = 0
    slice_bounds: list[tuple[date, date]] = Field(default_factory=list)
    nodes: list[Node] = Field(default_factory=list)
    edges: list[Edge] = Field(default_factory=list)
    normalised_by: str = Field(default="", description="what monthly shares are relative to")
    reference_monthly: dict[str, int] = Field(default_factory=dict,
                                              description="'YYYY-MM' -> papers of the reference that "
                                                          "normalised_by names")
    paper_count: int = Field(default=0, description="papers the snapshot was induced from")
    embedding_model: str = Field(default="", description="embedding model of the centroids")

    def children(self, node_id: str | None) -> list[Node]:
        """Return the nodes whose parent is ``node_id`` (``None``: the top level), in stored order."""
        return [candidate for candidate in self.nodes if candidate.parent_id == node_id]

    def leaves(self) -> list[Node]:
        """Return the nodes without children."""
        parents = {candidate.parent_id for candidate in self.nodes}
        return [candidate for candidate in self.nodes if candidate.node_id not in parents]

    def node(self, node_id: str) -> Node:
        """Return a node by id; KeyError naming the id if absent."""
        for candidate in self.nodes:
            if candidate.node_id == node_id:
                return candidate
        raise KeyError(f"node {node_id!r} not in taxonomy of {self.domain} at {self.cutoff}")
