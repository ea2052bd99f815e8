"""Native LLM: the backbone answers from the brief alone (also every method's name-only mode).

The graph is compiled once; the task arrives in the ``RunnableConfig`` (:func:`run_config`).
"""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

from langchain_core.runnables import RunnableConfig
from langgraph.graph import START, StateGraph
from langgraph.types import Command

from foresci.agents.forecasting import forecast_hook
from foresci.agents.methods.base import MethodState, decide, finish, method_context, run_llm_method
from foresci.methods.registry import MethodInput, MethodResult, method


def answer(state: MethodState, config: RunnableConfig) -> Command[Literal["__end__"]]:
    """The one decide step."""
    context = method_context(config)
    prompt = context.prompts.render("native", "answer", brief=context.brief, contract=context.contract)
    decision = decide(context, prompt)
    return Command(goto="__end__", update={**finish(context, decision.answer), **decision.update()})


@cache
def native_graph() -> Any:
    """Graph: START -> answer -> END (one model call, no tools), compiled on first use."""
    graph = StateGraph(MethodState)
    graph.add_node("answer", answer)
    graph.add_edge(START, "answer")
    return graph.compile()


@method("native", needs_kb=False, uses_llm=True)
def native(inputs: MethodInput) -> MethodResult:
    """The native graph on one task."""
    return run_llm_method(native_graph, inputs)


native.forecaster(forecast_hook("native"))
