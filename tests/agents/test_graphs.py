"""How the method graphs are built and run: compiled once, the task in the config, reviewers in parallel."""

from __future__ import annotations

import threading
import time
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from foresci.agents.answers import read_answers
from foresci.core.settings import Settings
from foresci.methods.registry import shipped_methods
from foresci.methods.runner import ANSWERS_FILE, run_release
from foresci.methods.shipped.aris import aris_graph
from foresci.methods.shipped.base import native_graph
from foresci.methods.shipped.coi import coi_graph
from foresci.methods.shipped.hybrid_rag import hybrid_rag_graph
from foresci.methods.shipped.react import react_graph
from foresci.methods.shipped.research_agent import research_agent_graph
from tests.agents.conftest import ToyWorld
from tests.agents.responders import answering_responder
from tests.agents.toy import toy_tasks
from tests.support.openai_server import ScriptedOpenAIServer


def test_graphs_are_compiled_once_and_need_the_task_in_the_config() -> None:
    graphs = [native_graph, hybrid_rag_graph, coi_graph, research_agent_graph, aris_graph, react_graph]
    for graph in graphs:
        assert graph() is graph(), graph.__name__
    assert "react" in shipped_methods(uses_llm=True)
    with pytest.raises(RuntimeError, match="run_config"):
        native_graph().invoke({})


def test_research_agent_reviewers_run_in_parallel(
    toy_world: ToyWorld, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    spans: list[tuple[float, float]] = []
    lock = threading.Lock()

    def responder(request: dict[str, Any]) -> Any:
        if "You are reviewer" in str(request["messages"]):
            started = time.monotonic()
            time.sleep(0.4)
            with lock:
                spans.append((started, time.monotonic()))
        return answering_responder(request)

    scripted_llm.responder = responder
    agents = llm_settings.agents.model_copy(update={"iterations": 1, "reviewers": 3, "concurrency": 1})
    settings = llm_settings.model_copy(
        update={"agents": agents, "llm": llm_settings.llm.model_copy(update={"concurrency": 4})}
    )
    view = toy_world.view()
    task = next(task for task in toy_tasks() if task.family == "venue_positioning")

    def factory(cutoff: date) -> Any:
        return view

    run_release([task], tmp_path / "run", settings, ["research_agent"], view_factory=factory)
    [row] = read_answers(tmp_path / "run" / ANSWERS_FILE)
    assert row.status == "ok", row.error
    assert row.llm_calls == 1 + 3 + 1, "draft, three reviews, refine"
    assert len(spans) == 3
    latest_start = max(start for start, _ in spans)
    earliest_end = min(end for _, end in spans)
    assert latest_start < earliest_end, f"the reviews ran one after another: {spans}"
    refine = scripted_llm.requests[-1]["messages"][-1]["content"]
    assert refine.index("Reviewer 1:") < refine.index("Reviewer 2:") < refine.index("Reviewer 3:")
