"""ResearchAgent style: a family-aware draft from KB evidence, reviewed by rubric-driven reviewer agents,
refined; review and refine repeat ``settings.agents.iterations`` times."""

from __future__ import annotations

import json
from typing import Any, Literal

from langgraph.graph import START, StateGraph
from langgraph.types import Command

from foresci.agents.briefs import evidence_block, family_schema
from foresci.agents.forecasting import forecast_hook
from foresci.agents.methods.base import (
    MethodContext,
    MethodState,
    decide,
    finish,
    run_llm_method,
    system_prompt,
)
from foresci.agents.methods.retrieval import retrieve_for_task
from foresci.agents.render import render_text
from foresci.methods.registry import MethodInput, MethodResult, method


def build_research_agent(context: MethodContext) -> Any:
    """Graph: START -> gather -> draft -> review -> refine -> (review | END).

    Model calls: 1 draft + iterations x (reviewers + 1), fewer when a refine round leaves the draft
    unchanged: the graph then stops (noted in the support artifact) instead of repeating the same requests.
    """
    tools = context.require_tools()
    knobs = context.settings
    schema = family_schema(context.task.family)

    def evidence(state: MethodState) -> str:
        return evidence_block(state.get("papers", []))

    def final_update(goto: str, result: Any) -> dict[str, Any]:
        """The payload and evidence links when this node ends the graph, else nothing."""
        return finish(context, result) if goto == "__end__" else {}

    def gather(state: MethodState) -> Command[Literal["draft"]]:
        papers = retrieve_for_task(tools, context.task, knobs.papers_per_query)
        return Command(goto="draft", update={"papers": papers[: knobs.max_evidence_papers], "round": 0})

    def draft(state: MethodState) -> Command[Literal["review", "__end__"]]:
        prompt = context.prompts.render(
            "research_agent",
            "draft",
            brief=context.brief,
            evidence=evidence(state),
            contract=context.contract,
        )
        decision = decide(context, prompt)
        goto: Literal["review", "__end__"] = "review" if knobs.iterations > 0 else "__end__"
        return Command(
            goto=goto,
            update={
                "draft": decision.answer.model_dump(mode="json"),
                **decision.update(),
                **final_update(goto, decision.answer),
            },
        )

    def review(state: MethodState) -> Command[Literal["refine"]]:
        draft_text = render_text(context.task, schema.model_validate(state["draft"]))
        rubric = context.prompts.family(context.task.family, "rubric")
        reviews = []
        for reviewer in range(1, knobs.reviewers + 1):
            prompt = context.prompts.render(
                "research_agent",
                "review",
                brief=context.brief,
                draft=draft_text,
                rubric=rubric,
                reviewer=reviewer,
            )
            reviews.append(context.llm.invoke_text([("system", system_prompt(context)), ("user", prompt)]))
        return Command(goto="refine", update={"reviews": reviews})

    def refine(state: MethodState) -> Command[Literal["review", "__end__"]]:
        reviews = "\n\n".join(f"Reviewer {index}: {text}" for index, text in enumerate(state["reviews"], 1))
        prompt = context.prompts.render(
            "research_agent",
            "refine",
            brief=context.brief,
            evidence=evidence(state),
            reviews=reviews,
            contract=context.contract,
            draft=json.dumps(state["draft"], ensure_ascii=False),
        )
        decision = decide(context, prompt)
        refined = decision.answer.model_dump(mode="json")
        round_done = state.get("round", 0) + 1
        unchanged = refined == state["draft"]
        goto: Literal["review", "__end__"] = (
            "review" if round_done < knobs.iterations and not unchanged else "__end__"
        )
        update = decision.update()
        if unchanged and round_done < knobs.iterations:
            stop = (
                f"stopped early after round {round_done} of {knobs.iterations}: the refined draft did "
                "not change, so a further round would repeat the same requests"
            )
            update["notes"] = [*update["notes"], stop]
        return Command(
            goto=goto,
            update={"draft": refined, "round": round_done, **update, **final_update(goto, decision.answer)},
        )

    graph = StateGraph(MethodState)
    for name, node in (("gather", gather), ("draft", draft), ("review", review), ("refine", refine)):
        graph.add_node(name, node)
    graph.add_edge(START, "gather")
    return graph.compile()


@method("research_agent", needs_kb=True, uses_llm=True)
def research_agent(inputs: MethodInput) -> MethodResult:
    """The research_agent graph on one task."""
    return run_llm_method(build_research_agent, inputs)


research_agent.forecaster(forecast_hook("research_agent"))
