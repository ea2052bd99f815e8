"""Readable node names: noun phrases mined from a node's own papers (offline), KeyBERT-style.

For every node of a snapshot the noun phrases (:mod:`foresci.taxonomy.phrases`) of its papers' titles and
abstracts are counted by document. A candidate must occur near-verbatim in at least ``min_support`` of the
node's papers and be over-represented against the parent (top level: against all papers of the snapshot),
scored ``share * log(share / reference share)``. With an embedder (the KB's own model) the candidates are
re-ranked by cosine similarity to the node's centroid, and further key phrases are picked by maximal
marginal relevance. A phrase used by more than ``max_domain_share`` of all the snapshot's papers ("large
language models" in an LLM domain) names a node only when nothing more specific qualifies. Names are
unique within a snapshot (parents choose first). A node without a qualifying
phrase keeps its term label, and its evidence says so (``method="label"``).

Boilerplate ("findings highlight", "language processing", "success rate") is learned from the corpus,
not listed: with the papers' embeddings, a phrase used by ``boilerplate_min_papers`` or more of the
snapshot's papers gets a *topical concentration*, how much closer together the papers using it are than
random papers of the domain (:func:`topical_concentration`, corrected for how many papers use it). Papers
that share a research direction are close; papers that merely share a stock phrase are as spread out as
the whole domain. Phrases in the lowest ``boilerplate_quantile`` of the domain's concentrations name a
node only when nothing else qualifies, like domain-generic ones.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from foresci.taxonomy.models import NameEvidence, Node, Snapshot
from foresci.taxonomy.phrases import SurfaceCounts, document_phrase_rows, subsumed

EmbedFn = Callable[[Sequence[str]], np.ndarray]


@dataclass(frozen=True)
class NamingSettings:
    """Thresholds of offline naming."""

    min_support: int = 3
    min_words: int = 2
    max_words: int = 8
    candidates: int = 40
    alternatives: int = 4
    max_papers: int = 600
    mmr_diversity: float = 0.4
    max_domain_share: float = 0.1
    boilerplate_min_papers: int = 8
    boilerplate_quantile: float = 0.35


@dataclass
class Candidate:
    """One candidate name of one node."""

    key: str
    text: str
    support: int
    weight: float
    score: float = 0.0


class PhraseIndex:
    """Noun phrases of each paper (computed once per paper, on demand)."""

    def __init__(self, texts: Mapping[str, str], settings: NamingSettings) -> None:
        self.texts = texts
        self.settings = settings
        self._phrases: dict[str, dict[str, SurfaceCounts]] = {}

    def phrases(self, paper_id: str) -> dict[str, SurfaceCounts]:
        """Phrase key -> (surface form, count) pairs of one paper (empty for an unknown paper)."""
        found = self._phrases.get(paper_id)
        if found is None:
            text = self.texts.get(paper_id, "")
            found = dict(document_phrase_rows(text, self.settings.min_words, self.settings.max_words))
            self._phrases[paper_id] = found
        return found

    def document_frequency(self, paper_ids: Sequence[str]) -> Counter[str]:
        """Phrase key -> number of the given papers using it."""
        counts: Counter[str] = Counter()
        for paper_id in paper_ids:
            counts.update(self.phrases(paper_id).keys())
        return counts

    def surface(self, key: str, paper_ids: Sequence[str]) -> str:
        """The most common written form of a phrase among the given papers."""
        return self.surfaces([key], paper_ids)[key]

    def surfaces(self, keys: Sequence[str], paper_ids: Sequence[str]) -> dict[str, str]:
        """:meth:`surface` of each key, in one pass over the papers."""
        forms: dict[str, Counter[str]] = {key: Counter() for key in keys}
        for paper_id in paper_ids:
            found = self.phrases(paper_id)
            for key, counts in forms.items():
                used = found.get(key)
                if used:
                    counts.update(dict(used))
        return {key: min(counts.items(), key=lambda item: (-item[1], item[0]))[0] if counts else key
                for key, counts in forms.items()}

    def using(self, key: str, paper_ids: Sequence[str]) -> list[str]:
        """Those of the given papers that use the phrase."""
        return [paper_id for paper_id in paper_ids if key in self.phrases(paper_id)]


def _sample(paper_ids: Sequence[str], representatives: Sequence[str], limit: int) -> list[str]:
    """Representatives first, then an even spread of the rest, ``limit`` at most (deterministic)."""
    chosen = list(dict.fromkeys(paper_id for paper_id in representatives if paper_id in set(paper_ids)))
    rest = [paper_id for paper_id in paper_ids if paper_id not in set(chosen)]
    room = max(0, limit - len(chosen))
    if len(rest) > room:
        step = len(rest) / room if room else 0
        rest = [rest[int(index * step)] for index in range(room)]
    return chosen + rest


def contrastive_candidates(focus: Counter[str], focus_size: int, reference: Counter[str],
                           reference_size: int, settings: NamingSettings) -> list[tuple[str, int, float]]:
    """(key, support, weight) of phrases frequent in the focus papers and over-represented against the
    reference papers, best first; when none is over-represented (the reference is the focus itself, as
    for a single top-level node), the most frequent phrases."""
    smoothing = 1.0 / max(1, reference_size)
    scored: list[tuple[str, int, float]] = []
    dropped = subsumed({key: count for key, count in focus.items() if count >= settings.min_support})
    for key, count in focus.items():
        words = len(key.split())
        if count < settings.min_support or not settings.min_words <= words <= settings.max_words:
            continue
        if key in dropped:
            continue
        share = count / max(1, focus_size)
        reference_share = reference.get(key, 0) / max(1, reference_size)
        weight = share * math.log((share + smoothing) / (reference_share + smoothing))
        scored.append((key, count, weight))
    if any(weight > 0 for _, _, weight in scored):
        scored = [item for item in scored if item[2] > 0]
    else:
        scored = [(key, count, count / max(1, focus_size)) for key, count, _ in scored]
    scored.sort(key=lambda item: (-item[2], item[0]))
    return scored[:settings.candidates]


def rank_candidates(candidates: list[Candidate], centroid: np.ndarray | None,
                    vectors: np.ndarray | None) -> None:
    """Score candidates in place: normalised contrast weight, plus cosine to the centroid when embedded."""
    top = max((candidate.weight for candidate in candidates), default=1.0) or 1.0
    for index, candidate in enumerate(candidates):
        relevance = float(vectors[index] @ centroid) if vectors is not None and centroid is not None else 0.0
        candidate.score = round(candidate.weight / top + relevance, 4)


def mmr(order: Sequence[int], vectors: np.ndarray | None, scores: Sequence[float], count: int,
        diversity: float) -> list[int]:
    """Maximal marginal relevance: indices picked for score, penalised by similarity to earlier picks."""
    picked: list[int] = []
    remaining = list(order)
    while remaining and len(picked) < count:
        def value(index: int) -> float:
            if vectors is None or not picked:
                return float(scores[index])
            redundancy = float(np.max(vectors[picked] @ vectors[index]))
            return (1 - diversity) * float(scores[index]) - diversity * redundancy

        best = max(remaining, key=value)
        picked.append(best)
        remaining.remove(best)
    return picked


def topical_concentration(users: Mapping[str, Sequence[str]], vectors: Mapping[str, np.ndarray],
                          population: Sequence[str]) -> dict[str, float]:
    """Phrase key -> how much closer together the papers using it are than random papers of ``population``.

    With unit paper vectors, the squared length of a mean of ``n`` random papers is on average
    ``R0² + (1 - R0²) / n`` (``R0``: length of the population's mean vector); the concentration is the
    excess of the phrase's papers over that, scaled by ``1 - R0²``: about 0 for a stock phrase scattered
    over the domain, larger the more its papers form one direction.
    """
    rows = [vectors[paper_id] for paper_id in population if paper_id in vectors]
    if not rows:
        return {}
    matrix = np.asarray(rows, dtype=np.float64)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    mean = matrix.mean(axis=0)
    base = float(mean @ mean)
    spread = max(1e-9, 1.0 - base)
    row_of = {paper_id: index for index, paper_id in
              enumerate(paper_id for paper_id in population if paper_id in vectors)}
    found: dict[str, float] = {}
    for key, paper_ids in users.items():
        indices = [row_of[paper_id] for paper_id in paper_ids if paper_id in row_of]
        if len(indices) < 2:
            continue
        centre = matrix[indices].mean(axis=0)
        found[key] = (float(centre @ centre) - base - spread / len(indices)) / spread
    return found


def boilerplate_keys(index: PhraseIndex, frequency: Counter[str], population: Sequence[str],
                     vectors: Mapping[str, np.ndarray], settings: NamingSettings) -> frozenset[str]:
    """Phrases used by at least ``boilerplate_min_papers`` of ``population`` whose topical concentration is
    in the lowest ``boilerplate_quantile`` of those phrases (learned from the corpus, no hand list)."""
    frequent = {key for key, count in frequency.items() if count >= settings.boilerplate_min_papers}
    if not frequent or not vectors:
        return frozenset()
    users: dict[str, list[str]] = {}
    for paper_id in population:
        for key in index.phrases(paper_id):
            if key in frequent:
                users.setdefault(key, []).append(paper_id)
    concentration = topical_concentration(users, vectors, population)
    if not concentration:
        return frozenset()
    threshold = float(np.quantile(list(concentration.values()), settings.boilerplate_quantile))
    return frozenset(key for key, value in concentration.items() if value < threshold)


def name_snapshot(snapshot: Snapshot, texts: Mapping[str, str], embed: EmbedFn | None = None,
                  settings: NamingSettings | None = None,
                  vectors: Mapping[str, np.ndarray] | None = None) -> None:
    """Give every node of ``snapshot`` a name and name evidence (in place).

    ``texts``: paper id -> title and abstract, for the snapshot's papers (all announced on or before its
    cutoff, so names cannot leak later vocabulary); ``embed``: the KB's embedder, or None for lexical
    ranking only; ``vectors``: paper id -> embedding of the snapshot's papers, to learn boilerplate
    phrases (:func:`boilerplate_keys`; none without them).
    """
    settings = settings or NamingSettings()
    index = PhraseIndex(texts, settings)
    members = {node.node_id: _sample(node.paper_ids, node.representative_ids, settings.max_papers)
               for node in snapshot.nodes}
    frequency = {node_id: index.document_frequency(paper_ids) for node_id, paper_ids in members.items()}
    top_level = [node for node in snapshot.nodes if node.parent_id is None]
    everything = sorted({paper_id for node in top_level for paper_id in members[node.node_id]})
    all_frequency = index.document_frequency(everything)
    boilerplate = boilerplate_keys(index, all_frequency, everything, vectors or {}, settings)
    used: set[str] = set()
    for node in snapshot.nodes:
        parent = node.parent_id if node.parent_id in frequency else None
        reference = frequency[parent] if parent else all_frequency
        reference_size = len(members[parent]) if parent else len(everything)
        found = contrastive_candidates(frequency[node.node_id], len(members[node.node_id]), reference,
                                       reference_size, settings)
        specific = [item for item in found if item[0] not in boilerplate
                    and all_frequency.get(item[0], 0) <= settings.max_domain_share * len(everything)]
        paper_ids = members[node.node_id]
        for pool in (specific, found):
            texts = index.surfaces([key for key, _, _ in pool], paper_ids)
            candidates = [Candidate(key=key, text=texts[key], support=support, weight=weight)
                          for key, support, weight in pool]
            if _choose(node, candidates, index, paper_ids, embed, used, settings):
                break
        else:
            node.name = node.label
            node.name_evidence = NameEvidence(method="label")


def _choose(node: Node, candidates: list[Candidate], index: PhraseIndex, paper_ids: Sequence[str],
            embed: EmbedFn | None, used: set[str], settings: NamingSettings) -> bool:
    """Name ``node`` by its best candidate not used yet; False when every candidate is taken."""
    fresh = [candidate for candidate in candidates if candidate.key not in used]
    if not fresh:
        return False
    vectors = embed([candidate.text for candidate in fresh]) if embed is not None else None
    centroid = np.asarray(node.centroid, dtype=np.float32) if node.centroid is not None else None
    if vectors is not None and centroid is not None and vectors.shape[1] != centroid.shape[0]:
        vectors = None
    rank_candidates(fresh, centroid, vectors)
    order = sorted(range(len(fresh)), key=lambda position: (-fresh[position].score, fresh[position].key))
    picked = mmr(order, vectors, [candidate.score for candidate in fresh], settings.alternatives + 1,
                 settings.mmr_diversity)
    best = fresh[order[0]]
    used.add(best.key)
    node.name = best.text
    node.name_evidence = NameEvidence(
        method="phrase_mining", support=best.support, paper_ids=index.using(best.key, paper_ids)[:5],
        score=best.score,
        alternatives=[fresh[position].text for position in picked if fresh[position] is not best])
    return True


def kb_embed_function(kb: Any, settings: Any) -> EmbedFn | None:
    """The KB's own embedder (the model its vectors were made with, cached under ``settings.cache_dir``),
    or None when the KB does not say which model it used."""
    meta = getattr(kb, "meta", None)
    model = meta.get("embed_model") if isinstance(meta, dict) else None
    if not model:
        return None
    from pathlib import Path

    from foresci.embedders.embedder import Embedder

    cache_dir = getattr(settings, "cache_dir", None)
    embedder = Embedder(model=model, cache_dir=Path(cache_dir) if cache_dir else None)
    return embedder.encode


def display_name(node: Node) -> str:
    """A node's readable name: its mined or checked name, else its term label with separators as spaces."""
    if node.name:
        return node.name
    return " ".join(node.label.replace("_", " ").replace("/", " / ").split())
