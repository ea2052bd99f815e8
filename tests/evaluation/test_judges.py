"""Judged metrics through the scripted OpenAI-compatible server: values, malformed output, re-runs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from foresci.evaluation.models import Score
from foresci.evaluation.runner import evaluate_run
from foresci.io import iter_jsonl
from foresci.settings import Settings
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
            "evidence_linkage": 1.0,
            "support_specificity": 0.5,
            "answer_internal_trace": 0.0,
            "strengths": [],
            "weaknesses": [],
            "rationale": "",
        }
    if title.startswith("PersJudgement"):
        run = 1 if "pass 1 of" in json.dumps(request["messages"]) else 2
        return {name: (0.6 if run == 1 else 0.8) for name in schema["properties"] if name != "rationale"} | {
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
    before = len(server.requests)
    evaluate_run(run_dir, None, settings, offline=False, encoder=WordEncoder())
    metrics = _rows(run_dir)["D1|aris|m1|full"].metrics
    assert metrics["fact"].value == pytest.approx(0.75) and metrics["fact"].error is None
    assert len(server.requests) == before + 2  # only the failed extraction and its verdicts are asked again


def test_judged_evaluation_without_endpoint_fails_clearly(run_dir: Path, eval_settings: Settings) -> None:
    with pytest.raises(RuntimeError, match="FORESCI_LLM__BASE_URL"):
        evaluate_run(run_dir, None, eval_settings, offline=False, encoder=WordEncoder())
