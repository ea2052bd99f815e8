"""Domain screening: every paper gets core / support / excluded per domain, with the reason.

Rules (per domain; thresholds from the domain YAML or ``settings.kb``):
  1. the domain lists arXiv categories and the paper has none of them -> excluded;
  2. an exclude keyword appears and no include keyword is in the title -> excluded;
  3. core when an include keyword is in the title, or two distinct include keywords appear, and the
     embedding similarity to the closest seed description reaches the support threshold; or when
     the similarity alone reaches the core threshold;
  4. support when any include keyword appears or the similarity reaches the support threshold;
  5. otherwise excluded.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from foresci.kb.config import KBSettings
from foresci.kb.domains import DomainSpec
from foresci.kb.models import Paper, ScreenDecision, ScreenStatus


def keyword_pattern(phrases: Sequence[str]) -> re.Pattern[str] | None:
    """One case-insensitive regex matching any phrase on word boundaries (None for no phrases)."""
    if not phrases:
        return None
    alternatives = sorted({re.escape(phrase) for phrase in phrases}, key=len, reverse=True)
    return re.compile(r"(?<![a-z0-9])(?:" + "|".join(alternatives) + r")(?![a-z0-9])")


def _hits(pattern: re.Pattern[str] | None, text: str) -> list[str]:
    if pattern is None:
        return []
    return sorted({match.group(0) for match in pattern.finditer(text)})


class DomainScreener:
    """Screens papers for one domain, given the embeddings of the domain's seed descriptions."""

    def __init__(self, spec: DomainSpec, seed_vectors: np.ndarray, settings: KBSettings) -> None:
        self.spec = spec
        self.seed_vectors = np.asarray(seed_vectors, dtype=np.float32)
        self.include = keyword_pattern(spec.include_keywords)
        self.exclude = keyword_pattern(spec.exclude_keywords)
        self.categories = set(spec.categories)
        self.support_threshold = (
            spec.support_similarity if spec.support_similarity is not None else settings.screen_threshold
        )
        self.core_threshold = (
            spec.core_similarity if spec.core_similarity is not None else settings.core_threshold
        )

    def similarities(self, vectors: np.ndarray) -> np.ndarray:
        """Cosine similarity of each (normalised) paper vector to its closest seed description."""
        if len(vectors) == 0:
            return np.zeros(0, dtype=np.float32)
        return np.asarray((vectors @ self.seed_vectors.T).max(axis=1), dtype=np.float32)

    def decide(self, paper: Paper, similarity: float) -> ScreenDecision:
        """The screen verdict for one paper with its similarity to the closest seed."""
        status, reason = self._rule(paper, similarity)
        return ScreenDecision(
            paper_id=paper.paper_id,
            domain=self.spec.slug,
            status=status,
            reason=reason,
            similarity=round(float(similarity), 4),
        )

    def _rule(self, paper: Paper, similarity: float) -> tuple[ScreenStatus, str]:
        if self.categories and not self.categories.intersection(paper.categories):
            return "excluded", "no category among " + ", ".join(sorted(self.categories))
        title = paper.title.lower()
        text = f"{title} {paper.abstract.lower()}"
        title_hits = _hits(self.include, title)
        hits = _hits(self.include, text)
        excluded_by = _hits(self.exclude, text)
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
        if hits:
            return "support", f"keyword '{hits[0]}'; {sim}"
        if similarity >= self.support_threshold:
            return "support", f"no keyword; {sim} >= {self.support_threshold:.2f}"
        return "excluded", f"no keyword; {sim} < {self.support_threshold:.2f}"


def screen_papers(
    papers: Sequence[Paper], vectors: np.ndarray, screeners: Sequence[DomainScreener]
) -> list[ScreenDecision]:
    """Screen every paper for every domain; ``vectors`` are the papers' normalised embeddings."""
    decisions: list[ScreenDecision] = []
    for screener in screeners:
        similarities = screener.similarities(vectors)
        decisions.extend(
            screener.decide(paper, float(similarity))
            for paper, similarity in zip(papers, similarities, strict=True)
        )
    return decisions
