"""Every LLM method on every family through the scripted server (real ChatOpenAI, real HTTP, real KB)."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from foresci.agents.answers import read_answers
from foresci.contracts import family_schema
from foresci.core.settings import Settings
from foresci.methods.runner import ANSWERS_FILE, run_release
from tests.agents.conftest import ToyWorld
from tests.agents.responders import answering_responder, schema_name
from tests.agents.toy import POST_MARKER, toy_tasks
from tests.support.openai_server import Reply, ScriptedOpenAIServer, requested_schema

# model calls per task with iterations=1, reviewers=2 (research_agent: draft + 2 reviews + refine;
# react: a searching turn, a reporting turn, the answer)
EXPECTED_CALLS = {"native": 1, "hybrid_rag": 1, "coi": 2, "research_agent": 4, "aris": 3, "react": 3}


def _settings(llm_settings: Settings, **llm: Any) -> Settings:
    agents = llm_settings.agents.model_copy(update={"iterations": 1, "reviewers": 2, "concurrency": 2})
    return llm_settings.model_copy(update={"agents": agents, "llm": llm_settings.llm.model_copy(update=llm)})


def _run(world: ToyWorld, settings: Settings, out: Path, methods: list[str], mode: str = "full") -> list[Any]:
    view = world.view()

    def factory(cutoff: date) -> Any:
        return view

    run_release(toy_tasks(), out, settings, methods, mode=mode, view_factory=factory)  # type: ignore[arg-type]
    return read_answers(out / ANSWERS_FILE)


@pytest.mark.parametrize("method", sorted(EXPECTED_CALLS))
def test_method_answers_every_family(
    method: str,
    toy_world: ToyWorld,
    llm_settings: Settings,
    scripted_llm: ScriptedOpenAIServer,
    tmp_path: Path,
) -> None:
    scripted_llm.responder = answering_responder
    rows = _run(toy_world, _settings(llm_settings), tmp_path / "run", [method])
    assert len(rows) == 4
    for row in rows:
        assert row.status == "ok", row.error
        family_schema(row.family).model_validate(row.payload)
        assert row.text and row.llm_calls == EXPECTED_CALLS[method]
        assert row.prompt_tokens > 0
        assert row.contamination_risk is True  # 'scripted-model' is not in the registry
        if method == "native":
            assert row.support is None
        else:
            assert row.support is not None and row.support.retrieved and row.support.tool_calls
            assert all(item.announced <= toy_world_cutoff() for item in row.support.retrieved)
            cited = {paper_id for evidence in row.support.evidence for paper_id in evidence.paper_ids}
            assert cited, "the answer cites retrieved papers, so evidence must link them"
            assert cited <= {item.paper_id for item in row.support.retrieved}, "evidence cites unseen ids"
    assert len(scripted_llm.requests) == 4 * EXPECTED_CALLS[method]
    _assert_no_leak(scripted_llm.all_text(), rows, toy_world)


def toy_world_cutoff() -> date:
    from tests.agents.toy import CUTOFF

    return CUTOFF


def _assert_no_leak(prompts: str, rows: list[Any], world: ToyWorld) -> None:
    assert POST_MARKER not in prompts
    leaked = [paper_id for paper_id in world.post_ids if paper_id in prompts]
    assert not leaked, f"post-cutoff ids in prompts: {leaked}"
    for row in rows:
        if row.support is None:
            continue
        seen = {item.paper_id for item in row.support.retrieved}
        seen |= {paper_id for call in row.support.tool_calls for paper_id in call.result_ids}
        assert not seen & set(world.post_ids)


def test_leakage_all_methods_all_families(
    toy_world: ToyWorld, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_llm.responder = answering_responder
    rows = _run(
        toy_world, _settings(llm_settings), tmp_path / "run", list(EXPECTED_CALLS) + ["trend", "persistence"]
    )
    assert len(rows) == 4 * (len(EXPECTED_CALLS) + 2) and all(row.status == "ok" for row in rows)
    assert toy_world.post_ids, "the toy KB must hold post-cutoff papers for this test to mean anything"
    _assert_no_leak(scripted_llm.all_text(), rows, toy_world)
    assert str(date.today().year) + "-" + f"{date.today().month:02d}" not in scripted_llm.all_text()


def test_api_key_never_written(
    toy_world: ToyWorld, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    from foresci.agents.cli import write_run_manifest
    from foresci.core.io import write_jsonl

    scripted_llm.responder = answering_responder
    settings = _settings(llm_settings)
    _run(toy_world, settings, tmp_path / "run", ["aris"])
    write_jsonl(tmp_path / "tasks.jsonl", toy_tasks())
    write_run_manifest(tmp_path / "run", tmp_path, toy_world.kb_path, settings, ["aris"], [], "full")
    secret = settings.llm.api_key.get_secret_value().encode()
    assert scripted_llm.headers[0]["authorization"].endswith(secret.decode()), "the key must reach the server"
    written = [path for path in (tmp_path / "run").rglob("*") if path.is_file()]
    written += [path for path in settings.cache_dir.rglob("*") if path.is_file()]
    assert any(path.name == "manifest.json" for path in written)
    assert not [path for path in written if secret in path.read_bytes()]


@pytest.mark.parametrize("output_method", ["function_calling", "json_mode"])
def test_aris_with_other_structured_output_methods(
    output_method: str,
    toy_world: ToyWorld,
    llm_settings: Settings,
    scripted_llm: ScriptedOpenAIServer,
    tmp_path: Path,
) -> None:
    scripted_llm.responder = answering_responder
    settings = _settings(llm_settings, structured_output_method=output_method)
    rows = _run(toy_world, settings, tmp_path / "run", ["aris"])
    assert [row.status for row in rows] == ["ok"] * 4


def test_name_only_sees_question_and_names_only(
    toy_world: ToyWorld, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_llm.responder = answering_responder
    rows = _run(
        toy_world, _settings(llm_settings), tmp_path / "run", ["hybrid_rag", "trend"], mode="name_only"
    )
    assert {row.method for row in rows} == {"hybrid_rag"}, "non-LLM methods have no name-only mode"
    assert all(row.mode == "name_only" and row.support is None and row.llm_calls == 1 for row in rows)
    text = scripted_llm.all_text()
    assert "graph memory" in text and "agent memory stored as graphs" not in text
    assert "key_terms" not in text and "key terms" not in text


def test_persistent_schema_violation_is_an_error_row(
    toy_world: ToyWorld, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_llm.responder = lambda request: {"direction": 5}
    rows = _run(toy_world, _settings(llm_settings, reask=1), tmp_path / "run", ["native"])
    assert all(row.status == "error" and not row.payload and not row.text for row in rows)
    assert all("LLMOutputError" in (row.error or "") for row in rows)
    assert len(scripted_llm.requests) == 4 * 2


def test_transient_faults_recover(
    toy_world: ToyWorld, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_llm.responder = answering_responder
    scripted_llm.enqueue(
        Reply.error(500), Reply.error(429, retry_after=0.2), Reply.delayed(2.0), Reply.malformed_content()
    )
    settings = _settings(llm_settings, timeout_s=0.5)
    settings = settings.model_copy(update={"agents": settings.agents.model_copy(update={"concurrency": 1})})
    rows = _run(toy_world, settings, tmp_path / "run", ["native"])
    assert [row.status for row in rows] == ["ok"] * 4


def test_unknown_option_is_reasked_with_the_contract(
    toy_world: ToyWorld, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    calls: list[str] = []

    def responder(request: dict[str, Any]) -> Any:
        answer = answering_responder(request)
        if isinstance(answer, dict) and "direction" in answer and not calls:
            calls.append("bad")
            return {**answer, "direction": "Z"}
        return answer

    scripted_llm.responder = responder
    view = toy_world.view()
    tasks = [task for task in toy_tasks() if task.family == "direction_forecasting"]
    run_release(
        tasks, tmp_path / "run", _settings(llm_settings), ["native"], view_factory=lambda cutoff: view
    )  # type: ignore[arg-type, return-value]
    rows = read_answers(tmp_path / "run" / ANSWERS_FILE)
    assert rows[0].status == "ok" and rows[0].payload["direction"] == "A"
    assert "only valid option ids are: A, B, C" in scripted_llm.requests[-1]["messages"][-1]["content"]


def _shaped(overrides: dict[str, Any]) -> Any:
    """answering_responder, with some answer fields replaced per schema (the shapes real models gave)."""

    def responder(request: dict[str, Any]) -> Any:
        answer = answering_responder(request)
        name = schema_name(request)
        if isinstance(answer, dict) and name in overrides:
            return {**answer, **overrides[name]}
        return answer

    return responder


def _offline_score(row: Any, family: str, hidden: dict[str, Any]) -> Any:
    from foresci.evaluation.config import EvaluationSettings
    from foresci.evaluation.metrics import ScoringContext
    from foresci.evaluation.scoring import score_task_answer
    from foresci.tasks.hidden import make_hidden_target
    from tests.evaluation.conftest import WordEncoder

    task = next(task for task in toy_tasks() if task.family == family)
    target = make_hidden_target(task_id=task.task_id, family=family, **hidden)
    context = ScoringContext(row, EvaluationSettings(), WordEncoder(), task=task, hidden=target)
    return score_task_answer(context)


def test_empty_ranking_stays_empty_flagged_and_scores_as_empty(
    toy_world: ToyWorld, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_llm.responder = _shaped({"PlanningAnswer": {"ranking": []}})
    tasks = [task for task in toy_tasks() if task.family == "strategic_planning"]
    run_release(tasks, tmp_path / "run", _settings(llm_settings), ["native"])
    (row,) = read_answers(tmp_path / "run" / ANSWERS_FILE)
    assert row.status == "ok" and row.payload["ranking"] == []
    assert row.llm_calls == 2  # one contract-fix re-ask
    assert row.contract == "invalid" and row.support is None  # native: the notes live on the row
    assert any("the ranking is empty" in note for note in row.contract_notes)
    assert "contract-fix re-ask" in row.contract_notes[0]
    score = _offline_score(row, "strategic_planning", {"ranking": ["A", "B", "C"]})
    assert score.metrics["fta"].value == 0.0 and score.metrics["fta"].details["predicted"] == []
    assert score.metrics["top_choice"].value == 0.0 and score.contract == "invalid"


def test_invalid_direction_is_flagged_and_scored_as_said(
    toy_world: ToyWorld, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    said = {"direction": "2", "rationale": "graph memory grows"}
    scripted_llm.responder = _shaped({"DirectionAnswer": said})
    tasks = [task for task in toy_tasks() if task.family == "direction_forecasting"]
    view = toy_world.view()
    run_release(tasks, tmp_path / "run", _settings(llm_settings), ["hybrid_rag"], view_factory=lambda c: view)  # type: ignore[arg-type, return-value]
    (row,) = read_answers(tmp_path / "run" / ANSWERS_FILE)
    assert row.status == "ok" and row.payload["direction"] == "2" and row.contract == "invalid"
    assert any("direction '2' is not one of the options A, B, C" in note for note in row.contract_notes)
    target = {"primary_direction": "A", "trajectory": "accelerating"}
    score = _offline_score(row, "direction_forecasting", target)
    assert score.metrics["top_choice"].value == 0.0  # the rationale names 'graph memory': not credited


def test_option_with_its_name_needs_no_contract_fix_call(
    toy_world: ToyWorld, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    labelled = [{"option_id": "B: tool routing"}, {"option_id": "Option A"}, {"option_id": "(C)"}]
    scripted_llm.responder = _shaped(
        {"DirectionAnswer": {"direction": "A: graph memory"}, "PlanningAnswer": {"ranking": labelled}}
    )
    tasks = [task for task in toy_tasks() if task.family in ("direction_forecasting", "strategic_planning")]
    run_release(tasks, tmp_path / "run", _settings(llm_settings), ["native"])
    rows = {row.family: row for row in read_answers(tmp_path / "run" / ANSWERS_FILE)}
    assert all(row.llm_calls == 1 and row.contract == "ok" for row in rows.values())
    assert rows["direction_forecasting"].payload["direction"] == "A"
    assert rows["direction_forecasting"].contract_notes == ["read direction 'A: graph memory' as option A"]
    ranking = [item["option_id"] for item in rows["strategic_planning"].payload["ranking"]]
    assert ranking == ["B", "A", "C"]
    sent = next(request for request in scripted_llm.requests if schema_name(request) == "DirectionAnswer")
    schema, _ = requested_schema(sent)
    assert schema is not None and schema["properties"]["direction"]["enum"] == ["A", "B", "C"]


def test_repaired_answer_is_flagged_with_its_notes(
    toy_world: ToyWorld, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    first: list[str] = []

    def responder(request: dict[str, Any]) -> Any:
        answer = answering_responder(request)
        if schema_name(request) == "PlanningAnswer" and not first:
            first.append("short")
            return {**answer, "ranking": answer["ranking"][:1]}
        return answer

    scripted_llm.responder = responder
    tasks = [task for task in toy_tasks() if task.family == "strategic_planning"]
    run_release(tasks, tmp_path / "run", _settings(llm_settings), ["native"])
    (row,) = read_answers(tmp_path / "run" / ANSWERS_FILE)
    assert row.contract == "repaired" and row.llm_calls == 2
    assert row.contract_notes == ["contract-fix re-ask after: the ranking leaves out options ['B', 'C']"]


def test_research_agent_stops_when_a_round_changes_nothing(
    toy_world: ToyWorld, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_llm.responder = answering_responder  # deterministic: the refined draft equals the draft
    settings = _settings(llm_settings)
    settings = settings.model_copy(update={"agents": settings.agents.model_copy(update={"iterations": 3})})
    tasks = [task for task in toy_tasks() if task.family == "strategic_planning"]
    view = toy_world.view()
    run_release(tasks, tmp_path / "run", settings, ["research_agent"], view_factory=lambda c: view)  # type: ignore[arg-type, return-value]
    (row,) = read_answers(tmp_path / "run" / ANSWERS_FILE)
    assert row.status == "ok" and row.llm_calls == 1 + 2 + 1 and row.cache_hits == 0
    assert row.support is not None
    assert any("stopped early after round 1 of 3" in note for note in row.support.notes)
