"""The `foresci kb` commands end to end on the generated corpus."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from foresci.cli import app
from foresci.kb.store import KnowledgeBase


@pytest.fixture
def cli_env(kb_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORESCI_CACHE_DIR", str(kb_cache))
    monkeypatch.setenv("COLUMNS", "200")


def test_build_update_search_stats(tmp_path: Path, daily_corpus: tuple[Path, dict], cli_env: None) -> None:
    runner = CliRunner()
    days = sorted(daily_corpus[0].glob("*.jsonl"))
    out = tmp_path / "kb"
    built = runner.invoke(app, ["kb", "build", *map(str, days[:3]), "--out", str(out)])
    assert built.exit_code == 0, built.output
    assert '"papers": 36' in built.output  # JSON, not a Python dict
    updated = runner.invoke(app, ["kb", "update", str(out), str(days[3])])
    assert updated.exit_code == 0, updated.output
    assert '"mode": "append"' in updated.output and '"added": 12' in updated.output
    kb = KnowledgeBase.open(out)
    cutoff = kb.papers()[20].announced
    searched = runner.invoke(
        app, ["kb", "search", str(out), "diffusion image", "--cutoff", cutoff.isoformat(), "-k", "3"]
    )
    assert searched.exit_code == 0, searched.output
    shown_dates = [token for token in searched.output.split() if token.startswith("2025-03-")]
    assert shown_dates and all(token <= cutoff.isoformat() for token in shown_dates)
    stats = runner.invoke(app, ["kb", "stats", str(out)])
    assert stats.exit_code == 0, stats.output
    assert "48 papers" in stats.output and "quarantined rows: 0" in stats.output
    assert "llm_agent" in stats.output and "2025-03" in stats.output


def test_search_rejects_a_bad_cutoff(built_kb: KnowledgeBase, cli_env: None) -> None:
    result = CliRunner().invoke(app, ["kb", "search", str(built_kb.path), "agents", "--cutoff", "March"])
    assert result.exit_code != 0
    assert "YYYY-MM-DD" in result.output


def test_missing_kb_names_the_folder(tmp_path: Path, cli_env: None) -> None:
    result = CliRunner().invoke(app, ["kb", "stats", str(tmp_path / "nowhere")])
    assert result.exit_code != 0
    assert "nowhere" in str(result.exception)
