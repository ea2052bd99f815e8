"""Leakage: what concept emergence knows at t is byte-identical from a KB holding only papers up to t and
from the full KB (vocabulary, network, candidates, features, and each pair's question text)."""

from __future__ import annotations

from pathlib import Path

import pytest

from foresci.emergence.config import load_emergence_settings
from foresci.emergence.kb_source import kb_snapshot, window_papers
from foresci.emergence.questions import pair_option
from foresci.kb.build import build_kb
from foresci.kb.store import KnowledgeBase
from foresci.settings import Settings
from foresci.sim.emergence import EmergenceWorldConfig, generate_emergence_world, write_emergence_world

CONFIG = EmergenceWorldConfig(seed=4, difficulty=0.3, concepts=30, communities=3, papers_per_month=25,
                              months_before=6, window_months=2, signal_months=2, planted_pairs=6)


def _kb(world_dir: Path, out: Path, settings: Settings) -> KnowledgeBase:
    build_kb([world_dir / "corpus"], out, settings)
    return KnowledgeBase.open(out, settings)


@pytest.mark.slow
def test_snapshot_at_t_is_identical_with_a_truncated_kb(tmp_path: Path) -> None:
    world = generate_emergence_world(CONFIG)
    write_emergence_world(world, tmp_path / "full")
    write_emergence_world(world, tmp_path / "truncated", until=CONFIG.cutoff)
    settings = Settings(cache_dir=tmp_path / "cache")
    full = _kb(tmp_path / "full", tmp_path / "kb-full", settings)
    truncated = _kb(tmp_path / "truncated", tmp_path / "kb-truncated", settings)
    assert full.size > truncated.size  # the full KB holds the window
    emergence = load_emergence_settings()
    emergence = emergence.model_copy(update={"vocabulary": emergence.vocabulary.model_copy(
        update={"min_document_frequency": 2})})
    seen = kb_snapshot(full, CONFIG.cutoff, CONFIG.window_months, emergence)
    alone = kb_snapshot(truncated, CONFIG.cutoff, CONFIG.window_months, emergence)
    assert seen.digests() == alone.digests()
    assert seen.vocabulary.to_json() == alone.vocabulary.to_json()
    assert len(seen.vocabulary) >= 25 and seen.candidates.total > 0
    assert seen.network.last_read is not None and seen.network.last_read <= CONFIG.cutoff
    columns = seen.paper_concepts.tocsc()
    for row in range(len(seen.candidates.pairs)):  # the text and signals an LLM question shows
        assert pair_option(seen, row, columns) == pair_option(alone, row)
    window = window_papers(full, CONFIG.cutoff, CONFIG.window_end, emergence)
    assert window and all(paper.announced > CONFIG.cutoff for paper in window)
    assert not window_papers(truncated, CONFIG.cutoff, CONFIG.window_end, emergence)
