"""The examples/ LangGraph plug-in: ``create_react_agent`` over ``inputs.llm.chat`` and
``inputs.tools.as_langchain()``, run sandboxed against the scripted server. Its model calls are in the row's
transcript, its token counts equal what the server reported, and its tool calls read only pre-cutoff
papers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from foresci.agents.answers import read_answers
from foresci.core.settings import Settings
from foresci.core.transcript_log import TRANSCRIPTS_FILE, read_transcripts
from foresci.methods.loading import resolve_method
from foresci.methods.runner import ANSWERS_FILE, run_release
from tests.agents.conftest import ToyWorld, toy_world  # noqa: F401
from tests.agents.responders import searching_turn
from tests.agents.toy import CUTOFF, toy_tasks
from tests.support.openai_server import ScriptedOpenAIServer, _as_reply, completion_body

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "langgraph_agent"


@pytest.mark.slow
def test_langgraph_plugin_calls_are_on_the_record(
    toy_world: ToyWorld, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer,  # noqa: F811
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    served: list[dict[str, Any]] = []

    def responder(request: dict[str, Any]) -> Any:
        reply = searching_turn(request)  # search and read the timeline, then write findings
        served.append(completion_body(request, _as_reply(reply))["usage"])
        return reply

    scripted_llm.responder = responder
    monkeypatch.syspath_prepend(str(EXAMPLE))
    spec = resolve_method("langgraph_agent:react_graph")
    assert spec.isolated and spec.uses_llm and spec.needs_kb and spec.version.startswith("src:")
    task = next(task for task in toy_tasks() if task.family == "strategic_planning")
    view = toy_world.view()
    run = tmp_path / "run"
    summary = run_release([task], run, llm_settings, [spec.name], models=["m1"],
                          view_factory=lambda cutoff: view)  # type: ignore[arg-type, return-value]
    (row,) = read_answers(run / ANSWERS_FILE)
    assert summary.errors == 0, row.error
    assert row.llm_calls == len(served) == len(scripted_llm.requests) == 2
    assert row.prompt_tokens == sum(usage["prompt_tokens"] for usage in served)
    assert row.completion_tokens == sum(usage["completion_tokens"] for usage in served)
    # the model asked for both tools in one turn: LangGraph runs them side by side, so the record holds them
    # in the order they finished, which no one fixes (a fresh-clone CI run saw timeline first)
    assert row.support is not None and sorted(call.tool for call in row.support.tool_calls) == \
        ["search_papers", "timeline"]
    assert row.support.retrieved and max(item.announced for item in row.support.retrieved) <= CUTOFF
    (transcript,) = read_transcripts(run / TRANSCRIPTS_FILE, [row.transcript or ""]).values()
    kinds = [event["kind"] for event in transcript["events"]]
    assert kinds.count("llm_call") == 2 and kinds.count("tool_call") == 2, kinds
