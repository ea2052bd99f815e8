"""Leader marks that do not mislead: a method scored on a few tasks never leads methods scored on all of
them, a tie that separates nobody (0.000 for all) marks no leader, and the terminal table says what its
``~off`` columns stand for."""

from __future__ import annotations

from rich.console import Console

from foresci.evaluation.config import EvaluationSettings
from foresci.evaluation.models import MetricResult, Score
from foresci.evaluation.summary import build_summary, leaderboard_legend, leaderboard_tables


def _rows(method: str, values: list[float], metric: str = "fta") -> list[Score]:
    return [
        Score(task_id=f"t{index}", family="strategic_planning", domain="d", method=method,
              metrics={metric: MetricResult(name=metric, value=value)})
        for index, value in enumerate(values)
    ]


def _overall(rows: list[Score]) -> dict[str, dict]:
    summary = build_summary(rows, EvaluationSettings(bootstrap_samples=50), {})
    return {entry["method"]: entry for entry in summary["leaderboard"] if entry["family"] == "all"}


def test_a_method_scored_on_few_tasks_does_not_lead() -> None:
    rows = [*_rows("wide_a", [0.5] * 10), *_rows("wide_b", [0.4] * 10), *_rows("narrow", [0.9, 0.9])]
    overall = _overall(rows)
    assert overall["narrow"]["metrics"]["fta"]["leader"] is False
    assert overall["narrow"]["metrics"]["fta"]["low_coverage"] is True
    assert overall["wide_a"]["metrics"]["fta"]["leader"] is True
    assert overall["wide_b"]["metrics"]["fta"]["leader"] is False


def test_a_tie_of_every_entry_marks_no_leader() -> None:
    overall = _overall([*_rows("a", [0.0] * 4), *_rows("b", [0.0] * 4), *_rows("c", [0.0004] * 4)])
    assert [entry["metrics"]["fta"]["leader"] for entry in overall.values()] == [False, False, False]
    summary = build_summary([*_rows("a", [0.0] * 4), *_rows("b", [0.0] * 4)],
                            EvaluationSettings(bootstrap_samples=50), {})
    console = Console(width=80, record=True)
    for table in leaderboard_tables(summary, "all", width=80):
        console.print(table)
    assert "0.000*" not in console.export_text()


def test_the_terminal_table_expands_its_offline_columns() -> None:
    rows = [*_rows("a", [0.2, 0.4], "fta_offline_claims"), *_rows("b", [0.1, 0.3], "fta_offline_claims")]
    summary = build_summary(rows, EvaluationSettings(bootstrap_samples=50), {})
    console = Console(width=80, record=True)
    for table in leaderboard_tables(summary, "all", width=80):
        console.print(table)
    console.print(leaderboard_legend(summary, "all"))
    printed = " ".join(console.export_text().split())
    assert "FTA~off = reference-guided FTA with answer sentences" in printed


def test_an_offline_board_with_a_versioned_plugin_fits_one_table_at_80_columns() -> None:
    names = ("fta", "fact_offline", "fta_offline_claims", "trace_offline", "top_choice")
    rows = [Score(task_id=f"t{index}", family="strategic_planning", domain="d", method=method,
                  metrics={name: MetricResult(name=name, value=0.25 * index) for name in names})
            for method in ("first_option@src:b20682c4c9c1", "http://127.0.0.1:8765/") for index in range(3)]
    summary = build_summary(rows, EvaluationSettings(bootstrap_samples=50), {})
    tables = leaderboard_tables(summary, "all", width=80)
    console = Console(width=80, record=True)
    for table in tables:
        console.print(table)
    lines = console.export_text().splitlines()
    assert len(tables) == 1 and max(len(line) for line in lines) <= 80, "\n".join(lines)
    assert any(line.startswith(" first_option ") for line in lines), "\n".join(lines)  # wraps before @
    assert any(line.startswith(" @src:b20682c4c9c1 ") for line in lines), "\n".join(lines)
    assert any(line.startswith(" 127.0.0.1:8765/ ") for line in lines), "\n".join(lines)  # after ://
