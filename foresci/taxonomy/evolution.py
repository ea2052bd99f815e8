"""Method-evolution edges (extension, adaptation, replacement, component reuse, competition).

Offline rule (``taxonomy/evolution.yaml``): for an older node A and a newer, similar node B, a paper
of B evidences A -> B when one of its sentences carries a relation cue and names one of A's key terms
that is not among B's own top terms. Time order, shared terms and cue sentences together make an edge.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from foresci.core.resources import declarative_file
from foresci.core.yamlio import load_yaml_model
from foresci.kb.models import Paper
from foresci.taxonomy.models import Edge, Node, Relation, Snapshot
from foresci.taxonomy.signals import any_of, split_sentences

RELATION_ORDER: tuple[Relation, ...] = ("extension", "adaptation", "replacement", "component_reuse",
                                        "competition")


class EvolutionRules(BaseModel):
    """Thresholds and cue patterns of ``taxonomy/evolution.yaml``."""

    model_config = ConfigDict(extra="forbid")

    min_similarity: float = Field(default=0.45, ge=-1.0, le=1.0)
    min_evidence: int = Field(default=2, ge=1)
    max_out: int = Field(default=3, ge=1)
    own_terms: int = Field(default=3, ge=0)
    relations: dict[Relation, list[str]]

    @classmethod
    def load(cls, path: Path | None = None) -> EvolutionRules:
        """Read the rules YAML (default ``taxonomy/evolution.yaml``); errors name the file."""
        path = path or declarative_file("taxonomy", "evolution.yaml")
        return load_yaml_model(path, cls, "evolution rules")


def _cue_sentences(paper: Paper, cues: dict[Relation, list[re.Pattern[str]]]) -> list[tuple[Relation, str]]:
    found: list[tuple[Relation, str]] = []
    for sentence in split_sentences(paper.text):
        lowered = sentence.lower()
        for relation in RELATION_ORDER:
            if any(pattern.search(lowered) for pattern in cues.get(relation, [])):
                found.append((relation, lowered))
    return found


def evolution_edges(snapshot: Snapshot, papers: Sequence[Paper], rules: EvolutionRules | None = None,
                    nodes: Sequence[Node] | None = None) -> list[Edge]:
    """Evolution edges among ``nodes`` (default: the snapshot's leaves), strongest first per source."""
    rules = rules or EvolutionRules.load()
    candidates = list(nodes) if nodes is not None else snapshot.leaves()
    candidates = [node for node in candidates if node.centroid is not None and node.first_seen is not None]
    if len(candidates) < 2:
        return []
    by_id = {paper.paper_id: paper for paper in papers}
    cues = {relation: any_of(patterns) for relation, patterns in rules.relations.items()}
    sentences = {paper_id: _cue_sentences(paper, cues) for paper_id, paper in by_id.items()}
    centroids = np.asarray([node.centroid for node in candidates], dtype=np.float32)
    similarity = centroids @ centroids.T
    edges: list[Edge] = []
    for source_index, source in enumerate(candidates):
        outgoing: list[Edge] = []
        for target_index, target in enumerate(candidates):
            if source_index == target_index or similarity[source_index, target_index] < rules.min_similarity:
                continue
            assert source.first_seen is not None and target.first_seen is not None
            if (source.first_seen, source.node_id) >= (target.first_seen, target.node_id):
                continue
            own = set(target.key_terms[:rules.own_terms])
            borrowed = [term for term in source.key_terms if term not in own]
            if not borrowed:
                continue
            relations: Counter[Relation] = Counter()
            evidence: list[str] = []
            for paper_id in target.paper_ids:
                hits = [relation for relation, sentence in sentences.get(paper_id, [])
                        if any(term in sentence for term in borrowed)]
                if hits:
                    evidence.append(paper_id)
                    relations.update(set(hits))
            if len(evidence) < rules.min_evidence:
                continue
            relation = max(RELATION_ORDER, key=lambda name: (relations[name], -RELATION_ORDER.index(name)))
            weight = round(len(evidence) * float(similarity[source_index, target_index]), 4)
            outgoing.append(Edge(source=source.node_id, target=target.node_id, relation=relation,
                                 evidence_ids=evidence[:20], weight=weight))
        outgoing.sort(key=lambda edge: (-edge.weight, edge.target))
        edges.extend(outgoing[:rules.max_out])
    return edges
