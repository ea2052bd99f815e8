"""Domain screening: every paper gets core / support / excluded per domain, with the reason.

Rules (per domain; thresholds from the domain YAML or ``settings.kb``):
  1. the domain lists arXiv categories and the paper has none of them -> excluded;
  2. an exclude keyword appears and no include keyword is in the title -> excluded;
  3. core when an include keyword is in the title, or two distinct include keywords appear, and the
     embedding similarity to the closest seed description reaches the support threshold; or when
     the similarity alone reaches the core threshold;
  4. support when an include keyword appears and the similarity reaches the keyword floor, or the
     similarity alone reaches the support threshold;
  5. otherwise excluded.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence

import numpy as np

from foresci.kb.config import KBSettings
from foresci.kb.domains import DomainSpec
from foresci.kb.models import Paper, ScreenDecision, ScreenStatus


class KeywordSet:
    """Case-insensitive whole-word phrase matching: a fast substring test, then a boundary check."""

    def __init__(self, phrases: Sequence[str]) -> None:
        unique = sorted({" ".join(phrase.lower().split()) for phrase in phrases if phrase.strip()})
        self.patterns = [
            (phrase, re.compile(r"(?<![a-z0-9])" + re.escape(phrase) + r"(?![a-z0-9])")) for phrase in unique
        ]

    def hits(self, lowered: str) -> list[str]:
        """The phrases occurring as whole words in an already lower-cased text, sorted."""
        return [phrase for phrase, pattern in self.patterns if phrase in lowered and pattern.search(lowered)]


class DomainScreener:
    """Screens papers for one domain, given the embeddings of the domain's seed descriptions."""

    def __init__(self, spec: DomainSpec, seed_vectors: np.ndarray, settings: KBSettings) -> None:
        self.spec = spec
        self.seed_vectors = np.asarray(seed_vectors, dtype=np.float32)
        self.include = KeywordSet(spec.include_keywords)
        self.exclude = KeywordSet(spec.exclude_keywords)
        self.categories = set(spec.categories)
        self.support_threshold = (
            spec.support_similarity if spec.support_similarity is not None else settings.screen_threshold
        )
        self.keyword_floor = settings.keyword_floor
        self.core_threshold = (
            spec.core_similarity if spec.core_similarity is not None else settings.core_threshold
        )

    def similarities(self, vectors: np.ndarray) -> np.ndarray:
        """Cosine similarity of each (normalised) paper vector to its closest seed description."""
        if len(vectors) == 0:
            return np.zeros(0, dtype=np.float32)
        return np.asarray((vectors @ self.seed_vectors.T).max(axis=1), dtype=np.float32)

    def decide(
        self, paper: Paper, similarity: float, lowered: tuple[str, str] | None = None
    ) -> ScreenDecision:
        """The screen verdict for one paper with its similarity to the closest seed.

        ``lowered`` is (title, title + abstract) lower-cased, when the caller already has it.
        """
        title, text = lowered or _lowered(paper)
        status, reason = self._rule(paper, similarity, title, text)
        return ScreenDecision(
            paper_id=paper.paper_id,
            domain=self.spec.slug,
            status=status,
            reason=reason,
            similarity=round(float(similarity), 4),
        )

    def _rule(self, paper: Paper, similarity: float, title: str, text: str) -> tuple[ScreenStatus, str]:
        if self.categories and not self.categories.intersection(paper.categories):
            return "excluded", "no category among " + ", ".join(sorted(self.categories))
        hits = self.include.hits(text)
        title_hits = [hit for hit in hits if hit in title] and self.include.hits(title)
        excluded_by = self.exclude.hits(text)
        sim = f"similarity {similarity:.2f}"
        if excluded_by and not title_hits:
            return "excluded", f"exclude keyword '{excluded_by[0]}'"
        if (title_hits or len(hits) >= 2) and similarity >= self.support_threshold:
            where = (
                f"title keyword '{title_hits[0]}'"
                if title_hits
                else "keywords " + ", ".join(f"'{hit}'" for hit in hits[:3])
            )
            return "core", f"{where}; {sim} >= {self.support_threshold:.2f}"
        if similarity >= self.core_threshold:
            return "core", f"{sim} >= core threshold {self.core_threshold:.2f}"
        if hits and similarity >= self.keyword_floor:
            return "support", f"keyword '{hits[0]}'; {sim} >= keyword floor {self.keyword_floor:.2f}"
        if similarity >= self.support_threshold:
            return "support", f"no keyword; {sim} >= {self.support_threshold:.2f}"
        return "excluded", f"no keyword; {sim} < {self.support_threshold:.2f}"


def screen_papers(
    papers: Sequence[Paper], vectors: np.ndarray, screeners: Sequence[DomainScreener]
) -> list[ScreenDecision]:
    """Screen every paper for every domain; ``vectors`` are the papers' normalised embeddings."""
    lowered = [_lowered(paper) for paper in papers]
    decisions: list[ScreenDecision] = []
    for screener in screeners:
        similarities = screener.similarities(vectors)
        decisions.extend(
            screener.decide(paper, float(similarity), texts)
            for paper, similarity, texts in zip(papers, similarities, lowered, strict=True)
        )
    return decisions


def _lowered(paper: Paper) -> tuple[str, str]:
    title = paper.title.lower()
    return title, f"{title} {paper.abstract.lower()}"


def screening_scores(
    decisions: Sequence[ScreenDecision], labels: Mapping[str, Collection[str]], domains: Sequence[str]
) -> dict[str, dict[str, float | int]]:
    """Precision and recall of 'core' decisions per domain against one labelled domain per paper.

    ``labels``: paper id -> the domains whose core it belongs to (e.g. the domain folders in which the
    ResearchForesight KB layer files it with ``scope_decision == "core_domain"``). A paper screened core
    for a domain it is not labelled with counts as a false positive there.
    """
    scores: dict[str, dict[str, float | int]] = {}
    for domain in domains:
        predicted = {decision.paper_id for decision in decisions
                     if decision.domain == domain and decision.status == "core"}
        kept = {decision.paper_id for decision in decisions
                if decision.domain == domain and decision.status in ("core", "support")}
        positive = {paper_id for paper_id, labelled in labels.items() if domain in labelled}
        hits = len(predicted & positive)
        scores[domain] = {
            "labelled": len(positive), "screened_core": len(predicted), "true_core": hits,
            "precision": round(hits / len(predicted), 4) if predicted else 0.0,
            "recall": round(hits / len(positive), 4) if positive else 0.0,
            "recall_core_or_support": round(len(kept & positive) / len(positive), 4) if positive else 0.0,
        }
    return scores


CANDIDATE_STATUSES: tuple[ScreenStatus, ...] = ("core",)
"""Screen statuses whose papers count as a domain's evidence in tasks (domain purity): a node's counts,
its window papers and so its candidacy rest on the domain's core papers only; the taxonomy itself is induced
from the statuses in ``taxonomy.member_statuses`` (core only by default), so no node, and no option drawn
from one, is an off-domain direction (say, RAG inside visual generation)."""
