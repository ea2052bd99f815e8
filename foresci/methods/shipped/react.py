"""ReAct (Yao et al., 2023): the model is bound to the KB tools and decides what to search and when to stop.

Follows the ReAct loop: the model reasons, calls tools (``search_papers``, ``get_paper``,
``related_papers``, ``timeline``; several per turn allowed), reads their results and goes on until it
replies without a tool call. Departs from it in two ways that the benchmark needs: the loop has a call
budget (``agents.tool_budget`` tool calls and ``agents.react_max_steps`` model turns; when either is spent
the loop stops and the stop is noted in the support artifact), and the answer is not the loop's last
message but one structured call in the family's schema (the shared decide/contract step), given the
papers the searches found and the model's findings.

Model calls per task: the loop's turns (at most ``react_max_steps``) + 1 answer (+1 contract fix).
Forecast questions go through the same loop (:func:`react_forecast`).
The graph is compiled once; the task arrives in the ``RunnableConfig`` (:func:`run_config`).
"""

from __future__ import annotations

import operator
from functools import cache
from typing import Annotated, Any, Literal, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import Command

from foresci.agents.briefs import evidence_block
from foresci.agents.config import AgentSettings
from foresci.agents.langchain_tools import kb_langchain_tools
from foresci.agents.tool_loop import run_tool_calls, search_with_tools, stop_reason
from foresci.agents.tools import KBTools
from foresci.contracts import ForecastAnswer
from foresci.kb.models import Paper
from foresci.llm import LLMClient
from foresci.methods.registry import MethodInput, MethodResult, method
from foresci.methods.shipped.base import (
    decide,
    finish,
    merge_papers,
    method_context,
    run_llm_method,
    system_prompt,
)
from foresci.methods.shipped.forecasting import (
    NO_LITERATURE,
    answer_reply,
    ask,
    forecast_hook,
    question_facts,
    related_block,
)
from foresci.methods.shipped.prompts import prompt_book
from foresci.tasks.models import ForecastQuestion


class ReactState(TypedDict, total=False):
    """The conversation, the papers its tool calls returned, and the outcome."""

    messages: Annotated[list[AnyMessage], add_messages]
    papers: Annotated[list[Paper], merge_papers]
    notes: Annotated[list[str], operator.add]
    steps: int
    answer: dict[str, Any]
    contract: dict[str, Any]


def agent(state: ReactState, config: RunnableConfig) -> Command[Literal["tools", "answer"]]:
    """One model turn: it calls tools or stops; a call that the budget no longer allows ends the loop."""
    context = method_context(config)
    kb = context.require_tools()
    started = state.get("messages") or []
    opening: list[AnyMessage] = [] if started else [
        SystemMessage(system_prompt(context)),
        HumanMessage(context.prompts.render(
            "react", "instructions", brief=context.brief, contract=context.contract,
            tool_budget=kb.budget, max_steps=context.settings.react_max_steps)),
    ]
    reply = context.llm.invoke_with_tools([*started, *opening], kb_langchain_tools(kb))
    steps = state.get("steps", 0) + 1
    update: dict[str, Any] = {"messages": [*opening, reply], "steps": steps}
    if not reply.tool_calls:
        return Command(goto="answer", update={**update, "notes": [f"react: the model stopped searching "
                                                                  f"after {steps} turn(s)"]})
    if kb.calls_left <= 0:
        asked = ", ".join(call["name"] for call in reply.tool_calls)
        stop = (f"react: stopped after {steps} turn(s): the tool budget of {kb.budget} calls is spent "
                f"and the model still asked for {asked}")
        return Command(goto="answer", update={**update, "notes": [stop]})
    return Command(goto="tools", update=update)


def tools(state: ReactState, config: RunnableConfig) -> Command[Literal["agent", "answer"]]:
    """Run the tool calls of the last turn; back to the model unless the turn or call budget is spent."""
    context = method_context(config)
    kb = context.require_tools()
    last = state["messages"][-1]
    if not isinstance(last, AIMessage):
        raise RuntimeError("react: the tools step follows a model turn")
    results, papers = run_tool_calls(kb_langchain_tools(kb), last)
    update: dict[str, Any] = {"messages": results, "papers": papers}
    steps = state.get("steps", 0)
    if (why := stop_reason(kb, steps, context.settings.react_max_steps)) is not None:
        stop = f"react: stopped after {steps} turn(s): {why}"
        return Command(goto="answer", update={**update, "notes": [stop]})
    return Command(goto="agent", update=update)


def answer(state: ReactState, config: RunnableConfig) -> Command[Literal["__end__"]]:
    """The family answer from the papers found and the model's own findings (shared decide step)."""
    context = method_context(config)
    said = [message.text for message in state.get("messages", [])
            if isinstance(message, AIMessage) and message.text.strip()]
    prompt = context.prompts.render(
        "react", "answer", brief=context.brief,
        evidence=evidence_block(state.get("papers", [])[: context.settings.max_evidence_papers]),
        findings="\n\n".join(said) or "(no findings written: the loop was stopped by its budget)",
        contract=context.contract)
    decision = decide(context, prompt)
    return Command(goto="__end__", update={**finish(context, decision.answer), **decision.update()})


@cache
def react_graph() -> Any:
    """Graph: START -> agent -> (tools -> agent)* -> answer -> END, compiled on first use."""
    graph = StateGraph(ReactState)
    graph.add_node("agent", agent)
    graph.add_node("tools", tools)
    graph.add_node("answer", answer)
    graph.add_edge(START, "agent")
    return graph.compile()


@method("react", needs_kb=True, uses_llm=True,
        prompts={"instructions": {"brief", "contract", "tool_budget", "max_steps"},
                 "answer": {"brief", "evidence", "findings", "contract"},
                 "forecast_search": {"question", "facts", "tool_budget", "max_steps"}})
def react(inputs: MethodInput) -> MethodResult:
    """The react graph on one task."""
    return run_llm_method(react_graph, inputs)


def react_forecast(question: ForecastQuestion, llm: LLMClient, tools: KBTools | None,
                   settings: AgentSettings) -> ForecastAnswer:
    """ReAct: the model searches with the KB tools (its own calls, within the tool budget and
    ``react_max_steps`` turns), then forecasts from the papers found and its findings (turns + 1 calls)."""
    if tools is None:
        return answer_reply(question, ask(question, llm, NO_LITERATURE), None)
    book = prompt_book()
    opening = [("system", book.render("common", "system", cutoff=question.cutoff.isoformat())),
               ("user", book.render("react", "forecast_search", question=question.text,
                                    facts=question_facts(question), tool_budget=tools.budget,
                                    max_steps=settings.react_max_steps))]
    found = search_with_tools(llm, tools, opening, settings.react_max_steps)
    evidence = "\n\n".join([related_block(found.papers), *found.findings])
    answer = answer_reply(question, ask(question, llm, evidence), tools)
    answer.notes.append(f"react: {found.stop}")
    return answer


react.forecaster(forecast_hook("react", react_forecast))
