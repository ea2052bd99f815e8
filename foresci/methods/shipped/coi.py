"""Chain-of-Ideas style (Li et al., 2024): anchor papers, chains of later related work in date order, a
trend reading of the chains, then the decision drawn from them.

Follows CoI's shape: anchor retrieval, chain construction by following related work forward in time,
a trend-prediction reading of the chains, and the final output drawn from them. Departs from it: online
search and citation links are replaced by the offline KB tools bound to the cutoff (anchors come from the
task's own queries, chains from ``related_papers``), the anchor queries are the task's rather than
model-written (this keeps CoI's two model calls), and the output is the family's decision, not a new
idea with an experiment plan.

Model calls per task: 2 (read_chains, answer; +1 contract fix). Tool calls: up to ``coi_chains`` searches
and one ``related_papers`` per anchor, within ``tool_budget``. Compiled once; the task arrives in the
``RunnableConfig`` (:func:`run_config`).
"""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

from langchain_core.runnables import RunnableConfig
from langgraph.graph import START, StateGraph
from langgraph.types import Command

from foresci.agents.briefs import task_queries
from foresci.agents.config import AgentSettings
from foresci.agents.tools import KBTools
from foresci.contracts import ForecastAnswer
from foresci.kb.models import Paper
from foresci.llm import LLMClient
from foresci.methods.registry import MethodInput, MethodResult, method
from foresci.methods.shipped.base import (
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
    forecast_hook,
    idea_chain,
    question_subject,
)
from foresci.tasks.models import ForecastQuestion


def _chain_text(index: int, anchor: Paper, followers: list[Paper]) -> str:
    lines = [f"Chain {index}: anchor [{anchor.paper_id}] ({anchor.announced.isoformat()}) {anchor.title}"]
    lines += [f"  -> [{paper.paper_id}] ({paper.announced.isoformat()}) {paper.title}" for paper in followers]
    return "\n".join(lines)


def anchors(state: MethodState, config: RunnableConfig) -> Command[Literal["chains"]]:
    """One anchor per task query: the earliest of its top three hits not already an anchor."""
    context = method_context(config)
    tools, knobs = context.require_tools(), context.settings
    found: list[Paper] = []
    for query in task_queries(context.task)[: knobs.coi_chains]:
        if tools.calls_left <= 1:
            break
        hits = [
            paper
            for paper in tools.search(query, k=knobs.papers_per_query)
            if paper.paper_id not in {anchor.paper_id for anchor in found}
        ]
        if hits:
            found.append(min(hits[:3], key=lambda paper: paper.announced))
    return Command(goto="chains", update={"papers": found, "anchors": [paper.paper_id for paper in found]})


def chains(state: MethodState, config: RunnableConfig) -> Command[Literal["read_chains"]]:
    """Each anchor's chain: its related papers announced on or after it, oldest first."""
    context = method_context(config)
    tools, knobs = context.require_tools(), context.settings
    by_id = {paper.paper_id: paper for paper in state.get("papers", [])}
    blocks: list[str] = []
    gathered: list[Paper] = []
    for index, anchor_id in enumerate(state.get("anchors", []), start=1):
        anchor = by_id[anchor_id]
        followers: list[Paper] = []
        if tools.calls_left > 0:
            followers = [
                paper
                for paper in tools.related_papers(anchor_id, k=knobs.coi_chain_length)
                if paper.announced >= anchor.announced
            ]
        gathered += followers
        blocks.append(_chain_text(index, anchor, followers))
    return Command(
        goto="read_chains",
        update={"papers": gathered, "chains": "\n\n".join(blocks) or "(no chains found)"},
    )


def read_chains(state: MethodState, config: RunnableConfig) -> Command[Literal["answer"]]:
    """The trend reading: how each chain developed and where it goes next."""
    context = method_context(config)
    prompt = context.prompts.render("coi", "read_chains", brief=context.brief, chains=state["chains"])
    reading = context.llm.invoke_text([("system", system_prompt(context)), ("user", prompt)])
    return Command(goto="answer", update={"trend_reading": reading})


def answer(state: MethodState, config: RunnableConfig) -> Command[Literal["__end__"]]:
    """The decision drawn from the chains and their reading."""
    context = method_context(config)
    prompt = context.prompts.render(
        "coi",
        "answer",
        brief=context.brief,
        chains=state["chains"],
        trend_reading=state["trend_reading"],
        contract=context.contract,
    )
    decision = decide(context, prompt)
    return Command(goto="__end__", update={**finish(context, decision.answer), **decision.update()})


@cache
def coi_graph() -> Any:
    """Graph: START -> anchors -> chains -> read_chains -> answer -> END, compiled on first use."""
    graph = StateGraph(MethodState)
    for name, node in (("anchors", anchors), ("chains", chains), ("read_chains", read_chains),
                       ("answer", answer)):
        graph.add_node(name, node)
    graph.add_edge(START, "anchors")
    return graph.compile()


@method("coi", needs_kb=True, uses_llm=True,
        prompts={"read_chains": {"brief", "chains"},
                 "answer": {"brief", "chains", "trend_reading", "contract"}})
def coi(inputs: MethodInput) -> MethodResult:
    """The coi graph on one task."""
    return run_llm_method(coi_graph, inputs)


def coi_forecast(question: ForecastQuestion, llm: LLMClient, tools: KBTools | None,
                 settings: AgentSettings) -> ForecastAnswer:
    """CoI: one chain of ideas on the subject (anchor, then later related work, oldest first)."""
    evidence = NO_LITERATURE if tools is None else idea_chain(tools, question_subject(question))
    return answer_reply(question, ask(question, llm, evidence), tools)


coi.forecaster(forecast_hook("coi", coi_forecast))
