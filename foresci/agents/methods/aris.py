"""ARIS style: planned hybrid retrieval, family-specific evidence construction, and a contract-aware
renderer (answers respect the candidate set and the family schema)."""

from __future__ import annotations

from typing import Any, Literal

from langgraph.graph import START, StateGraph
from langgraph.types import Command

from foresci.agents.briefs import evidence_block, task_queries
from foresci.agents.forecasting import forecast_hook
from foresci.agents.methods.base import (
    MethodContext,
    MethodState,
    decide,
    finish,
    run_llm_method,
    system_prompt,
)
from foresci.agents.methods.retrieval import retrieve_for_queries
from foresci.agents.methods.signals import family_signals
from foresci.agents.models import EvidencePlan, QueryPlan
from foresci.methods.registry import MethodInput, MethodResult, method


def build_aris(context: MethodContext) -> Any:
    """Graph: START -> plan -> retrieve -> signals -> build_evidence -> render -> END (three model calls)."""
    tools = context.require_tools()
    knobs = context.settings

    def messages(prompt: str) -> list[tuple[str, str]]:
        return [("system", system_prompt(context)), ("user", prompt)]

    def plan(state: MethodState) -> Command[Literal["retrieve"]]:
        prompt = context.prompts.render(
            "aris",
            "plan_queries",
            brief=context.brief,
            contract=context.contract,
            max_queries=knobs.aris_max_queries,
        )
        planned = context.llm.invoke_structured(messages(prompt), QueryPlan)
        queries = [query.strip() for query in planned.queries if query.strip()][: knobs.aris_max_queries]
        merged = list(dict.fromkeys(queries + task_queries(context.task)))
        return Command(goto="retrieve", update={"queries": merged})

    def retrieve(state: MethodState) -> Command[Literal["signals"]]:
        reserve = (
            len(context.task.candidates)
            if context.task.family in ("direction_forecasting", "strategic_planning")
            else 0
        )
        papers = retrieve_for_queries(tools, state["queries"], knobs.papers_per_query, keep_calls=reserve)
        return Command(goto="signals", update={"papers": papers[: knobs.max_evidence_papers]})

    def signals(state: MethodState) -> Command[Literal["build_evidence"]]:
        text = family_signals(tools, context.task, state.get("papers", []))
        focus = context.prompts.family(context.task.family, "evidence_focus")
        tools.artifact.notes.append(f"signals: {focus}")
        return Command(goto="build_evidence", update={"signals": text})

    def build_evidence(state: MethodState) -> Command[Literal["render"]]:
        papers = state.get("papers", [])
        prompt = context.prompts.render(
            "aris",
            "build_evidence",
            brief=context.brief,
            evidence=evidence_block(papers),
            signals=state["signals"],
            contract=context.contract,
        )
        built = context.llm.invoke_structured(messages(prompt), EvidencePlan)
        known = {paper.paper_id for paper in papers}
        claims = []
        for claim in built.claims:
            cited = [paper_id for paper_id in claim.paper_ids if paper_id in known]
            if cited:
                claims.append(claim.model_copy(update={"paper_ids": cited}))
        tools.artifact.evidence.extend(claims)
        return Command(goto="render", update={"claims": claims})

    def render(state: MethodState) -> Command[Literal["__end__"]]:
        claims = "\n".join(f"- {claim.claim} [{', '.join(claim.paper_ids)}]" for claim in state["claims"])
        prompt = context.prompts.render(
            "aris",
            "render",
            brief=context.brief,
            claims=claims or "(none)",
            signals=state["signals"],
            contract=context.contract,
        )
        decision = decide(context, prompt)
        return Command(goto="__end__", update={**finish(context, decision.answer), **decision.update()})

    graph = StateGraph(MethodState)
    for name, node in (
        ("plan", plan),
        ("retrieve", retrieve),
        ("signals", signals),
        ("build_evidence", build_evidence),
        ("render", render),
    ):
        graph.add_node(name, node)
    graph.add_edge(START, "plan")
    return graph.compile()


@method("aris", needs_kb=True, uses_llm=True)
def aris(inputs: MethodInput) -> MethodResult:
    """The aris graph on one task."""
    return run_llm_method(build_aris, inputs)


aris.forecaster(forecast_hook("aris"))
