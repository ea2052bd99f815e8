"""Hybrid RAG: sparse + dense retrieval (the KB's fused search) and an answer grounded in the papers."""

from __future__ import annotations

from typing import Any, Literal

from langgraph.graph import START, StateGraph
from langgraph.types import Command

from foresci.agents.briefs import evidence_block
from foresci.agents.forecasting import forecast_hook
from foresci.agents.methods.base import MethodContext, MethodState, decide, finish, run_llm_method
from foresci.agents.methods.retrieval import retrieve_for_task
from foresci.methods.registry import MethodInput, MethodResult, method


def build_hybrid_rag(context: MethodContext) -> Any:
    """Graph: START -> retrieve -> answer -> END (one model call)."""
    tools = context.require_tools()
    knobs = context.settings

    def retrieve(state: MethodState) -> Command[Literal["answer"]]:
        papers = retrieve_for_task(tools, context.task, knobs.papers_per_query)
        return Command(goto="answer", update={"papers": papers[: knobs.max_evidence_papers]})

    def answer(state: MethodState) -> Command[Literal["__end__"]]:
        papers = evidence_block(state.get("papers", []))
        prompt = context.prompts.render(
            "hybrid_rag", "answer", brief=context.brief, evidence=papers, contract=context.contract
        )
        decision = decide(context, prompt)
        return Command(goto="__end__", update={**finish(context, decision.answer), **decision.update()})

    graph = StateGraph(MethodState)
    graph.add_node("retrieve", retrieve)
    graph.add_node("answer", answer)
    graph.add_edge(START, "retrieve")
    return graph.compile()


@method("hybrid_rag", needs_kb=True, uses_llm=True)
def hybrid_rag(inputs: MethodInput) -> MethodResult:
    """The hybrid_rag graph on one task."""
    return run_llm_method(build_hybrid_rag, inputs)


hybrid_rag.forecaster(forecast_hook("hybrid_rag"))
