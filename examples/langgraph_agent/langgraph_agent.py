"""A LangGraph ReAct agent as a foresci plug-in: ``create_react_agent`` over the backbone foresci relays
(``inputs.llm.chat``) and the task's KB tools (``inputs.tools.as_langchain()``: ``search_papers``,
``get_paper``, ``related_papers``, ``timeline``, bound to the task's cutoff and tool budget). It runs in
foresci's sandbox; every model call and tool call is on the row's transcript and counted on the row.

    foresci run RELEASE --kb KB --model MODEL \\
        --method examples/langgraph_agent/langgraph_agent.py:react_graph --out runs/langgraph
"""

from __future__ import annotations

import re
from typing import Any

from langgraph.prebuilt import create_react_agent

from foresci.methods import method

PAPER_ID = re.compile(r"\b(\d{4}\.\d{4,5})\b")
MAX_STEPS = 12


def _prompt(task: Any) -> str:
    options = "\n".join(f"- {candidate.option_id}: {candidate.name}" for candidate in task.candidates)
    return (f"{task.title}\nQuestion (as of {task.cutoff}): {task.question}\nOptions:\n{options}\n"
            "Use the tools to read the papers, then write your findings, citing paper ids in brackets.")


def _answer(task: Any, findings: str) -> dict[str, Any]:
    """The family answer built from the agent's findings: options ranked by when the findings name them."""
    options = [candidate.option_id for candidate in task.candidates]
    named = sorted(options, key=lambda option: (findings.find(option) < 0, findings.find(option)))
    if task.family == "direction_forecasting":
        return {"direction": named[0], "trajectory": "steady", "rationale": findings[:2000] or "no findings"}
    if task.family == "bottleneck_opportunity":
        return {"bottleneck": "see findings", "opportunity": "see findings",
                "mechanism": findings[:2000] or "no findings"}
    return {"ranking": [{"option_id": option, "reason": findings[:200]} for option in named]}


@method("langgraph_react", needs_kb=True, uses_llm=True)
def react_graph(inputs: Any) -> dict[str, Any]:
    """Answer one task with a LangGraph ReAct agent over the KB tools."""
    tools = inputs.tools.as_langchain() if inputs.tools is not None else []
    agent = create_react_agent(inputs.llm.chat, tools)
    state = agent.invoke({"messages": [("user", _prompt(inputs.task))]},
                         config={"recursion_limit": MAX_STEPS})
    findings = str(state["messages"][-1].content)
    return _answer(inputs.task, findings)
