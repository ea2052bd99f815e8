"""ARIS style: planned hybrid retrieval, family-specific evidence construction, and a contract-aware
renderer (answers respect the candidate set and the family schema).

Follows ForeSci's ARIS description (App. D): the model plans the searches (its queries, merged with the
task's own), hybrid retrieval runs them over the cutoff-bounded KB, family-specific signals are measured
(candidate share trends, venue profiles, recurring limitations), the model builds evidence claims tied to
paper ids (claims citing unseen ids lose those ids), and the renderer decides under the family contract.
Departs from it: the planner writes its queries as one structured reply rather than tool calls, so ARIS
runs on endpoints without tool calling too (the ``react`` method is the tool-calling agent).

Model calls per task: 3 (plan, build_evidence, render; +1 contract fix). Compiled once; the task
arrives in the ``RunnableConfig`` (:func:`run_config`).
"""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

from langchain_core.runnables import RunnableConfig
from langgraph.graph import START, StateGraph
from langgraph.types import Command

from foresci.agents.briefs import evidence_block, task_queries
from foresci.agents.config import AgentSettings
from foresci.agents.models import EvidencePlan, QueryPlan
from foresci.agents.retrieval import retrieve_for_queries
from foresci.agents.signals import family_signals
from foresci.agents.tools import KBTools
from foresci.contracts import ForecastAnswer
from foresci.llm import LLMClient
from foresci.methods.registry import MethodInput, MethodResult, method
from foresci.methods.shipped.base import (
    MethodContext,
    MethodState,
    decide,
    finish,
    method_context,
    run_llm_method,
    system_prompt,
)
from foresci.methods.shipped.forecasting import (
    NO_LITERATURE,
    answer_reply,
    ask,
    family_signal,
    forecast_hook,
    question_subject,
    related_block,
    search_subject,
    share_trend,
)
from foresci.tasks.families import get_family
from foresci.tasks.models import ForecastQuestion


def _messages(context: MethodContext, prompt: str) -> list[tuple[str, str]]:
    return [("system", system_prompt(context)), ("user", prompt)]


def plan(state: MethodState, config: RunnableConfig) -> Command[Literal["retrieve"]]:
    """The model's search queries, then the task's own (deduplicated)."""
    context = method_context(config)
    knobs = context.settings
    prompt = context.prompts.render("aris", "plan_queries", brief=context.brief, contract=context.contract,
                                    max_queries=knobs.aris_max_queries)
    planned = context.llm.invoke_structured(_messages(context, prompt), QueryPlan)
    queries = [query.strip() for query in planned.queries if query.strip()][: knobs.aris_max_queries]
    merged = list(dict.fromkeys(queries + task_queries(context.task)))
    return Command(goto="retrieve", update={"queries": merged})


def retrieve(state: MethodState, config: RunnableConfig) -> Command[Literal["signals"]]:
    """Hybrid retrieval of the planned queries, keeping tool calls for the per-candidate trends."""
    context = method_context(config)
    knobs = context.settings
    trends = get_family(context.task.family).agent_signals == "candidate_trends"  # per-option tool calls
    reserve = len(context.task.candidates) if trends else 0
    papers = retrieve_for_queries(context.require_tools(), state["queries"], knobs.papers_per_query,
                                  keep_calls=reserve)
    return Command(goto="signals", update={"papers": papers[: knobs.max_evidence_papers]})


def signals(state: MethodState, config: RunnableConfig) -> Command[Literal["build_evidence"]]:
    """The family's measured signals from the KB tools."""
    context = method_context(config)
    tools = context.require_tools()
    text = family_signals(tools, context.task, state.get("papers", []))
    tools.artifact.notes.append(f"signals: {context.prompts.family(context.task.family, 'evidence_focus')}")
    return Command(goto="build_evidence", update={"signals": text})


def build_evidence(state: MethodState, config: RunnableConfig) -> Command[Literal["render"]]:
    """Evidence claims tied to retrieved paper ids (ids the model invents are dropped)."""
    context = method_context(config)
    papers = state.get("papers", [])
    prompt = context.prompts.render("aris", "build_evidence", brief=context.brief,
                                    evidence=evidence_block(papers), signals=state["signals"],
                                    contract=context.contract)
    built = context.llm.invoke_structured(_messages(context, prompt), EvidencePlan)
    known = {paper.paper_id for paper in papers}
    claims = []
    for claim in built.claims:
        cited = [paper_id for paper_id in claim.paper_ids if paper_id in known]
        if cited:
            claims.append(claim.model_copy(update={"paper_ids": cited}))
    context.require_tools().artifact.evidence.extend(claims)
    return Command(goto="render", update={"claims": claims})


def render(state: MethodState, config: RunnableConfig) -> Command[Literal["__end__"]]:
    """The contract-aware decision from the claims and signals."""
    context = method_context(config)
    claims = "\n".join(f"- {claim.claim} [{', '.join(claim.paper_ids)}]" for claim in state["claims"])
    prompt = context.prompts.render("aris", "render", brief=context.brief, claims=claims or "(none)",
                                    signals=state["signals"], contract=context.contract)
    decision = decide(context, prompt)
    return Command(goto="__end__", update={**finish(context, decision.answer), **decision.update()})


@cache
def aris_graph() -> Any:
    """Graph: START -> plan -> retrieve -> signals -> build_evidence -> render -> END (compiled once)."""
    graph = StateGraph(MethodState)
    for name, node in (("plan", plan), ("retrieve", retrieve), ("signals", signals),
                       ("build_evidence", build_evidence), ("render", render)):
        graph.add_node(name, node)
    graph.add_edge(START, "plan")
    return graph.compile()


@method("aris", needs_kb=True, uses_llm=True,
        prompts={"plan_queries": {"brief", "contract", "max_queries"},
                 "build_evidence": {"brief", "evidence", "signals", "contract"},
                 "render": {"brief", "claims", "signals", "contract"}})
def aris(inputs: MethodInput) -> MethodResult:
    """The aris graph on one task."""
    return run_llm_method(aris_graph, inputs)


def aris_forecast(question: ForecastQuestion, llm: LLMClient, tools: KBTools | None,
                  settings: AgentSettings) -> ForecastAnswer:
    """ARIS: the measured share trend first, related papers, and the family's own signal."""
    evidence = NO_LITERATURE
    if tools is not None:
        subject = question_subject(question)
        trend = share_trend(tools, subject, settings.trend_months)
        papers = search_subject(tools, subject)
        parts = (trend, related_block(papers), family_signal(question, papers))
        evidence = "\n\n".join(part for part in parts if part)
    return answer_reply(question, ask(question, llm, evidence), tools)


aris.forecaster(forecast_hook("aris", aris_forecast))
