"""ResearchAgent style (Baek et al., 2024): a family-aware draft from KB evidence, reviewed by several
reviewing agents in parallel against a rubric, then refined; review and refine repeat
``settings.agents.iterations`` times.

Follows ResearchAgent's loop: generate from retrieved literature, have independent reviewing agents judge
the output against explicit criteria, refine from their feedback, iterate. The reviewers run in parallel
(one ``Send`` per reviewer) and the refine step waits for all of them. Departs from it: the academic graph
and entity store are replaced by hybrid retrieval over the cutoff-bounded KB; the problem/method/experiment
stages are folded into one family-aware draft (the prompt asks for problem, approach, test and decision);
the review criteria are the family rubric, not criteria induced from human judgements.

Model calls per task: 1 draft + iterations x (reviewers + 1), fewer when a refine round leaves the draft
unchanged: the loop then stops (noted in the support artifact) instead of repeating the same requests.
Compiled once; the task arrives in the ``RunnableConfig`` (:func:`run_config`).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any, Literal, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send

from foresci.agents.briefs import evidence_block
from foresci.agents.config import AgentSettings
from foresci.agents.render import render_text
from foresci.agents.retrieval import retrieve_for_task
from foresci.agents.tools import KBTools
from foresci.contracts import ForecastAnswer, family_schema
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
    forecast_hook,
    question_subject,
    related_block,
    search_subject,
    share_trend,
)
from foresci.tasks.models import ForecastQuestion


class ReviewTask(TypedDict):
    """What one reviewer is sent: its number, the round and the draft under review."""

    reviewer: int
    round: int
    draft: dict[str, Any]


def _reviews(context: MethodContext, draft: dict[str, Any], round_number: int) -> list[Send]:
    return [Send("review", ReviewTask(reviewer=reviewer, round=round_number, draft=draft))
            for reviewer in range(1, context.settings.reviewers + 1)]


def gather(state: MethodState, config: RunnableConfig) -> Command[Literal["draft"]]:
    """Retrieve the task's evidence."""
    context = method_context(config)
    knobs = context.settings
    papers = retrieve_for_task(context.require_tools(), context.task, knobs.papers_per_query)
    return Command(goto="draft", update={"papers": papers[: knobs.max_evidence_papers], "round": 0})


def draft(state: MethodState, config: RunnableConfig) -> Command[Literal["review", "__end__"]]:
    """The first family answer; sent to every reviewer at once (or final when no rounds are asked)."""
    context = method_context(config)
    prompt = context.prompts.render("research_agent", "draft", brief=context.brief,
                                    evidence=evidence_block(state.get("papers", [])),
                                    contract=context.contract)
    decision = decide(context, prompt)
    drafted = decision.answer.model_dump(mode="json")
    update = {"draft": drafted, **decision.update()}
    if context.settings.iterations <= 0 or context.settings.reviewers <= 0:
        return Command(goto="__end__", update={**update, **finish(context, decision.answer)})
    return Command(goto=_reviews(context, drafted, 0), update=update)


def review(state: ReviewTask, config: RunnableConfig) -> dict[str, Any]:
    """One reviewing agent's critique of the draft it was sent, against the family rubric."""
    context = method_context(config)
    draft_text = render_text(context.task, family_schema(context.task.family).model_validate(state["draft"]))
    prompt = context.prompts.render("research_agent", "review", brief=context.brief, draft=draft_text,
                                    rubric=context.prompts.family(context.task.family, "rubric"),
                                    reviewer=state["reviewer"])
    text = context.llm.invoke_text([("system", system_prompt(context)), ("user", prompt)])
    return {"reviews": [{"round": state["round"], "reviewer": state["reviewer"], "text": text}]}


def refine(state: MethodState, config: RunnableConfig) -> Command[Literal["review", "__end__"]]:
    """The draft revised from this round's reviews; another round unless done or unchanged."""
    context = method_context(config)
    knobs = context.settings
    round_number = state.get("round", 0)
    current = sorted((item for item in state.get("reviews", []) if item["round"] == round_number),
                     key=lambda item: item["reviewer"])
    reviews = "\n\n".join(f"Reviewer {item['reviewer']}: {item['text']}" for item in current)
    prompt = context.prompts.render("research_agent", "refine", brief=context.brief,
                                    evidence=evidence_block(state.get("papers", [])), reviews=reviews,
                                    contract=context.contract,
                                    draft=json.dumps(state["draft"], ensure_ascii=False))
    decision = decide(context, prompt)
    refined = decision.answer.model_dump(mode="json")
    round_done = round_number + 1
    unchanged = refined == state["draft"]
    update = {"draft": refined, "round": round_done, **decision.update()}
    if round_done < knobs.iterations and not unchanged:
        return Command(goto=_reviews(context, refined, round_done), update=update)
    if unchanged and round_done < knobs.iterations:
        stop = (f"stopped early after round {round_done} of {knobs.iterations}: the refined draft did not "
                "change, so a further round would repeat the same requests")
        update["notes"] = [*update["notes"], stop]
    return Command(goto="__end__", update={**update, **finish(context, decision.answer)})


@cache
def research_agent_graph() -> Any:
    """Graph: START -> gather -> draft -> review x reviewers (parallel) -> refine -> (review | END)."""
    graph = StateGraph(MethodState)
    graph.add_node("gather", gather)
    graph.add_node("draft", draft)
    graph.add_node("review", review, input_schema=ReviewTask)
    graph.add_node("refine", refine)
    graph.add_edge(START, "gather")
    graph.add_edge("review", "refine")
    return graph.compile()


@method("research_agent", needs_kb=True, uses_llm=True,
        prompts={"draft": {"brief", "evidence", "contract"},
                 "review": {"brief", "draft", "rubric", "reviewer"},
                 "refine": {"brief", "evidence", "draft", "reviews", "contract"}})
def research_agent(inputs: MethodInput) -> MethodResult:
    """The research_agent graph on one task."""
    return run_llm_method(research_agent_graph, inputs)


def research_agent_forecast(question: ForecastQuestion, llm: LLMClient, tools: KBTools | None,
                            settings: AgentSettings) -> ForecastAnswer:
    """ResearchAgent: a draft from papers and the share trend, then a calibration review (two calls)."""
    evidence = NO_LITERATURE
    if tools is not None:
        subject = question_subject(question)
        evidence = (related_block(search_subject(tools, subject)) + "\n\n"
                    + share_trend(tools, subject, settings.trend_months))
    draft = ask(question, llm, evidence)
    answer = answer_reply(question, ask(question, llm, evidence, draft=draft), tools)
    answer.notes.append(f"draft before review: {draft.model_dump(exclude={'rationale'})}")
    return answer


research_agent.forecaster(forecast_hook("research_agent", research_agent_forecast))
