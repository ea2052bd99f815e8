"""Native LLM: the backbone answers from the brief alone (also every method's name-only mode)."""

from __future__ import annotations

from typing import Any, Literal

from langgraph.graph import START, StateGraph
from langgraph.types import Command

from foresci.agents.forecasting import forecast_hook
from foresci.agents.methods.base import MethodContext, MethodState, decide, finish, run_llm_method
from foresci.methods.registry import MethodInput, MethodResult, method


def build_native(context: MethodContext) -> Any:
    """Graph: START -> answer -> END (one model call, no tools)."""

    def answer(state: MethodState) -> Command[Literal["__end__"]]:
        prompt = context.prompts.render("native", "answer", brief=context.brief, contract=context.contract)
        decision = decide(context, prompt)
        return Command(goto="__end__", update={**finish(context, decision.answer), **decision.update()})

    graph = StateGraph(MethodState)
    graph.add_node("answer", answer)
    graph.add_edge(START, "answer")
    return graph.compile()


@method("native", needs_kb=False, uses_llm=True)
def native(inputs: MethodInput) -> MethodResult:
    """The native graph on one task."""
    return run_llm_method(build_native, inputs)


native.forecaster(forecast_hook("native"))
