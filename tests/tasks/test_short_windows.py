"""One- and two-month windows: a release, its forecast questions and a round's ledger over the toy world."""

from __future__ import annotations

from collections import Counter
from datetime import date
from pathlib import Path

import pytest
from typer.testing import CliRunner

from foresci.cli import app
from foresci.core.io import iter_jsonl
from foresci.core.settings import Settings
from foresci.rounds.ledger import LedgerConfig, init_ledger
from foresci.tasks.build import build_release
from foresci.tasks.cli import _warn_empty_families
from foresci.tasks.release import load_release
from foresci.tasks.windows import make_window
from tests.rounds.helpers import toy_tick
from tests.tasks.toy import CUTOFF, ToyKB


def test_one_and_two_month_windows_build_what_their_span_allows(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    settings = Settings()
    settings.tasks.min_support = 5
    settings.tasks.enforce_gates = False
    kb = ToyKB(until=make_window(CUTOFF, "2m").end)  # two months after the cutoff: no venue cycle yet
    said: list[str] = []
    out = build_release(kb, tmp_path / "release", CUTOFF, windows=("1m", "2m"), settings=settings,
                        per_family=6, snapshots={"toy": kb.snapshot}, progress=said.append,
                        forecast_questions=8)
    release = load_release(out)
    built = Counter((task.family, task.horizon) for task in release.tasks)
    for family in ("direction_forecasting", "strategic_planning", "bottleneck_opportunity"):
        assert {horizon for name, horizon in built if name == family} & {"1m", "2m"}, (family, built)
    assert {horizon for _, horizon in built} <= {"1m", "2m"}
    for task in release.tasks:
        window = make_window(CUTOFF, task.horizon)
        assert (task.window_start, task.window_end) == (window.start, window.end)
    assert any("left out venue_positioning" in line and "venue_cycle window" in line for line in said)
    assert "venue_cycle window" in release.manifest["counts"]["left_out_families"]["venue_positioning"]
    _warn_empty_families(release.manifest, None)  # what `tasks build` prints after the audit
    printed = capsys.readouterr().err
    assert "left out venue_positioning" in printed and "2026-06-30" in printed, printed
    assert "no venue_positioning task" not in printed, printed
    questions = list(iter_jsonl(out / "forecast.jsonl"))
    assert {(row["window_start"], row["window_end"]) for row in questions} <= {
        (make_window(CUTOFF, horizon).start.isoformat(), make_window(CUTOFF, horizon).end.isoformat())
        for horizon in ("1m", "2m")}
    assert questions and any(row["window_end"] == "2026-01-31" for row in questions)


@pytest.mark.parametrize("window", ["1m", "2m"])
def test_the_command_line_takes_short_windows(tmp_path: Path, window: str) -> None:
    result = CliRunner().invoke(app, ["tasks", "build", str(tmp_path / "no-kb"), "--cutoff", "2025-12-31",
                                      "--out", str(tmp_path / "x"), "--window", window])
    assert "unknown window" not in result.output, result.output
    result = CliRunner().invoke(app, ["tasks", "build", str(tmp_path / "no-kb"), "--cutoff", "2025-12-31",
                                      "--out", str(tmp_path / "x"), "--window", "5m"],
                                env={"COLUMNS": "200"}, terminal_width=200)
    assert result.exit_code == 2 and "1m, 2m, 3m, 6m, venue_cycle" in result.output, result.output
    result = CliRunner().invoke(app, ["rounds", "init", str(tmp_path / "ledger"), "--window", "5m"],
                                env={"COLUMNS": "200"}, terminal_width=200)
    assert result.exit_code == 2 and "unknown window '5m'" in result.output, result.output
    result = CliRunner().invoke(app, ["rounds", "init", str(tmp_path / "ledger"), "--window", window])
    assert result.exit_code == 0, result.output


def test_a_one_month_ledger_resolves_a_month_after_its_cutoff(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger"
    init_ledger(ledger, LedgerConfig(schedule="month-end", start=date(2025, 12, 1), end=CUTOFF,
                                     windows=["1m"], questions=8, min_items=2, bootstrap=40, seed=1))
    round_id = f"r-{CUTOFF.isoformat()}"
    assert toy_tick(ledger, CUTOFF)[0] == f"opened {round_id} (scheduled {CUTOFF})"
    assert not any(line.startswith("resolved") for line in toy_tick(ledger, date(2026, 1, 30)))
    actions = toy_tick(ledger, date(2026, 1, 31))
    assert f"resolved {round_id} 1m (8 questions)" in actions, actions
    assert any(line.startswith(f"resolved {round_id} tasks-1m") for line in actions), actions
