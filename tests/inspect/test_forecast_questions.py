"""A release's forecast questions cross the inspect bridge: samples that carry the question and no outcome,
answered offline by ``foresci/scripted``, scored with CRPS and Brier by the scorer, and imported into
``forecasts.jsonl`` with the scores ``foresci eval --offline`` gives them."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from foresci.cli import app
from foresci.core.io import iter_jsonl
from foresci.core.settings import Settings
from foresci.tasks.build import build_release
from foresci.tasks.release import load_release
from tests.tasks.toy import CUTOFF, ToyKB


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A toy release with one planning task and six forecast questions (numeric and binary)."""
    kb = ToyKB()
    settings = Settings()
    settings.tasks.min_support = 5
    settings.tasks.enforce_gates = False
    return build_release(kb, tmp_path_factory.mktemp("release"), CUTOFF, windows=("3m",), settings=settings,
                         per_family=1, snapshots={"toy": kb.snapshot}, forecast_questions=6,
                         families=["strategic_planning"])


@pytest.fixture(scope="module")
def log(release: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    from inspect_ai import eval as inspect_eval

    import foresci.bridges.inspect_ai.scripted  # noqa: F401  (registers foresci/scripted, as its entry point does)
    from foresci.bridges.inspect_ai.task import release_task

    logs = tmp_path_factory.mktemp("logs")
    return inspect_eval(release_task(release, families=["forecast"]), model="foresci/scripted",
                        log_dir=str(logs), display="none")[0]


def test_question_samples_carry_the_question_and_no_outcome(release: Path, log: Any) -> None:
    questions = {question.question_id: question for question in load_release(release).questions}
    kinds = {question.kind for question in questions.values()}
    assert log.status == "success" and kinds == {"numeric", "binary"}
    assert sorted(str(sample.id) for sample in log.samples) == sorted(questions)
    outcomes = {row["question_id"]: row for row in iter_jsonl(release / "forecast_hidden.jsonl")}
    for sample in log.samples:
        question = questions[str(sample.id)]
        assert sample.target == "" and sample.metadata["foresci_question"] == question.model_dump(mode="json")
        prompt = next(message.text for message in sample.messages if message.role == "user")
        assert question.text in prompt and question.resolution_rule in prompt
        needed = {"numeric": ["p10", "p50", "p90"], "binary": ["probability"]}[question.kind]
        assert json.loads(prompt.rsplit("\n", 1)[1])["required"] == needed
        assert "outcome" not in json.dumps(sample.metadata) and str(sample.id) in outcomes
        values = sample.scores["foresci"].value
        scored = "crps" if question.kind == "numeric" else "brier"
        assert not math.isnan(values[scored]), (sample.id, values)


def test_imported_forecasts_score_as_the_log_under_foresci_eval(release: Path, log: Any,
                                                                tmp_path: Path) -> None:
    run = tmp_path / "run"
    runner = CliRunner()
    imported = runner.invoke(app, ["inspect", "import", log.location, "--release", str(release), "--out",
                                   str(run)])
    assert imported.exit_code == 0, imported.output
    assert "forecasts.jsonl (6 forecast(s))" in imported.output and not (run / "answers.jsonl").exists()
    rows = list(iter_jsonl(run / "forecasts.jsonl"))
    assert len(rows) == 6
    assert all(row["status"] == "ok" and row["model"] == "foresci/scripted" for row in rows)
    evaluated = runner.invoke(app, ["eval", str(run), "--offline"])
    assert evaluated.exit_code == 0, evaluated.output
    stored = {row["task_id"]: row["metrics"] for row in iter_jsonl(run / "scores.jsonl")}
    compared = 0
    for sample in log.samples:
        for name, value in sample.scores["foresci"].value.items():
            metric = stored[str(sample.id)].get(name)
            if math.isnan(value):
                assert metric is None or metric["value"] is None or not metric["available"], (sample.id, name)
                continue
            assert metric is not None, (sample.id, name)
            assert metric["value"] == pytest.approx(value, abs=1e-12), (sample.id, name)
            compared += 1
    assert compared >= 6


def test_a_half_forecast_is_an_error_row_naming_what_it_lacks(release: Path) -> None:
    from foresci.bridges.inspect_ai.questions import forecast_row

    numeric = next(question for question in load_release(release).questions if question.kind == "numeric")
    row = forecast_row(numeric, '{"p50": 3}', None, method="inspect", model="foresci/scripted")
    assert row.status == "error" and numeric.question_id in (row.error or "")
    assert "lacks p10, p90" in (row.error or ""), row.error
    row = forecast_row(numeric, '{"answer": {"p10": 1, "p50": 3, "p90": 9, "odds": 2}}', None,
                       method="inspect", model=None)
    assert row.status == "error" and "odds" in (row.error or ""), row.error
    support = {"retrieved": [{"paper_id": "2501.00001", "announced": CUTOFF.isoformat()},
                             {"paper_id": "2607.00001", "announced": "2026-07-01"}]}
    row = forecast_row(numeric, '```json\n{"p10": 1, "p50": 3, "p90": 9}\n```', support, method="inspect",
                       model=None)
    assert row.status == "ok" and (row.p10, row.p50, row.p90) == (1, 3, 9)
    assert row.evidence_ids == ["2501.00001"]  # a paper after the cutoff is no evidence
