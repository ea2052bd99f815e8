"""The model <-> KB-tool loop the react method runs: execute one turn's tool calls, or a whole loop.

:func:`run_tool_calls` executes the tool calls of one model turn against a task's LangChain KB tools
(an unknown tool name is answered with an error message, not raised). :func:`search_with_tools` runs the
whole loop for callers outside a graph (the react forecaster): the model calls tools until it replies
without a call, the tool budget is spent or ``max_steps`` turns are used.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import BaseTool

from foresci.agents.langchain_tools import kb_langchain_tools
from foresci.agents.tools import KBTools
from foresci.kb.models import Paper
from foresci.llm import LLMClient


def run_tool_calls(tools: Sequence[BaseTool], message: AIMessage) -> tuple[list[ToolMessage], list[Paper]]:
    """The tool results of ``message``'s calls, in call order, and the papers they returned."""
    by_name = {tool.name: tool for tool in tools}
    results: list[ToolMessage] = []
    papers: list[Paper] = []
    for call in message.tool_calls:
        tool = by_name.get(call["name"])
        if tool is None:
            results.append(ToolMessage(content=f"unknown tool {call['name']!r}; the tools are "
                                               f"{', '.join(sorted(by_name))}",
                                       tool_call_id=call["id"] or "", status="error"))
            continue
        result = tool.invoke({**call, "type": "tool_call"})
        results.append(result)
        papers.extend(result.artifact or [])
    return results, papers


def stop_reason(kb: KBTools, steps: int, max_steps: int) -> str | None:
    """Why the loop must stop after ``steps`` turns (budget spent, turn limit), or None to go on."""
    if kb.calls_left <= 0:
        return f"the tool budget of {kb.budget} calls is spent"
    if steps >= max_steps:
        return f"the turn limit of {max_steps} is reached"
    return None


@dataclass
class LoopResult:
    """What a tool loop found: papers (first-seen order), the model's own words, how it stopped."""

    papers: list[Paper] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)
    turns: int = 0
    stop: str = ""


def search_with_tools(llm: LLMClient, kb: KBTools, opening: Sequence[Any], max_steps: int) -> LoopResult:
    """Let the model search with the KB tools from the ``opening`` messages until it stops or a budget
    does (``max_steps`` model turns, the KB tools' call budget)."""
    tools = kb_langchain_tools(kb)
    messages = list(opening)
    result = LoopResult()
    seen: set[str] = set()
    while True:
        reply = llm.invoke_with_tools(messages, tools)
        result.turns += 1
        if reply.text.strip():
            result.findings.append(reply.text)
        if not reply.tool_calls:
            result.stop = f"the model stopped searching after {result.turns} turn(s)"
            return result
        if kb.calls_left <= 0:
            result.stop = f"the tool budget of {kb.budget} calls is spent"
            return result
        answers, papers = run_tool_calls(tools, reply)
        messages += [reply, *answers]
        for paper in papers:
            if paper.paper_id not in seen:
                seen.add(paper.paper_id)
                result.papers.append(paper)
        if (why := stop_reason(kb, result.turns, max_steps)) is not None:
            result.stop = why
            return result
