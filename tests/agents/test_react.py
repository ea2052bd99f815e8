"""The react method and the KB StructuredTools through the scripted server (real ChatOpenAI, real HTTP,
real KB): the model's tool calls drive the searches, the budget stops a model that keeps calling tools,
nothing after the cutoff comes back, and any LangGraph agent can use the tools."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from foresci.agents.answers import read_answers
from foresci.agents.langchain_tools import kb_langchain_tools
from foresci.agents.tools import KBTools
from foresci.contracts import Answer
from foresci.core.settings import Settings
from foresci.core.transcript_log import TRANSCRIPTS_FILE, read_transcripts
from foresci.core.transcripts import Transcript, recording
from foresci.llm import LLMClient, load_model_registry
from foresci.methods.registry import registered
from foresci.methods.runner import ANSWERS_FILE, Job, answer_job, run_release
from foresci.tasks.models import Task
from tests.agents.conftest import ToyWorld
from tests.agents.responders import answering_responder
from tests.agents.toy import CUTOFF, DOMAIN, POST_MARKER, toy_tasks
from tests.support.openai_server import Reply, ScriptedOpenAIServer

Turn = Callable[[int], Any]


def _task(family: str) -> Task:
    return next(task for task in toy_tasks() if task.family == family)


def _settings(llm_settings: Settings, **agents: Any) -> Settings:
    return llm_settings.model_copy(update={"agents": llm_settings.agents.model_copy(update=agents)})


def _is_agent_turn(request: dict[str, Any]) -> bool:
    return "search_papers" in [tool["function"]["name"] for tool in request.get("tools") or []]


def _scripted(turns: Turn) -> Callable[[dict[str, Any]], Any]:
    """A model whose react turns follow ``turns(turn_index)``; its final answer is always valid."""

    def responder(request: dict[str, Any]) -> Any:
        if _is_agent_turn(request):
            return turns(sum(message["role"] == "assistant" for message in request["messages"]))
        return answering_responder(request)

    return responder


def _answer(world: ToyWorld, settings: Settings, task: Task) -> tuple[Answer, Transcript]:
    llm = LLMClient(settings, "agent")
    with recording() as transcript:
        row = answer_job(
            Job(task, registered()["react"], "scripted-model", "full"),
            llm,
            world.view(),  # type: ignore[arg-type]
            settings,
            load_model_registry(settings.llm.registry),
        )
    return row, transcript


def _tool_events(transcript: Transcript) -> list[dict[str, Any]]:
    return [event for event in transcript.events if event["kind"] == "tool_call"]


def test_react_searches_what_the_model_asks_and_nothing_after_the_cutoff(
    toy_world: ToyWorld, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    late_id, early_id = toy_world.post_ids[0], toy_world.pre_ids[0]
    script = {
        0: Reply.calls(
            ("search_papers", {"query": "graph memory subgraph planning", "k": 3}),
            ("timeline", {"query": "reward shaping"}),
        ),
        1: Reply.calls(
            ("get_paper", {"paper_id": late_id}),
            ("related_papers", {"paper_id": early_id, "k": 2}),
            ("search_papers", {"query": "POSTCUTOFF graph memory"}),
        ),
    }
    scripted_llm.responder = _scripted(lambda turn: script.get(turn, "Graph memory keeps growing."))
    settings = _settings(llm_settings)
    row, transcript = _answer(toy_world, settings, _task("direction_forecasting"))

    assert row.status == "ok", row.error
    assert row.llm_calls == 4, "three model turns (the third stops searching) and one answer"
    support = row.support
    assert support is not None
    events = _tool_events(transcript)
    asked = [
        ("search_papers", "graph memory subgraph planning"),
        ("timeline", "reward shaping"),
        ("get_paper", late_id),
        ("related_papers", early_id),
        ("search_papers", "POSTCUTOFF graph memory"),
    ]
    assert [
        (event["tool"], event["arguments"].get("query", event["arguments"].get("paper_id")))
        for event in events
    ] == asked
    assert [call.tool for call in support.tool_calls] == [tool for tool, _ in asked]
    assert support.queries == ["graph memory subgraph planning", "POSTCUTOFF graph memory"]
    assert events[0]["arguments"]["k"] == 3 and len(events[0]["result_ids"]) == 3
    assert events[2]["result_ids"] == [], "the post-cutoff paper the model asked for is not returned"
    returned = {paper_id for event in events for paper_id in event["result_ids"]}
    assert returned and not returned & set(toy_world.post_ids)
    assert all(day <= CUTOFF.isoformat() for event in events for day in event["result_dates"])
    assert all(item.announced <= CUTOFF for item in support.retrieved)
    assert POST_MARKER not in scripted_llm.all_text().replace("POSTCUTOFF graph memory", "")
    assert not [
        paper_id
        for paper_id in toy_world.post_ids
        if paper_id in scripted_llm.all_text() and paper_id != late_id
    ]
    turns = [
        event for event in transcript.events if event["kind"] == "llm_call" and event["method"] == "tools"
    ]
    assert [len(json.loads(event["completion"])["tool_calls"]) for event in turns] == [2, 3, 0]
    assert turns[1]["messages"][-1]["role"] == "tool" and turns[1]["prompt_tokens"] > 0
    assert any("stopped searching after 3 turn(s)" in note for note in support.notes)
    answer_request = scripted_llm.requests[-1]
    assert early_id in str(answer_request["messages"]), "the answer step sees the papers the tools found"

    requests = len(scripted_llm.requests)
    again, replay = _answer(toy_world, settings, _task("direction_forecasting"))
    assert len(scripted_llm.requests) == requests, "a rerun makes zero model calls"
    assert not [event for event in replay.events if event["kind"] == "llm_call"]
    assert [event["response"] for event in replay.events if event["kind"] == "cache_hit"][:3] == [
        json.loads(turn["completion"]) for turn in turns
    ], "the rerun replays the model's turns from the cache"
    assert again.payload == row.payload and again.support is not None
    assert [call.arguments for call in again.support.tool_calls] == [
        call.arguments for call in support.tool_calls
    ]


def test_react_budget_stops_a_model_that_keeps_calling_tools(
    toy_world: ToyWorld, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer
) -> None:
    scripted_llm.responder = _scripted(
        lambda turn: Reply.calls(
            ("search_papers", {"query": f"memory {turn}"}), ("search_papers", {"query": f"tools {turn}"})
        )
    )
    settings = _settings(llm_settings, tool_budget=3, react_max_steps=10)
    row, transcript = _answer(toy_world, settings, _task("strategic_planning"))

    assert row.status == "ok", row.error
    assert row.support is not None and len(row.support.tool_calls) == 3
    assert row.llm_calls == 3, "two turns (the second overruns the budget), then the answer"
    events = _tool_events(transcript)
    assert [event["arguments"]["query"] for event in events] == ["memory 0", "tools 0", "memory 1", "tools 1"]
    assert "tool budget of 3 calls exhausted" in events[-1]["refused"] and events[-1]["result_ids"] == []
    assert any("tool budget of 3 calls is spent" in note for note in row.support.notes)


def test_react_turn_limit_and_unknown_tools(
    toy_world: ToyWorld, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer
) -> None:
    scripted_llm.responder = _scripted(
        lambda turn: Reply.calls(
            ("browse_web", {"url": "https://x.org"}), ("search_papers", {"query": f"agents {turn}"})
        )
    )
    settings = _settings(llm_settings, tool_budget=12, react_max_steps=2)
    row, transcript = _answer(toy_world, settings, _task("venue_positioning"))

    assert row.status == "ok", row.error
    assert row.llm_calls == 3 and row.support is not None
    assert [call.tool for call in row.support.tool_calls] == ["search_papers", "search_papers"]
    assert any("turn limit of 2 is reached" in note for note in row.support.notes)
    second_turn = [request for request in scripted_llm.requests if _is_agent_turn(request)][1]
    replies = [message["content"] for message in second_turn["messages"] if message["role"] == "tool"]
    assert "unknown tool 'browse_web'" in replies[0] and "untrusted-data" in replies[1]


def test_react_through_run_release_for_every_family(
    toy_world: ToyWorld, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    scripted_llm.responder = _scripted(
        lambda turn: Reply.calls(("search_papers", {"query": "graph memory"})) if turn == 0 else "done"
    )
    view = toy_world.view()
    run_release(toy_tasks(), tmp_path / "run", llm_settings, ["react"], view_factory=lambda cutoff: view)  # type: ignore[arg-type, return-value]
    rows = read_answers(tmp_path / "run" / ANSWERS_FILE)
    assert sorted(row.family for row in rows) == sorted(task.family for task in toy_tasks())
    stored = read_transcripts(tmp_path / "run" / TRANSCRIPTS_FILE)
    for row in rows:
        assert row.status == "ok", row.error
        assert row.llm_calls == 3 and row.support is not None and row.evidence == "retrieved"
        assert row.support.queries == ["graph memory"]
        assert row.transcript is not None
        events = stored[row.transcript]["events"]
        searches = [event for event in events if event["kind"] == "tool_call"]
        assert [(event["tool"], event["arguments"]["query"]) for event in searches] == [
            ("search_papers", "graph memory")
        ], "the stored transcript holds the model's search, as the model wrote it"
        assert searches[0]["result_ids"] and max(searches[0]["result_dates"]) <= CUTOFF.isoformat()
        assert [event["method"] for event in events if event["kind"] == "llm_call"][:2] == ["tools", "tools"]


@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")
def test_create_react_agent_uses_the_kb_tools(
    toy_world: ToyWorld, llm_settings: Settings, scripted_llm: ScriptedOpenAIServer
) -> None:
    from langchain_core.messages import ToolMessage
    from langchain_openai import ChatOpenAI
    from langgraph.prebuilt import create_react_agent

    early_id = toy_world.pre_ids[0]
    scripted_llm.enqueue(
        Reply.calls(
            ("search_papers", {"query": "tool routing"}),
            ("get_paper", {"paper_id": early_id}),
            ("get_paper", {"paper_id": toy_world.post_ids[0]}),
            ("timeline", {"query": "graph memory"}),
        ),
        Reply.calls(("related_papers", {"paper_id": early_id})),
        Reply.content("Tool routing is steady."),
    )
    kb = KBTools(toy_world.view(), DOMAIN, budget=4)  # type: ignore[arg-type]
    model = ChatOpenAI(base_url=scripted_llm.base_url, api_key="test", model="scripted")  # type: ignore[arg-type]
    agent = create_react_agent(model, kb_langchain_tools(kb))
    with recording() as transcript:
        result = agent.invoke({"messages": [("user", "Is tool routing growing?")]})

    tool_messages = [message for message in result["messages"] if isinstance(message, ToolMessage)]
    assert [message.name for message in tool_messages] == [
        "search_papers",
        "get_paper",
        "get_paper",
        "timeline",
        "related_papers",
    ]
    assert early_id in str(tool_messages[1].content)
    assert "no paper" in str(tool_messages[2].content) and tool_messages[2].artifact == []
    assert "tool budget of 4 calls exhausted" in str(tool_messages[4].content), (
        "over budget: told, not raised"
    )
    assert result["messages"][-1].content == "Tool routing is steady."
    assert kb.artifact.queries == ["tool routing"] and len(kb.artifact.tool_calls) == 4
    assert sorted(event["tool"] for event in _tool_events(transcript)) == [  # ToolNode runs them in parallel
        "get_paper",
        "get_paper",
        "related_papers",
        "search_papers",
        "timeline",
    ]
    sent_back = str(scripted_llm.requests[1]["messages"])
    assert POST_MARKER not in sent_back and not [
        pid for pid in toy_world.post_ids if pid in sent_back and pid != toy_world.post_ids[0]
    ]
    schema = {tool.name: tool.args_schema.model_json_schema() for tool in kb_langchain_tools(kb)}  # type: ignore[union-attr]
    assert schema["search_papers"]["required"] == ["query"] and schema["get_paper"]["required"] == [
        "paper_id"
    ]
