"""evaluate_run end to end: offline metrics, error rows, forecasts, summary, diagnostics, reuse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from foresci.core.io import iter_jsonl
from foresci.core.settings import Settings
from foresci.evaluation.diagnostics import fact_fta_conflicts, foresight_lift, low_score_rates
from foresci.evaluation.models import MetricResult, Score
from foresci.evaluation.runner import evaluate_run
from foresci.evaluation.summary import leaderboard_tables
from tests.evaluation.conftest import WordEncoder
from tests.evaluation.fixtures import P9


def _rows(run_dir: Path) -> dict[str, Score]:
    return {row["key"]: Score.model_validate(row) for row in iter_jsonl(run_dir / "scores.jsonl")}


def test_offline_evaluation_writes_scores_and_summary(
    run_dir: Path, eval_settings: Settings, word_encoder: WordEncoder
) -> None:
    summary_path = evaluate_run(run_dir, None, eval_settings, offline=True, encoder=word_encoder)
    summary = json.loads(summary_path.read_text())
    rows = _rows(run_dir)
    assert summary["counts"] == {
        "rows": 12,
        "scored": 11,
        "answer_errors": 1,
        "missing_target": 0,
        "contamination_risk": 1,
        "evidence_none": 0,
        "unknown_citations": 1,
        "after_cutoff_citations": 1,
        "citations_not_checked": 0,
        "judged_ok": 0,
        "judge_errors": {},
    }
    assert rows["D1|native|m1|full"].contamination_risk
    error_row = rows["B1|native|m1|full"]
    assert error_row.status == "error" and error_row.metrics == {}
    planning = rows["P1|aris|m1|full"].metrics
    assert (
        planning["fta"].value == pytest.approx(7 / 9) and planning["fta"].details["parsed_from"] == "payload"
    )
    native_planning = rows["P1|native|m1|full"].metrics["fta"]
    assert native_planning.details["parsed_from"] == "text" and native_planning.details["predicted"] == [
        "C",
        "A",
        "B",
    ]
    direction = rows["D1|aris|m1|full"].metrics
    assert "fta" not in direction and direction["fta_offline_claims"].value > 0.5
    assert (
        direction["top_choice"].value == 1.0 and direction["top_choice"].details["trajectory_correct"] is True
    )
    assert rows["D1|persistence|-|full"].metrics["top_choice"].value == 0.5  # acceptable neighbour
    assert direction["pers"].available is False and direction["pers"].value is None
    assert rows["D1|native|m1|full"].metrics["trace_offline"].value is None  # no support: not applicable
    bottleneck_trace = rows["B1|aris|m1|full"].metrics["trace_offline"]
    assert bottleneck_trace.details["citations"]["after_cutoff_ids"] == [P9]
    assert rows["Q2|aris|m1|full"].metrics["brier"].value == pytest.approx(0.04)
    assert rows["Q2|aris|m1|full"].metrics["brier_skill"].value == pytest.approx(0.84)
    overall = {entry["label"]: entry for entry in summary["leaderboard"] if entry["family"] == "all"}
    assert set(overall) == {"aris · m1", "aris · m1 (name_only)", "native · m1", "persistence"}
    assert (
        overall["native · m1"]["contamination_risk_rows"] == 1
        and overall["aris · m1"]["contamination_risk_rows"] == 0
    )
    assert "trace_offline" not in overall["native · m1"]["metrics"]  # excluded, not zero
    aris_fta = overall["aris · m1"]["metrics"]["fta"]
    assert aris_fta["n"] == 2 and aris_fta["mean"] == pytest.approx((7 / 9 + planning_v1(rows)) / 2)
    forecast = summary["forecast"][0]
    assert (
        forecast["n_numeric"] == 1
        and forecast["n_binary"] == 1
        and forecast["brier_skill"] == pytest.approx(0.84)
    )
    assert summary["diagnostics"]["low_score"]["by_family"]
    assert all(table.row_count == 4 for table in leaderboard_tables(summary))


def planning_v1(rows: dict[str, Score]) -> float:
    value = rows["V1|aris|m1|full"].metrics["fta"].value
    assert value is not None
    return value


def test_rerun_reuses_finished_rows(
    run_dir: Path, eval_settings: Settings, word_encoder: WordEncoder
) -> None:
    evaluate_run(run_dir, None, eval_settings, offline=True, encoder=word_encoder)
    first = (run_dir / "scores.jsonl").read_text()
    calls = word_encoder.calls
    summary = json.loads(
        evaluate_run(run_dir, None, eval_settings, offline=True, encoder=word_encoder).read_text()
    )
    assert word_encoder.calls == calls and summary["reused_rows"] == 12 and summary["scored_rows"] == 0
    assert (run_dir / "scores.jsonl").read_text() == first
    changed = eval_settings.model_copy(
        update={"evaluation": eval_settings.evaluation.model_copy(update={"max_claims": 3})}
    )
    summary = json.loads(evaluate_run(run_dir, None, changed, offline=True, encoder=word_encoder).read_text())
    assert summary["reused_rows"] == 0  # other settings, other fingerprint: rescored


def test_interrupted_evaluation_resumes_from_the_partial_file(run_dir: Path, eval_settings: Settings) -> None:
    evaluate_run(run_dir, None, eval_settings, offline=True, encoder=WordEncoder())
    finished = (run_dir / "scores.jsonl").read_text().splitlines()
    (run_dir / "scores.jsonl").unlink()
    (run_dir / ".scores.jsonl.partial").write_text("\n".join(finished[:5]) + "\n" + finished[5][:40])
    encoder = WordEncoder()
    summary = json.loads(
        evaluate_run(run_dir, None, eval_settings, offline=True, encoder=encoder).read_text()
    )
    assert summary["reused_rows"] == 5 and summary["scored_rows"] == 7  # the torn sixth row is redone
    assert not (run_dir / ".scores.jsonl.partial").exists()
    assert len((run_dir / "scores.jsonl").read_text().splitlines()) == 12


def test_missing_release_is_a_clear_error(tmp_path: Path, eval_settings: Settings) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "answers.jsonl").write_text("")
    with pytest.raises(ValueError, match="--release"):
        evaluate_run(tmp_path / "run", None, eval_settings, offline=True, encoder=WordEncoder())


def _score(task: str, family: str, method: str, **values: float) -> Score:
    return Score(
        task_id=task,
        family=family,
        domain="d",
        method=method,
        metrics={name: MetricResult(name=name, value=value) for name, value in values.items()},
    )


def test_diagnostics_on_hand_made_rows() -> None:
    scores = [
        _score("t1", "venue_positioning", "a", fact=0.1, fta=0.9),
        _score("t2", "venue_positioning", "b", fact=0.8, fta=0.7),
        _score("t3", "strategic_planning", "a", fact=0.9, fta=0.2),
        _score("t4", "strategic_planning", "b", fact=0.7, fta=0.6),
        _score("t1", "venue_positioning", "persistence", fact=0.2, fta=0.5),
    ]
    low = low_score_rates(scores, 0.2)  # one lowest row per metric
    assert low["by_family"]["venue_positioning"]["fact"] == pytest.approx(1 / 3)
    assert low["by_family"]["strategic_planning"]["fta"] == pytest.approx(1 / 2)
    assert low["by_method"]["a"] == {"fact": 0.5, "fta": 0.5}
    conflicts = fact_fta_conflicts(scores, 0.5)
    assert (conflicts["count"], conflicts["high_fta_low_fact"], conflicts["high_fact_low_fta"]) == (2, 1, 1)
    lift = {(row["metric"], row["method"]): row for row in foresight_lift(scores, metrics=("fta",))}
    assert lift[("fta", "a")]["vs_persistence"] == pytest.approx(0.4)
    assert lift[("fta", "a")]["n_persistence"] == 1


def test_invalid_forecast_is_an_error_row_not_a_crash(
    tmp_path: Path, release_dir: Path, eval_settings: Settings
) -> None:
    from foresci.contracts import Answer
    from tests.evaluation.fixtures import write_run

    bad = Answer(
        task_id="Q1",
        family="forecast",
        method="m",
        payload={"question_id": "Q1", "p10": 90, "p50": 10, "p90": 5},
    )
    run = write_run(tmp_path / "bad", release_dir, [bad])
    summary = json.loads(
        evaluate_run(run, None, eval_settings, offline=True, encoder=WordEncoder()).read_text()
    )
    row = _rows(run)["Q1|m|-|full"]
    assert row.status == "error" and row.error and "p10 <= p50 <= p90" in row.error
    assert summary["counts"]["answer_errors"] == 1 and summary["forecast"] == []


def test_leader_marking_and_paired_pvalues() -> None:
    from foresci.evaluation.config import EvaluationSettings
    from foresci.evaluation.summary import leaderboard

    settings = EvaluationSettings(bootstrap_samples=300)
    tied = [_score(f"t{i}", "venue_positioning", method, fta=0.5) for i in range(4) for method in ("a", "b")]
    cells = {e["method"]: e["metrics"]["fta"] for e in leaderboard(tied, settings) if e["family"] == "all"}
    # a tie of every entry separates nobody: no leader (the '*' on 0.000 ties), no p-value
    assert not cells["a"]["leader"] and not cells["b"]["leader"] and "p_vs_leader" not in cells["b"]
    apart = [_score(f"t{i}", "venue_positioning", "a", fta=0.9) for i in range(6)] + [
        _score(f"t{i}", "venue_positioning", "b", fta=0.1 + 0.01 * i) for i in range(6)
    ]
    cells = {e["method"]: e["metrics"]["fta"] for e in leaderboard(apart, settings) if e["family"] == "all"}
    assert cells["a"]["leader"] and not cells["b"]["leader"] and cells["b"]["p_vs_leader"] < 0.01
    lone = leaderboard(apart[:6], settings)[0]["metrics"]["fta"]
    assert "leader" not in lone


def test_diagnostics_never_mix_judged_and_offline_values_in_a_family() -> None:
    scores = [
        _score("t1", "venue_positioning", "a", fact=0.9, fact_offline=0.1),
        _score("t2", "venue_positioning", "a", fact=0.8, fact_offline=0.2),
        _score("t1", "venue_positioning", "persistence", fact_offline=0.3),
        _score("t3", "strategic_planning", "persistence", fact_offline=0.3),
        _score("t3", "strategic_planning", "a", fact_offline=0.6),
    ]
    low = low_score_rates(scores, 0.5)
    assert low["by_method"]["persistence"]["fact"] == 1.0  # its venue row (offline only) is left out
    assert low["metrics_used"]["fact"] == "fact, fact_offline"
    assert low["by_family"]["venue_positioning"]["fact"] == 0.5  # over a's two judged rows only
    lift = {(row["metric"], row["method"]): row for row in foresight_lift(scores, metrics=("fact",))}
    assert lift[("fact", "a")]["n_persistence"] == 1  # only the planning task, both offline
    assert lift[("fact", "a")]["vs_persistence"] == pytest.approx(0.3)


def test_forecast_package_with_resolutions_file(tmp_path: Path, eval_settings: Settings) -> None:
    from foresci.contracts import ForecastAnswer
    from foresci.core.io import write_json, write_jsonl
    from tests.evaluation.fixtures import release_rows

    _, _, questions, resolutions = release_rows()
    package = tmp_path / "package"
    write_jsonl(package / "forecast.jsonl", questions)
    write_jsonl(package / "resolutions.jsonl", resolutions)
    run = tmp_path / "run"
    write_jsonl(
        run / "forecasts.jsonl",
        [
            ForecastAnswer(question_id="Q1", method="trend", p10=40, p50=70, p90=100),
            ForecastAnswer(question_id="Q2", method="trend", probability=0.3),
            ForecastAnswer(question_id="Q2", method="persistence", probability=0.6),
        ],
    )
    write_json(run / "manifest.json", {"kind": "run", "inputs": {"release": str(package)}})
    summary = json.loads(
        evaluate_run(run, None, eval_settings, offline=True, encoder=WordEncoder()).read_text()
    )
    forecast = {entry["method"]: entry for entry in summary["forecast"]}
    assert forecast["trend"]["metrics"]["brier"]["mean"] == pytest.approx(0.49)
    assert forecast["trend"]["brier_adjusted"] == pytest.approx(0.49)  # same question: no adjustment
    assert forecast["persistence"]["brier_adjusted"] == pytest.approx(0.16)
    assert forecast["persistence"]["metrics"]["brier"]["leader"]
    assert forecast["trend"]["coverage"]["1"]["observed"] == 1.0 and summary["leaderboard"] == []
