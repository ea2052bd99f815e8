"""Leakage: what concept emergence knows at t is byte-identical from a KB holding only papers up to t and
from the full KB (vocabulary, network, candidates, features, and each pair's question text)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from foresci.cli import build_app
from foresci.core.settings import Settings
from foresci.emergence.config import load_emergence_settings
from foresci.emergence.kb_source import kb_snapshot, window_papers
from foresci.emergence.questions import pair_option
from foresci.kb.build import build_kb
from foresci.kb.store import KnowledgeBase
from foresci.sim.emergence import EmergenceWorldConfig, generate_emergence_world, write_emergence_world

CONFIG = EmergenceWorldConfig(seed=4, difficulty=0.3, concepts=30, communities=3, papers_per_month=25,
                              months_before=6, window_months=2, signal_months=2, planted_pairs=6)


def _kb(world_dir: Path, out: Path, settings: Settings) -> KnowledgeBase:
    build_kb([world_dir / "corpus"], out, settings)
    return KnowledgeBase.open(out, settings)


@pytest.fixture(scope="module")
def kbs(tmp_path_factory: pytest.TempPathFactory) -> tuple[KnowledgeBase, KnowledgeBase]:
    """(full KB, KB of the papers up to the cutoff) of one small emergence world."""
    root = tmp_path_factory.mktemp("emergence-kbs")
    world = generate_emergence_world(CONFIG)
    write_emergence_world(world, root / "full")
    write_emergence_world(world, root / "truncated", until=CONFIG.cutoff)
    settings = Settings(cache_dir=root / "cache")
    full = _kb(root / "full", root / "kb-full", settings)
    return full, _kb(root / "truncated", root / "kb-truncated", settings)


@pytest.mark.slow
def test_snapshot_at_t_is_identical_with_a_truncated_kb(kbs: tuple[KnowledgeBase, KnowledgeBase]) -> None:
    full, truncated = kbs
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


@pytest.mark.slow
def test_cli_builds_and_scores_the_bulk_set(kbs: tuple[KnowledgeBase, KnowledgeBase], tmp_path: Path) -> None:
    full, truncated = kbs
    runner = CliRunner()
    args = ["emergence", "build", "--kb", str(full.path), "--cutoff", CONFIG.cutoff.isoformat(), "--out",
            str(tmp_path / "bulk"), "--domain", "all", "--window", "1"]
    result = runner.invoke(build_app(), args)
    assert result.exit_code == 0, result.output
    assert "all 1m:" in result.output and (tmp_path / "bulk" / "emergence_hidden.jsonl").is_file()
    scored = runner.invoke(build_app(), ["emergence", "score", str(tmp_path / "bulk"), "--baseline",
                                         "adamic_adar"])
    assert scored.exit_code == 0, scored.output
    auc = json.loads(scored.output)["all:1m"]["auc"]
    assert auc["low"] <= auc["value"] <= auc["high"]
    learned = runner.invoke(build_app(), ["emergence", "score", str(tmp_path / "bulk"), "--method",
                                          "learned_links", "--kb", str(full.path)])
    assert learned.exit_code == 0, learned.output
    found = json.loads(learned.output)["all:1m"]["auc"]
    assert found["low"] <= found["value"] <= found["high"] and found["value"] != auc["value"]
    refused = runner.invoke(build_app(), [*args[:3], str(truncated.path), *args[4:]])
    assert refused.exit_code != 0 and "has not closed" in str(refused.exception)


@pytest.mark.slow
def test_learned_links_model_is_identical_with_a_truncated_kb(
        kbs: tuple[KnowledgeBase, KnowledgeBase]) -> None:
    from foresci.emergence.pair_model import fit_domain_model
    from foresci.kb.retrieve import KBView

    full, truncated = kbs
    seen = fit_domain_model(KBView(full, CONFIG.cutoff), None, CONFIG.cutoff, CONFIG.window_months)
    alone = fit_domain_model(KBView(truncated, CONFIG.cutoff), None, CONFIG.cutoff, CONFIG.window_months)
    assert seen.model.training_positives > 0 and len(seen.probabilities) > 0
    assert seen.probabilities.tobytes() == alone.probabilities.tobytes()
    assert seen.codes.tobytes() == alone.codes.tobytes() and seen.model.note == alone.model.note
