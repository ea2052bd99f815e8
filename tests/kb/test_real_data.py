"""The real shared data: a few days of ../shared/corpora/arxiv-daily and the ResearchForesight KB layer."""

from __future__ import annotations

import gzip
import json
from datetime import date
from pathlib import Path

from foresci.core.settings import Settings
from foresci.kb.build import build_kb
from foresci.kb.ingest import ingest
from foresci.kb.models import VENUE_FAMILIES
from foresci.kb.retrieve import KBView
from foresci.kb.store import KnowledgeBase
from tests.conftest import require_shared

DAYS = ["2025-11-03.jsonl.gz", "2025-11-05.jsonl.gz", "2025-11-06.jsonl.gz"]


def _raw_ids(paths: list[Path]) -> set[str]:
    ids = set()
    for path in paths:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            ids.update(json.loads(line)["id"].split("v")[0] for line in handle if line.strip())
    return ids


def test_real_daily_files_ingest_cleanly() -> None:
    folder = require_shared("corpora/arxiv-daily")
    paths = [folder / name for name in DAYS]
    result = ingest(paths, max_row_bytes=200_000)
    assert not result.quarantined
    assert {paper.paper_id for paper in result.papers} == _raw_ids(paths)
    assert {paper.announced for paper in result.papers} <= {date.fromisoformat(name[:10]) for name in DAYS}
    for paper in result.papers:
        assert paper.title and paper.categories
        assert all(not author.startswith("[") and "'" not in author[:1] for author in paper.authors)
        assert paper.venue_family is None or paper.venue_family in VENUE_FAMILIES
    assert any(paper.venue_family for paper in result.papers)


def test_real_kb_layer_carries_limitations_and_future_work() -> None:
    layer = require_shared("releases/researchforesight-kb-layer")
    result = ingest([layer], max_row_bytes=2_000_000)
    assert not result.quarantined
    content_rows = sum(1 for path in layer.rglob("content.jsonl") for line in path.open() if line.strip())
    assert len(result.papers) + result.duplicates == content_rows
    assert sum(1 for paper in result.papers if paper.limitations) > 10
    assert sum(1 for paper in result.papers if paper.future_work) > 10
    assert all(paper.source == "researchforesight-kb-layer" for paper in result.papers)


def test_real_day_builds_and_searches(tmp_path: Path, kb_cache: Path) -> None:
    folder = require_shared("corpora/arxiv-daily")
    settings = Settings(cache_dir=kb_cache, kb={"embed_field": "title"})
    build_kb([folder / DAYS[0], folder / DAYS[1]], tmp_path / "kb", settings)
    kb = KnowledgeBase.open(tmp_path / "kb", settings)
    view = KBView(kb, date(2025, 11, 3))
    hits = view.search("retrieval-augmented generation", k=10)
    assert hits and all(hit.paper.announced == date(2025, 11, 3) for hit in hits)
    assert sum(len(view.papers(domain)) for domain in kb.domains) > 0
