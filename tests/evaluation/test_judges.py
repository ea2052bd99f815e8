"""Judged metrics through the scripted OpenAI-compatible server: values, malformed output, re-runs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from foresci.core.io import iter_jsonl
from foresci.core.settings import Settings
from foresci.evaluation.models import Score
from foresci.evaluation.runner import evaluate_run
from tests.evaluation.conftest import WordEncoder
from tests.evaluation.fixtures import answers, write_run
from tests.support.openai_server import Reply, ScriptedOpenAIServer, requested_schema

CLAIMS = ["Memory-augmented agents gain momentum in the window.", "The trajectory is accelerating."]


def judge_reply(request: dict[str, Any]) -> dict[str, Any]:
    """Answers per requested schema: two claims; verdicts supported + partial; coverage covered + partial."""
    schema, tool = requested_schema(request)
    title = tool or (request.get("response_format") or {}).get("json_schema", {}).get("name", "")
    if title == "ExtractedClaims":
        return {"claims": CLAIMS}
    if title == "FactVerdicts":
        body = json.dumps(request["messages"])
        gold = [ident for ident in ("g1", "g2", "b1", "v1") if f'\\"gold_claim_id\\": \\"{ident}\\"' in body]
        labels = ["covered", "partially_covered"]
        return {
            "answer_claim_verdicts": [
                {"claim_index": 0, "label": "supported", "rationale": ""},
                {"claim_index": 1, "label": "partially_supported", "rationale": ""},
            ],
            "gold_claim_coverage": [
                {"gold_claim_id": ident, "label": labels[min(i, 1)], "rationale": ""}
                for i, ident in enumerate(gold)
            ],
        }
    if title == "TraceJudgement":
        return {
            "evidence_linkage": 10,
            "support_specificity": 5,
            "answer_internal_trace": 0,
            "strengths": [],
            "weaknesses": [],
            "rationale": "",
        }
    if title.startswith("PersJudgement"):
        run = 1 if "pass 1 of" in json.dumps(request["messages"]) else 2
        return {name: (6 if run == 1 else 8) for name in schema["properties"] if name != "rationale"} | {
            "rationale": ""
        }
    raise AssertionError(f"unexpected schema {title}")


@pytest.fixture
def server() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer(responder=judge_reply) as running:
        yield running


def judged_settings(tmp_path: Path, server: ScriptedOpenAIServer, **evaluation: Any) -> Settings:
    return Settings(
        cache_dir=tmp_path / "cache",
        llm={
            "base_url": server.base_url,
            "model": "scripted-judge",
            "max_retries": 0,
            "reask": 1,
            "concurrency": 1,
        },
        evaluation={"bootstrap_samples": 100, "judge_runs": 2, **evaluation},
    )


def _rows(run_dir: Path) -> dict[str, Score]:
    return {row["key"]: Score.model_validate(row) for row in iter_jsonl(run_dir / "scores.jsonl")}


def test_judged_metrics_and_zero_calls_on_rerun(
    tmp_path: Path, run_dir: Path, server: ScriptedOpenAIServer
) -> None:
    settings = judged_settings(tmp_path, server, judge_concurrency=1)
    summary = json.loads(
        evaluate_run(run_dir, None, settings, offline=False, encoder=WordEncoder()).read_text()
    )
    rows = _rows(run_dir)
    direction = rows["D1|aris|m1|full"].metrics
    # phi = (1, .5) -> P = .75; psi over g1, g2 = (1, .5) -> R = .75; F1 = .75
    assert direction["fact"].precision == pytest.approx(0.75) and direction["fact"].recall == pytest.approx(
        0.75
    )
    assert direction["fact"].value == pytest.approx(0.75)
    assert direction["fta"].details["claims"] == 2  # FTA_RG over the extracted claims
    assert direction["trace"].value == pytest.approx(0.625) and direction["trace"].runs == [0.625, 0.625]
    assert direction["pers"].runs == pytest.approx([0.6, 0.8]) and direction["pers"].value == pytest.approx(
        0.7
    )
    assert direction["pers"].variance == pytest.approx(0.01)
    assert set(direction["pers"].details["dimensions"]) >= {
        "forecast_specificity",
        "decision_clarity",
        "holistic",
    }
    assert rows["D1|native|m1|full"].metrics["trace"].value is None  # native: '–', not judged
    assert summary["counts"]["judge_errors"] == {}
    requests_after_first = len(server.requests)
    # 9 judged task answers x (extraction + pers x2) + 4 with support x trace x2, plus one verdict call per
    # task: the scripted claims are the same for every answer, so equal verdict prompts come from the cache
    assert requests_after_first == 9 * 3 + 4 * 2 + 4
    evaluate_run(run_dir, None, settings, offline=False, encoder=WordEncoder())
    assert len(server.requests) == requests_after_first  # finished rows reused
    (run_dir / "scores.jsonl").unlink()
    evaluate_run(run_dir, None, settings, offline=False, encoder=WordEncoder())
    assert len(server.requests) == requests_after_first  # response cache answers every judge call


def test_malformed_judge_output_is_reasked_then_recorded_as_error(
    tmp_path: Path, release_dir: Path, server: ScriptedOpenAIServer
) -> None:
    run_dir = write_run(tmp_path / "one", release_dir, [answers()[0]])
    settings = judged_settings(tmp_path, server, judge_concurrency=1)
    server.enqueue(Reply.malformed_content(), Reply.malformed_content('{"claims": "not a list"}'))
    summary = json.loads(
        evaluate_run(run_dir, None, settings, offline=False, encoder=WordEncoder()).read_text()
    )
    metrics = _rows(run_dir)["D1|aris|m1|full"].metrics
    assert (
        metrics["fact"].value is None
        and metrics["fact"].error
        and "claim_extraction" in metrics["fact"].error
    )
    assert metrics["fta"].value is None and metrics["fta"].error
    assert metrics["trace"].value == pytest.approx(0.625)  # other judges unaffected
    assert summary["counts"]["judge_errors"] == {"fact": 1, "fta": 1}
    assert "fact" not in next(e for e in summary["leaderboard"] if e["family"] == "all")["metrics"]
    assert metrics["fact"].error_kind == "output"
    before = len(server.requests)
    summary = json.loads(
        evaluate_run(run_dir, None, settings, offline=False, encoder=WordEncoder()).read_text()
    )
    assert len(server.requests) == before  # deterministic at temperature 0: kept, not asked again
    assert summary["kept_judge_failures"] == 1 and _rows(run_dir)["D1|aris|m1|full"].metrics["fact"].error
    evaluate_run(run_dir, None, settings, offline=False, encoder=WordEncoder(), retry_errors=True)
    metrics = _rows(run_dir)["D1|aris|m1|full"].metrics
    assert metrics["fact"].value == pytest.approx(0.75) and metrics["fact"].error is None
    assert len(server.requests) == before + 2  # only the failed extraction and its verdicts are asked again


def test_judged_evaluation_without_endpoint_fails_clearly(run_dir: Path, eval_settings: Settings) -> None:
    with pytest.raises(RuntimeError, match="FORESCI_LLM__BASE_URL"):
        evaluate_run(run_dir, None, eval_settings, offline=False, encoder=WordEncoder())


def _pers_reply(values: dict[str, float]) -> Any:
    """judge_reply, with the Pers judge answering ``values`` (the rest of its dimensions 5)."""

    def reply(request: dict[str, Any]) -> dict[str, Any]:
        schema, tool = requested_schema(request)
        title = tool or (request.get("response_format") or {}).get("json_schema", {}).get("name", "")
        if title.startswith("PersJudgement"):
            names = [name for name in schema["properties"] if name != "rationale"]
            return {name: values.get(name, 5) for name in names} | {"rationale": ""}
        return judge_reply(request)

    return reply


@pytest.mark.parametrize(
    ("values", "holistic", "note"),
    [
        ({"holistic": 2, "decision_clarity": 1.2}, 0.2, None),  # what a small model gave: on the 0-10 scale
        ({"holistic": 12}, 1.0, "holistic=12 is off the 0-10 scale; clamped to 10"),
        ({"holistic": -3}, 0.0, "holistic=-3 is off the 0-10 scale; clamped to 0"),
    ],
)
def test_judge_scores_off_the_unit_scale_are_mapped_not_rejected(
    tmp_path: Path, release_dir: Path, values: dict[str, float], holistic: float, note: str | None
) -> None:
    with ScriptedOpenAIServer(responder=_pers_reply(values)) as judge:
        run_dir = write_run(tmp_path / "one", release_dir, [answers()[0]])
        settings = judged_settings(tmp_path, judge, judge_concurrency=1, judge_runs=1)
        evaluate_run(run_dir, None, settings, offline=False, encoder=WordEncoder())
        pers = _rows(run_dir)["D1|aris|m1|full"].metrics["pers"]
        sent, _ = requested_schema(next(r for r in judge.requests if "PersJudgement" in json.dumps(r)))
    assert pers.error is None and pers.value == pytest.approx(holistic)
    assert sent is not None and sent["properties"]["holistic"]["type"] == "integer"
    assert sent["properties"]["holistic"]["maximum"] == 10
    notes = pers.details.get("scale_notes", [])
    assert (note is None and not notes) or any(note in text for text in notes)


def test_fractional_unit_scale_answers_are_kept_as_they_are(tmp_path: Path, release_dir: Path) -> None:
    from foresci.evaluation.judges import TraceJudgement, unit_scores

    scores, notes = unit_scores(
        TraceJudgement(evidence_linkage=0.9, support_specificity=0.5, answer_internal_trace=1)
    )
    assert scores == {"evidence_linkage": 0.9, "support_specificity": 0.5, "answer_internal_trace": 1.0}
    assert notes and "0-1 scale" in notes[0]
    judgement = TraceJudgement(evidence_linkage=1, support_specificity=0, answer_internal_trace=7)
    scores, notes = unit_scores(judgement)
    assert scores["evidence_linkage"] == pytest.approx(0.1) and scores["answer_internal_trace"] == 0.7
    assert not notes


def test_transport_failures_are_retried_on_reevaluation(
    tmp_path: Path, release_dir: Path, server: ScriptedOpenAIServer
) -> None:
    run_dir = write_run(tmp_path / "one", release_dir, [answers()[0]])
    settings = judged_settings(tmp_path, server, judge_concurrency=1)
    server.enqueue(Reply.error(503, message="overloaded"))
    evaluate_run(run_dir, None, settings, offline=False, encoder=WordEncoder())
    fact = _rows(run_dir)["D1|aris|m1|full"].metrics["fact"]
    assert fact.error and fact.error_kind == "transport"
    before = len(server.requests)
    evaluate_run(run_dir, None, settings, offline=False, encoder=WordEncoder())
    assert len(server.requests) == before + 2
    assert _rows(run_dir)["D1|aris|m1|full"].metrics["fact"].error is None


def test_eval_command_offers_retry_errors() -> None:
    from typer.testing import CliRunner

    from foresci.cli import app

    result = CliRunner().invoke(app, ["eval", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "--retry-errors" in result.output


def test_trace_is_not_judged_without_a_kb_to_check_citations_against(
    tmp_path: Path, release_dir: Path, server: ScriptedOpenAIServer
) -> None:
    """Issue 39.7: the judge would read citation checks made against the method's own retrieval list."""
    from foresci.core.io import write_json
    from foresci.evaluation.models import NO_KB

    run_dir = write_run(tmp_path / "no-kb", release_dir, [answers()[0]])
    write_json(run_dir / "manifest.json", {"kind": "run", "inputs": {"release": str(release_dir),
                                                                    "kb": str(tmp_path / "gone")}})
    settings = judged_settings(tmp_path, server, judge_concurrency=1)
    summary_path = evaluate_run(run_dir, None, settings, offline=False, encoder=WordEncoder())
    summary = json.loads(summary_path.read_text())
    (row,) = _rows(run_dir).values()
    assert row.metrics["trace"].value is None and row.metrics["trace"].reason == NO_KB
    assert not any("TraceJudgement" in json.dumps(request) for request in server.requests)  # not asked
    assert row.metrics["fact"].value is not None  # the other judged metrics are unaffected
    assert summary["counts"]["citations_not_checked"] == 1
    assert f"the run's KB {tmp_path / 'gone'} cannot be read" in summary["citations_not_checked"]
