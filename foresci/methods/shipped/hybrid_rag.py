"""Hybrid RAG: sparse + dense retrieval (the KB's fused search) and an answer grounded in the papers.

The graph is compiled once; the task arrives in the ``RunnableConfig`` (:func:`run_config`).
"""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

from langchain_core.runnables import RunnableConfig
from langgraph.graph import START, StateGraph
from langgraph.types import Command

from foresci.agents.briefs import evidence_block
from foresci.agents.config import AgentSettings
from foresci.agents.retrieval import retrieve_for_task
from foresci.agents.tools import KBTools
from foresci.contracts import ForecastAnswer
from foresci.llm import LLMClient
from foresci.methods.registry import MethodInput, MethodResult, method
from foresci.methods.shipped.base import MethodState, decide, finish, method_context, run_llm_method
from foresci.methods.shipped.forecasting import (
    NO_LITERATURE,
    answer_reply,
    ask,
    forecast_hook,
    question_subject,
    related_block,
    search_subject,
)
from foresci.tasks.models import ForecastQuestion


def retrieve(state: MethodState, config: RunnableConfig) -> Command[Literal["answer"]]:
    """Search the task's own queries (title, each candidate) and keep the best papers."""
    context = method_context(config)
    knobs = context.settings
    papers = retrieve_for_task(context.require_tools(), context.task, knobs.papers_per_query)
    return Command(goto="answer", update={"papers": papers[: knobs.max_evidence_papers]})


def answer(state: MethodState, config: RunnableConfig) -> Command[Literal["__end__"]]:
    """The decide step over the retrieved papers."""
    context = method_context(config)
    papers = evidence_block(state.get("papers", []))
    prompt = context.prompts.render(
        "hybrid_rag", "answer", brief=context.brief, evidence=papers, contract=context.contract
    )
    decision = decide(context, prompt)
    return Command(goto="__end__", update={**finish(context, decision.answer), **decision.update()})


@cache
def hybrid_rag_graph() -> Any:
    """Graph: START -> retrieve -> answer -> END (one model call), compiled on first use."""
    graph = StateGraph(MethodState)
    graph.add_node("retrieve", retrieve)
    graph.add_node("answer", answer)
    graph.add_edge(START, "retrieve")
    return graph.compile()


@method("hybrid_rag", needs_kb=True, uses_llm=True,
        prompts={"answer": {"brief", "evidence", "contract"}})
def hybrid_rag(inputs: MethodInput) -> MethodResult:
    """The hybrid_rag graph on one task."""
    return run_llm_method(hybrid_rag_graph, inputs)


def rag_forecast(question: ForecastQuestion, llm: LLMClient, tools: KBTools | None,
                 settings: AgentSettings) -> ForecastAnswer:
    """Hybrid RAG: the papers search finds for the question's subject."""
    evidence = (NO_LITERATURE if tools is None
                else related_block(search_subject(tools, question_subject(question))))
    return answer_reply(question, ask(question, llm, evidence), tools)


hybrid_rag.forecaster(forecast_hook("hybrid_rag", rag_forecast))
