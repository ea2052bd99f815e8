"""Every LLM method on every family through the scripted server (real ChatOpenAI, real HTTP, real KB)."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from foresci.agents.answers import read_answers
from foresci.agents.briefs import family_schema
from foresci.agents.runner import ANSWERS_FILE, run_release
from foresci.settings import Settings
from tests.agents.conftest import ToyWorld
from tests.agents.responders import answering_responder
from tests.agents.toy import POST_MARKER, toy_tasks
from tests.support.openai_server import Reply, ScriptedOpenAIServer

# model calls per task with iterations=1, reviewers=2 (research_agent: draft + 2 reviews + refine)
EXPECTED_CALLS = {"native": 1, "hybrid_rag": 1, "coi": 2, "research_agent": 4, "aris": 3}


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
    assert len(rows) == 4 * 7 and all(row.status == "ok" for row in rows)
    assert toy_world.post_ids, "the toy KB must hold post-cutoff papers for this test to mean anything"
    _assert_no_leak(scripted_llm.all_text(), rows, toy_world)
    assert str(date.today().year) + "-" + f"{date.today().month:02d}" not in scripted_llm.all_text()


def test_api_key_never_written(
    toy_world: ToyWorld, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    from foresci.agents.cli import write_run_manifest
    from foresci.io import write_jsonl

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
