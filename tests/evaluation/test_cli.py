"""`foresci eval` and `foresci report` through the real CLI (offline; the packaged MiniLM embedder)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from foresci.cli import app


def test_eval_then_report(tmp_path: Path, run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORESCI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("FORESCI_EVALUATION__BOOTSTRAP_SAMPLES", "100")
    runner = CliRunner()
    result = runner.invoke(app, ["eval", str(run_dir), "--offline"])
    assert result.exit_code == 0, result.output
    assert "leaderboard" in result.output and "11 rows scored, 1 answer errors" in result.output
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["offline"] is True and summary["counts"]["scored"] == 11
    result = runner.invoke(app, ["report", str(run_dir), "--out", str(tmp_path / "report")])
    assert result.exit_code == 0, result.output
    html = (tmp_path / "report" / "index.html").read_text()
    assert "<script>" in html and 'id="leaderboard"' in html and "data:image/png;base64," in html
    assert "http://" not in html and "https://" not in html  # self-contained


def test_eval_reports_a_missing_run_folder(tmp_path: Path) -> None:
    arguments = ["eval", str(tmp_path / "nope"), "--offline", "--release", str(tmp_path)]
    result = CliRunner().invoke(app, arguments)
    said = result.output + str(result.exception)
    assert result.exit_code == 1 and "nope" in said and "no such folder" in said
