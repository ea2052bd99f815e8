"""A new shipped LLM method is one module (named in SHIPPED_METHODS) and one YAML: dropped into the shipped
package and the prompt folder (temp copies here, nothing in foresci edited), it is listed in its stated
place, its prompts load and render, and the runner answers tasks and forecast questions with it."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

import foresci.methods.shipped as shipped_package
from foresci.agents import prompts as agent_prompts
from foresci.agents.answers import read_answers, read_forecasts
from foresci.agents.prompts import PromptError
from foresci.core.resources import declarative_dir
from foresci.core.settings import Settings
from foresci.methods import registry
from foresci.methods.runner import ANSWERS_FILE, run_release
from foresci.methods.shipped.prompts import prompt_book
from foresci.tasks.models import ForecastQuestion
from tests.agents.responders import answering_responder, schema_name
from tests.agents.toy import CUTOFF, DOMAIN, toy_tasks
from tests.support.openai_server import ScriptedOpenAIServer

NAME = "toy_echo"
MODULE = f'''"""Toy echo: the brief, restated, then one decide step (a test's new shipped method)."""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

from langchain_core.runnables import RunnableConfig
from langgraph.graph import START, StateGraph
from langgraph.types import Command

from foresci.methods.registry import method
from foresci.methods.shipped.base import MethodState, decide, finish, method_context, run_llm_method
from foresci.methods.shipped.forecasting import answer_reply, ask, forecast_hook


def echo(state: MethodState, config: RunnableConfig) -> Command[Literal["__end__"]]:
    context = method_context(config)
    prompt = context.prompts.render("{NAME}", "echo", brief=context.brief, contract=context.contract,
                                    tone="plain")
    decision = decide(context, prompt)
    return Command(goto="__end__", update={{**finish(context, decision.answer), **decision.update()}})


@cache
def echo_graph() -> Any:
    graph = StateGraph(MethodState)
    graph.add_node("echo", echo)
    graph.add_edge(START, "echo")
    return graph.compile()


@method("{NAME}", uses_llm=True, prompts={{"echo": {{"brief", "contract", "tone"}}}})
def toy_echo(inputs):
    return run_llm_method(echo_graph, inputs)


def echo_forecast(question, llm, tools, settings):
    answer = answer_reply(question, ask(question, llm, "ECHO-EVIDENCE"), tools)
    answer.notes.append("echoed")
    return answer


toy_echo.forecaster(forecast_hook("{NAME}", echo_forecast))
'''
YAML = """templates:
  echo:
    variables: [brief, contract, tone]
    text: |
      TOY-ECHO in a {tone} voice.
      {brief}

      What your answer must contain:
      {contract}
"""


@pytest.fixture
def dropped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The toy module in (a folder of) the shipped package, named after ``react`` in the stated tuple, and
    its YAML in a copy of ``agents/``; the registry and module table restored afterwards."""
    package_dir = tmp_path / "shipped"
    package_dir.mkdir()
    (package_dir / f"{NAME}.py").write_text(MODULE)
    agents_dir = tmp_path / "agents"
    shutil.copytree(declarative_dir("agents"), agents_dir)
    (agents_dir / f"{NAME}.yaml").write_text(YAML)
    registry.registered()  # the shipped methods load into the real registry before it is swapped
    monkeypatch.setattr(shipped_package, "__path__", [*shipped_package.__path__, str(package_dir)])
    monkeypatch.setattr(agent_prompts, "declarative_dir", lambda name: tmp_path / name)
    methods = registry.METHODS
    stated = list(methods.shipped)
    stated.insert(stated.index(f"{shipped_package.__name__}.react") + 1, f"{shipped_package.__name__}.{NAME}")
    with pytest.MonkeyPatch.context() as swap:
        swap.setattr(methods, "shipped", tuple(stated))
        swap.setattr(methods, "entries", dict(methods.entries))
        swap.setattr(methods, "_imported", set(methods._imported))
        methods.forget_order()
        yield agents_dir
    methods.forget_order()
    sys.modules.pop(f"{shipped_package.__name__}.{NAME}", None)


def _question() -> ForecastQuestion:
    return ForecastQuestion(question_id="q1", kind="binary", domain=DOMAIN, cutoff=CUTOFF,
                            window_start=date(2025, 7, 1), window_end=date(2025, 9, 30),
                            text="Will graph memory grow?", resolution_rule="r",
                            params={"family": "direction_forecasting"}, baseline=0.3)


def test_a_dropped_module_is_listed_with_its_prompts(dropped: Path) -> None:
    methods = registry.registered()
    assert NAME in registry.shipped_methods(uses_llm=True)
    names = list(methods)
    assert names.index("react") < names.index(NAME) < names.index("trend"), "its place in the tuple places it"
    spec = methods[NAME]
    assert spec.shipped and spec.uses_llm and spec.forecast is not None
    book = prompt_book()
    text = book.render(NAME, "echo", brief="B", contract="C", tone="dry")
    assert text.startswith("TOY-ECHO in a dry voice.")
    with pytest.raises(PromptError, match="unknown"):
        book.render(NAME, "echo", brief="B", contract="C", tone="dry", extra="x")


def test_its_yaml_is_checked_against_the_variables_the_module_declares(dropped: Path) -> None:
    (dropped / f"{NAME}.yaml").write_text(YAML.replace("[brief, contract, tone]", "[brief, contract]")
                                          .replace("{tone} ", ""))
    with pytest.raises(PromptError, match=rf"{NAME}\.yaml: templates\.echo: declares .*the code passes"):
        prompt_book(dropped)
    (dropped / f"{NAME}.yaml").unlink()
    with pytest.raises(PromptError, match=rf"{NAME}\.yaml: prompt file missing"):
        prompt_book(dropped)


def test_the_runner_answers_tasks_and_forecasts_with_it(
    dropped: Path, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    def responder(request: dict[str, Any]) -> Any:
        if schema_name(request) == "BinaryForecast":
            return {"probability": 0.65, "rationale": "echo"}
        return answering_responder(request)

    scripted_llm.responder = responder
    tasks = toy_tasks()
    run_release(tasks, tmp_path / "run", llm_settings, [NAME], questions=[_question()])
    rows = read_answers(tmp_path / "run" / ANSWERS_FILE)
    assert {row.method for row in rows} == {NAME} and len(rows) == len(tasks)
    assert all(row.status == "ok" for row in rows), [row.error for row in rows]
    prompts = [str(request["messages"]) for request in scripted_llm.requests]
    assert sum("TOY-ECHO in a plain voice." in prompt for prompt in prompts) == len(tasks)
    (forecast,) = read_forecasts(tmp_path / "run" / "forecasts.jsonl")
    assert forecast.status == "ok", forecast.error
    assert forecast.method == NAME and forecast.probability == 0.65 and "echoed" in forecast.notes
    assert any("ECHO-EVIDENCE" in prompt for prompt in prompts)
