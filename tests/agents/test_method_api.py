"""The method API: neutral contracts, the ``@method`` registry driving the runner, in-process plug-ins."""

from __future__ import annotations

import ast
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from foresci.agents.answers import read_answers, read_forecasts
from foresci.core.settings import Settings
from foresci.methods import MethodInput, MethodResult, method, registered, shipped_methods
from foresci.methods.loading import MethodLoadError, resolve_method
from foresci.methods.runner import ANSWERS_FILE, FORECASTS_FILE, run_release
from foresci.tasks.models import ForecastQuestion
from tests.agents.conftest import ToyWorld
from tests.agents.toy import CUTOFF, DOMAIN, toy_tasks

FORESCI = Path(__file__).resolve().parents[2] / "foresci"


def _imports(folder: Path) -> list[tuple[str, str]]:
    found = []
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found += [(path.name, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                found.append((path.name, node.module))
    return found


def test_evaluation_never_imports_agents() -> None:
    offenders = [f"{name}: {module}" for name, module in _imports(FORESCI / "evaluation")
                 if module == "foresci.agents" or module.startswith("foresci.agents.")]
    assert not offenders
    # foresci.core.settings holds every component's section, so the agents *config* module (plain pydantic
    # fields) loads with it; no other agents module may.
    modules = sorted(f"foresci.evaluation.{path.stem}" for path in (FORESCI / "evaluation").glob("*.py")
                     if path.stem != "__init__")
    code = (
        f"import sys, importlib\nfor name in {modules!r}: importlib.import_module(name)\n"
        "bad = [m for m in sys.modules if m.startswith('foresci.agents') "
        "and m not in ('foresci.agents', 'foresci.agents.config')]\n"
        "assert not bad, bad"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-2000:]


def test_contracts_are_one_set_of_types_for_agents_and_evaluation() -> None:
    import foresci.agents.briefs as briefs
    import foresci.agents.models as agent_models
    import foresci.contracts as contracts
    import foresci.evaluation.runner as evaluation_runner

    assert evaluation_runner.Answer is contracts.Answer
    for name in ("Answer", "SupportArtifact", "ForecastAnswer", "DirectionAnswer", "VenueAnswer",
                 "family_schema", "FAMILY_SCHEMAS"):  # importable from foresci.contracts only
        assert not hasattr(agent_models, name) and not hasattr(briefs, name), name


def test_shipped_methods_register_with_their_flags() -> None:
    methods = registered()
    links = ["preferential_attachment", "common_neighbours", "adamic_adar", "jaccard", "resource_allocation",
             "learned_links"]
    assert shipped_methods() == ["native", "hybrid_rag", "coi", "research_agent", "aris", "react", "trend",
                                 "persistence", "recency", *links]
    assert shipped_methods(uses_llm=False) == ["trend", "persistence", "recency", *links]
    from foresci.tasks.families import family_names

    assert all([family for family in family_names() if methods[name].asks(family)] == ["concept_emergence"]
               for name in links)  # link prediction only: the family declaring the pair-network strategy
    assert methods["recency"].needs_kb and methods["recency"].forecast is None  # tasks state no recent counts
    assert not methods["native"].needs_kb and methods["native"].uses_llm
    assert methods["aris"].needs_kb and methods["aris"].uses_llm
    assert methods["trend"].needs_kb and not methods["trend"].uses_llm
    assert all(methods[name].forecast is not None for name in shipped_methods()
               if name not in {"recency", *links[:-1]})  # every one forecasts but the task-only rules
    assert all(methods[name].shipped for name in shipped_methods())


def test_unknown_or_broken_method_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(MethodLoadError, match=r"unknown method 'nope'; choose from native, hybrid_rag"):
        resolve_method("nope")
    with pytest.raises(MethodLoadError, match=r"no module named 'no_such_pkg'"):
        resolve_method("no_such_pkg.agent:run")
    (tmp_path / "broken_agent.py").write_text("raise RuntimeError('bad plug-in')\n")
    (tmp_path / "empty_agent.py").write_text("x = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(MethodLoadError, match=r"importing broken_agent raised RuntimeError: bad plug-in"):
        resolve_method("broken_agent:run")
    with pytest.raises(MethodLoadError, match=r"empty_agent has no attribute 'run'"):
        resolve_method("empty_agent:run")
    with pytest.raises(MethodLoadError, match=r"is not a method"):
        resolve_method("empty_agent:x")
    for error in ("nope", "no_such_pkg.agent:run"):
        with pytest.raises(MethodLoadError) as caught:
            resolve_method(error)
        assert "\n" not in str(caught.value) and str(caught.value).startswith("--method: ")


@method("api_first_option", needs_kb=True)
def first_option(inputs: MethodInput) -> Any:
    """A plug-in: searches the KB and picks each task's first option."""
    assert inputs.tools is not None and inputs.llm is None
    papers = inputs.tools.search(inputs.task.title)
    task = inputs.task
    if task.family == "direction_forecasting":
        return {"direction": task.candidates[0].option_id, "trajectory": "steady",
                "rationale": f"first option; read {len(papers)} papers"}
    if task.family == "bottleneck_opportunity":
        return MethodResult(answer={"bottleneck": "context limits", "opportunity": "long tasks",
                                    "mechanism": "memory"})
    return {"ranking": [{"option_id": option.option_id} for option in task.candidates]}


def _question() -> ForecastQuestion:
    return ForecastQuestion(question_id="q1", kind="binary", domain=DOMAIN, cutoff=CUTOFF,
                            window_start=date(2025, 7, 1), window_end=date(2025, 9, 30),
                            text="Will the share of 'graph memory' grow?", resolution_rule="r",
                            params={"family": "direction_forecasting", "threshold": 1.1}, baseline=0.3)


def test_registered_plugin_answers_through_the_runner(toy_world: ToyWorld, tmp_path: Path) -> None:
    view = toy_world.view()
    settings = Settings(cache_dir=tmp_path / "cache")
    summary = run_release(toy_tasks(), tmp_path / "run", settings, ["api_first_option", "trend"],
                          view_factory=lambda cutoff: view, questions=[_question()])  # type: ignore[arg-type,return-value]
    rows = {row.family: row for row in read_answers(tmp_path / "run" / ANSWERS_FILE)
            if row.method == "api_first_option"}
    assert summary.errors == 0 and len(rows) == 4
    assert rows["direction_forecasting"].payload["direction"] == "A"
    assert rows["strategic_planning"].contract == "ok"
    assert rows["bottleneck_opportunity"].text.startswith("Root bottleneck:")
    support = rows["direction_forecasting"].support  # the tools' log, though the plug-in returned none
    assert support is not None and support.queries == [toy_tasks()[0].title] and support.retrieved
    assert all(item.announced <= CUTOFF for item in support.retrieved)
    assert rows["direction_forecasting"].evidence == "retrieved"
    forecasts = {row.method: row for row in read_forecasts(tmp_path / "run" / FORECASTS_FILE)}
    assert forecasts["trend"].probability is not None
    lacking = forecasts["api_first_option"]
    assert lacking.status == "error" and lacking.probability is None and lacking.p50 is None
    assert lacking.error == ("question q1: NotImplementedError: method api_first_option does not answer "
                             "forecast questions")


@method("api_bad_answer")
def bad_answer(inputs: MethodInput) -> Any:
    """A plug-in that answers outside the family schema."""
    return {"direction": "A", "trajectory": "sideways", "rationale": ""}


def test_answer_outside_the_schema_is_an_error_row_naming_the_field(tmp_path: Path) -> None:
    run_release(toy_tasks()[:1], tmp_path / "run", Settings(cache_dir=tmp_path / "cache"), ["api_bad_answer"])
    (row,) = read_answers(tmp_path / "run" / ANSWERS_FILE)
    assert row.status == "error" and row.evidence is None
    expected = "method api_bad_answer answered outside the DirectionAnswer schema: trajectory:"
    assert expected in (row.error or "")


SEEN: list[MethodInput] = []


@method("api_llm_plugin", uses_llm=True)
def llm_plugin(inputs: MethodInput) -> Any:
    """A plug-in that uses the backbone: records what it was given and asks the model once."""
    SEEN.append(inputs)
    assert inputs.llm is not None
    inputs.llm.invoke_text([("user", f"Pick one of {[c.option_id for c in inputs.task.candidates]}")])
    return {"ranking": [{"option_id": option.option_id} for option in inputs.task.candidates]}


@llm_plugin.forecaster
def llm_plugin_forecast(question: ForecastQuestion, inputs: Any) -> dict[str, Any]:
    """The plug-in's forecast hook: asks its model once."""
    assert inputs.llm is not None and inputs.model in ("m1", "m2")
    inputs.llm.invoke_text([("user", question.text)])
    return {"probability": 0.6}


def test_llm_plugin_runs_per_model_and_sees_names_only_in_name_only_mode(
    llm_settings: Settings, scripted_llm: Any, tmp_path: Path
) -> None:
    from tests.agents.responders import answering_responder

    scripted_llm.responder = answering_responder
    planning = [task for task in toy_tasks() if task.family == "strategic_planning"]
    SEEN.clear()
    run_release(planning, tmp_path / "full", llm_settings, ["api_llm_plugin"], models=["m1", "m2"],
                questions=[_question()])
    rows = read_answers(tmp_path / "full" / ANSWERS_FILE)
    assert sorted(row.model for row in rows) == ["m1", "m2"] and all(row.llm_calls == 1 for row in rows)
    forecasts = read_forecasts(tmp_path / "full" / FORECASTS_FILE)
    assert sorted((row.model, row.probability) for row in forecasts) == [("m1", 0.6), ("m2", 0.6)]
    assert SEEN[0].task == planning[0] and SEEN[0].tools is None
    SEEN.clear()
    run_release(planning, tmp_path / "names", llm_settings, ["api_llm_plugin", "trend"], mode="name_only")
    (row,) = read_answers(tmp_path / "names" / ANSWERS_FILE)  # trend has no name-only mode: skipped
    assert row.mode == "name_only" and row.status == "ok"
    (seen,) = SEEN
    assert seen.mode == "name_only" and seen.task.context == {} and seen.task.title == planning[0].question
    assert [c.name for c in seen.task.candidates] == [c.name for c in planning[0].candidates]
    assert all(candidate.description == "" for candidate in seen.task.candidates)
    assert any(candidate.description for candidate in planning[0].candidates)


def test_http_agent_answers_forecast_questions(tmp_path: Path) -> None:
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    bodies: list[dict[str, Any]] = []

    class Agent(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            bodies.append(body)
            reply = {"probability": 0.7, "notes": ["remote"]} if "question_id" in body else {
                "answer": {"direction": "B", "trajectory": "steady", "rationale": "r"}}
            payload = json.dumps(reply).encode()
            self.send_response(200)
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Agent)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/agent"
    try:
        run_release(toy_tasks()[:1], tmp_path / "run", Settings(cache_dir=tmp_path / "cache"), [url],
                    questions=[_question()])
    finally:
        server.shutdown()
        server.server_close()
    (row,) = read_answers(tmp_path / "run" / ANSWERS_FILE)
    assert row.method == url and row.status == "ok" and row.payload["direction"] == "B"
    (forecast,) = read_forecasts(tmp_path / "run" / FORECASTS_FILE)
    assert forecast.method == url and forecast.probability == 0.7 and forecast.notes[0] == "remote"
    assert bodies == [toy_tasks()[0].model_dump(mode="json"), _question().model_dump(mode="json")]
