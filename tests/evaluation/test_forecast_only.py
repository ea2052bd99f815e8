"""A run with forecasts only: `foresci eval` prints its CRPS/Brier leaderboard and needs no judge, and
its report calls the evaluation offline, not judged."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

from foresci.cli import run_cli
from foresci.contracts import ForecastAnswer
from foresci.core.io import read_json, write_json, write_jsonl
from tests.evaluation.fixtures import release_rows


def test_forecast_only_run_prints_its_leaderboard_and_is_offline(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("FORESCI_LLM__BASE_URL", "FORESCI_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FORESCI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("COLUMNS", "160")
    _, _, questions, resolutions = release_rows()
    package = tmp_path / "package"
    write_jsonl(package / "forecast.jsonl", questions)
    write_jsonl(package / "resolutions.jsonl", resolutions)
    run = tmp_path / "run"
    write_jsonl(run / "forecasts.jsonl", [
        ForecastAnswer(question_id="Q1", method="trend", p10=40, p50=70, p90=100),
        ForecastAnswer(question_id="Q2", method="trend", probability=0.3),
    ])
    write_json(run / "manifest.json", {"kind": "run", "inputs": {"release": str(package)}})
    assert run_cli(["eval", str(run)]) == 0  # not --offline, and no LLM: forecasts need no judge
    printed = capsys.readouterr().out
    assert "forecasts (offline" in printed and "CRPS" in printed and "Brier" in printed
    (row,) = [line for line in printed.splitlines() if line.strip().startswith("trend")]
    assert "0.490" in row, "trend's Brier of 0.3 against an outcome of 1"
    assert run_cli(["report", str(run), "--out", str(tmp_path / "report")]) == 0
    assert "forecasts (offline" in capsys.readouterr().out
    assert read_json(tmp_path / "report" / "summary.json")["evaluation_text"] == "offline"
    assert "evaluation: offline" in (tmp_path / "report" / "report.md").read_text()
    page = (tmp_path / "report" / "index.html").read_text()
    q2 = next(question for question in questions if question.question_id == "Q2")
    assert html.escape(q2.text) in page, "the drill-down shows the forecast question"
    assert "probability 0.3" in page and "p10 40, p50 70, p90 100" in page and "outcome 1" in page


def test_a_forecast_only_board_at_80_columns_cuts_no_name(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("FORESCI_LLM__BASE_URL", "FORESCI_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FORESCI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("COLUMNS", "80")
    _, _, questions, resolutions = release_rows()
    package = tmp_path / "package"
    write_jsonl(package / "forecast.jsonl", questions)
    write_jsonl(package / "resolutions.jsonl", resolutions)
    run = tmp_path / "run"
    made = {"method": "inspect", "model": "foresci/scripted", "version": "inspect:7dc516348c7d"}
    write_jsonl(run / "forecasts.jsonl", [
        ForecastAnswer(question_id="Q1", p10=40, p50=70, p90=100, **made),
        ForecastAnswer(question_id="Q2", probability=0.3, **made),
    ])
    write_json(run / "manifest.json", {"kind": "run", "inputs": {"release": str(package)}})
    assert run_cli(["eval", str(run), "--offline"]) == 0
    printed = capsys.readouterr().out
    assert "…" not in printed and max(len(line) for line in printed.splitlines()) <= 80, printed
    assert "leaderboard: all" not in printed, "no empty task board above the forecasts"
    lines = printed.splitlines()
    assert any(line.startswith(" inspect ") for line in lines) and "@inspect:7dc516348c7d" in printed, printed
    assert "b1 = foresci/scripted" in " ".join(printed.split()), printed
    header = next(index for index, line in enumerate(lines) if "CRPS" in line and "Brier" in line)
    assert lines[header + 1].split()[-2:] == ["skill", "skill"], printed  # the last column is not cropped
