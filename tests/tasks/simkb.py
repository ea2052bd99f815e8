"""A fast stand-in for the KB over a generated world, for the tasks tests.

Papers come through the real ingest; the domain is the world's invented arXiv category; embeddings are
hashed bag-of-words vectors (the invented vocabulary separates directions well), so no sentence model runs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import date
from pathlib import Path

import numpy as np

from foresci.kb.ingest import ingest
from foresci.kb.models import Paper
from foresci.sim.truth import GroundTruth
from foresci.tasks.text import content_tokens

DIMENSION = 512


def hashed_embedding(text: str) -> np.ndarray:
    """Unit-length hashed bag of content words."""
    vector = np.zeros(DIMENSION, dtype=np.float32)
    for token in content_tokens(text):
        vector[int(hashlib.md5(token.encode()).hexdigest()[:8], 16) % DIMENSION] += 1.0
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector


class SimKB:
    """papers / embeddings / domains / max_date over a generated world, optionally truncated."""

    def __init__(self, root: Path, truth: GroundTruth, until: date | None = None) -> None:
        result = ingest([root / "corpus"], max_row_bytes=200_000)
        categories = {domain.category: domain.slug for domain in truth.domains}
        self._papers = [paper for paper in result.papers if paper.primary_category in categories
                        and (until is None or paper.announced <= until)]
        self._domain_of = {paper.paper_id: categories[str(paper.primary_category)] for paper in self._papers}
        self._vectors = {paper.paper_id: hashed_embedding(paper.text) for paper in self._papers}
        self.domains = [domain.slug for domain in truth.domains]
        self.max_date = max(paper.announced for paper in self._papers)
        self.fingerprint = f"sim-{until}"
        self.path = root

    def papers(self, until: date | None = None, since: date | None = None, domain: str | None = None,
               statuses: Sequence[str] = ("core", "support")) -> list[Paper]:
        """Papers of a domain in [since, until], announcement order."""
        return [paper for paper in self._papers if (until is None or paper.announced <= until)
                and (since is None or paper.announced >= since)
                and (domain is None or self._domain_of[paper.paper_id] == domain)]

    def embeddings(self, paper_ids: Sequence[str]) -> np.ndarray:
        """Hashed bag-of-words rows, same order as the ids."""
        if not paper_ids:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        return np.stack([self._vectors[paper_id] for paper_id in paper_ids])
