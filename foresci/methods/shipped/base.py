"""What every LLM method shares: its context, the graph state, the decide step, the brief-only graph (the
native method, and every method's name-only mode) and running a graph on one task."""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, Literal, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.graph import START, StateGraph
from langgraph.types import Command
from pydantic import BaseModel

from foresci.agents.briefs import Mode, candidate_ids, task_brief
from foresci.agents.config import AgentSettings
from foresci.agents.evidence_links import link_evidence
from foresci.agents.prompts import PromptBook
from foresci.agents.render import check_contract, render_text
from foresci.agents.tools import KBTools
from foresci.contracts import ContractStatus, Evidence, family_schema
from foresci.kb.models import Paper
from foresci.llm import LLMClient
from foresci.methods.registry import MethodInput, MethodResult
from foresci.methods.shipped.prompts import prompt_book
from foresci.tasks.families import get_family
from foresci.tasks.models import Task


@dataclass
class MethodContext:
    """Everything one method run on one task may use (and nothing else)."""

    task: Task
    mode: Mode
    llm: LLMClient
    tools: KBTools | None
    prompts: PromptBook
    settings: AgentSettings

    @property
    def brief(self) -> str:
        """The task as the model reads it."""
        return task_brief(self.task, self.mode)

    @property
    def contract(self) -> str:
        """The family's answer contract."""
        return self.prompts.family(self.task.family, "contract")

    def require_tools(self) -> KBTools:
        """The KB tools; an error when the method runs without a KB (name-only or native)."""
        if self.tools is None:
            raise RuntimeError(f"task {self.task.task_id}: this method needs KB tools, but none were given")
        return self.tools


def run_config(context: MethodContext) -> dict[str, Any]:
    """The ``RunnableConfig`` that hands a compiled method graph one task's context."""
    return {"configurable": {"context": context}}


def method_context(config: RunnableConfig) -> MethodContext:
    """The task context a graph was invoked with (see :func:`run_config`)."""
    context = (config.get("configurable") or {}).get("context")
    if not isinstance(context, MethodContext):
        raise RuntimeError("a method graph needs its task context: invoke it with config=run_config(context)")
    return context


def merge_papers(left: list[Paper], right: list[Paper]) -> list[Paper]:
    """State reducer: papers in first-seen order without duplicates."""
    merged = {paper.paper_id: paper for paper in left}
    for paper in right:
        merged.setdefault(paper.paper_id, paper)
    return list(merged.values())


class MethodState(TypedDict, total=False):
    """The state a method graph passes between its nodes."""

    papers: Annotated[list[Paper], merge_papers]
    notes: Annotated[list[str], operator.add]
    queries: list[str]
    anchors: list[str]
    signals: str
    chains: str
    trend_reading: str
    claims: list[Evidence]
    draft: dict[str, Any]
    reviews: Annotated[list[dict[str, Any]], operator.add]
    round: int
    answer: dict[str, Any]
    contract: dict[str, Any]


def system_prompt(context: MethodContext) -> str:
    """The system message: the analyst's role at the task cutoff (never the wall clock)."""
    return context.prompts.render("common", "system", cutoff=context.task.cutoff.isoformat())


@dataclass
class Decision:
    """The family answer of a decide step and how it met the task contract."""

    answer: BaseModel
    contract: ContractStatus
    notes: list[str]

    def update(self) -> dict[str, Any]:
        """The graph-state update that records the contract outcome (the last decision wins)."""
        return {"notes": self.notes, "contract": {"status": self.contract, "notes": self.notes}}


def _fix_instruction(options: list[str]) -> str:
    if not options:
        return "Answer again with every field of the answer stated."
    return f"The only valid option ids are: {', '.join(options)}. Answer again, using only these ids."


def decide(context: MethodContext, user_prompt: str) -> Decision:
    """Ask for the family answer (option ids as a schema enum); if it breaks the task contract, ask once
    more naming the problems and the valid ids. What still breaks it is recorded, never repaired."""
    schema = get_family(context.task.family).constrained_schema(candidate_ids(context.task))
    messages = [("system", system_prompt(context)), ("user", user_prompt)]
    check = check_contract(context.task, context.llm.invoke_structured(messages, schema))
    if not check.problems:
        return Decision(check.answer, "ok", check.notes)
    first = check
    fix = context.prompts.render(
        "common",
        "contract_fix",
        problems="; ".join(first.problems),
        candidates=_fix_instruction(candidate_ids(context.task)),
    )
    messages += [("assistant", first.answer.model_dump_json()), ("user", fix)]
    check = check_contract(context.task, context.llm.invoke_structured(messages, schema))
    notes = [f"contract-fix re-ask after: {'; '.join(first.problems)}", *check.notes]
    if check.problems:
        return Decision(check.answer, "invalid", [*notes, *(f"still breaks the contract: {problem}"
                                                            for problem in check.problems)])
    return Decision(check.answer, "repaired", notes)


def finish(context: MethodContext, answer: BaseModel) -> dict[str, Any]:
    """Final state update of a graph: the payload plus evidence links into the support artifact."""
    if context.tools is not None:
        known = {item.paper_id for item in context.tools.artifact.retrieved}
        context.tools.artifact.evidence.extend(link_evidence(render_text(context.task, answer), known))
    return {"answer": answer.model_dump(mode="json")}


def answer_from_brief(state: MethodState, config: RunnableConfig) -> Command[Literal["__end__"]]:
    """The one decide step of the brief-only graph (the ``native`` prompt file)."""
    context = method_context(config)
    prompt = context.prompts.render("native", "answer", brief=context.brief, contract=context.contract)
    decision = decide(context, prompt)
    return Command(goto="__end__", update={**finish(context, decision.answer), **decision.update()})


@cache
def native_graph() -> Any:
    """The brief-only graph: START -> answer -> END (one model call, no tools), compiled on first use. The
    native method is this graph; every method answers with it in name-only mode."""
    graph = StateGraph(MethodState)
    graph.add_node("answer", answer_from_brief)
    graph.add_edge(START, "answer")
    return graph.compile()


CompiledGraph = Callable[[], Any]


def run_llm_method(graph: CompiledGraph, inputs: MethodInput) -> MethodResult:
    """Answer one task with the compiled ``graph()`` (the native graph in name-only mode), the task in its
    config (:func:`run_config`): the family answer, the KB tools' support artifact with the graph's notes,
    and the contract outcome."""
    if inputs.llm is None or inputs.settings is None:
        raise ValueError("LLM methods need an LLM endpoint (FORESCI_LLM__BASE_URL)")
    tools = inputs.tools
    if tools is not None and not isinstance(tools, KBTools):
        raise TypeError(f"shipped methods read the KB through KBTools, got {type(tools).__name__}")
    context = MethodContext(task=inputs.task, mode=inputs.mode, llm=inputs.llm, tools=tools,
                            prompts=prompt_book(), settings=inputs.settings.agents)
    compiled = (native_graph if inputs.mode == "name_only" else graph)()
    state = compiled.invoke({}, config=run_config(context))
    answer = family_schema(inputs.task.family).model_validate(state["answer"])
    support = tools.artifact if tools is not None else None
    if support is not None:
        support.notes.extend(state.get("notes", []))
    outcome = state.get("contract") or {}
    return MethodResult(answer=answer, support=support, contract=outcome.get("status", "ok"),
                        contract_notes=list(outcome.get("notes", [])))
