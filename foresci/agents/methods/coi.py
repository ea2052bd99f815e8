"""Chain-of-Ideas style: anchor papers, chains of later related work in date order, a trend reading of
the chains, then the decision drawn from them (online search replaced by the offline KB tools)."""

from __future__ import annotations

from typing import Any, Literal

from langgraph.graph import START, StateGraph
from langgraph.types import Command

from foresci.agents.briefs import task_queries
from foresci.agents.forecasting import forecast_hook
from foresci.agents.methods.base import (
    MethodContext,
    MethodState,
    decide,
    finish,
    run_llm_method,
    system_prompt,
)
from foresci.kb.models import Paper
from foresci.methods.registry import MethodInput, MethodResult, method


def _chain_text(index: int, anchor: Paper, followers: list[Paper]) -> str:
    lines = [f"Chain {index}: anchor [{anchor.paper_id}] ({anchor.announced.isoformat()}) {anchor.title}"]
    lines += [f"  -> [{paper.paper_id}] ({paper.announced.isoformat()}) {paper.title}" for paper in followers]
    return "\n".join(lines)


def build_coi(context: MethodContext) -> Any:
    """Graph: START -> anchors -> chains -> read_chains -> answer -> END (two model calls)."""
    tools = context.require_tools()
    knobs = context.settings

    def anchors(state: MethodState) -> Command[Literal["chains"]]:
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
        anchor_ids = [paper.paper_id for paper in found]
        return Command(goto="chains", update={"papers": found, "anchors": anchor_ids})

    def chains(state: MethodState) -> Command[Literal["read_chains"]]:
        by_id = {paper.paper_id: paper for paper in state.get("papers", [])}
        blocks: list[str] = []
        gathered: list[Paper] = []
        for index, anchor_id in enumerate(state.get("anchors", []), start=1):
            anchor = by_id[anchor_id]
            if tools.calls_left <= 0:
                followers: list[Paper] = []
            else:
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

    def read_chains(state: MethodState) -> Command[Literal["answer"]]:
        prompt = context.prompts.render("coi", "read_chains", brief=context.brief, chains=state["chains"])
        reading = context.llm.invoke_text([("system", system_prompt(context)), ("user", prompt)])
        return Command(goto="answer", update={"trend_reading": reading})

    def answer(state: MethodState) -> Command[Literal["__end__"]]:
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

    graph = StateGraph(MethodState)
    for name, node in (
        ("anchors", anchors),
        ("chains", chains),
        ("read_chains", read_chains),
        ("answer", answer),
    ):
        graph.add_node(name, node)
    graph.add_edge(START, "anchors")
    return graph.compile()


@method("coi", needs_kb=True, uses_llm=True)
def coi(inputs: MethodInput) -> MethodResult:
    """The coi graph on one task."""
    return run_llm_method(build_coi, inputs)


coi.forecaster(forecast_hook("coi"))
