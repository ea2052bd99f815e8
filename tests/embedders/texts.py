"""Real title + abstract texts for the encoder tests (from the shared daily-arXiv corpus)."""

from __future__ import annotations

from foresci.kb.ingest import discover_sources, iter_source
from foresci.kb.models import Paper
from tests.conftest import require_shared


def real_abstracts(count: int) -> list[str]:
    """``Paper.text`` (title + abstract, what ``kb build`` embeds) of the first ``count`` papers of a few
    days spread over the corpus."""
    sources = discover_sources([require_shared("corpora/arxiv-daily")])[::60]
    per_day = count // len(sources) + 1
    texts: list[str] = []
    for source in sources:
        papers = (item for item in iter_source(source, 200_000) if isinstance(item, Paper))
        texts.extend(paper.text for _, paper in zip(range(per_day), papers, strict=False))
    return texts[:count]
