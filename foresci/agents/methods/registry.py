"""Method name -> compiled graph (each compiled once, on first use, never at import).

A graph is invoked per task with ``config=run_config(context)``; name-only mode always uses the native
graph.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from foresci.agents.briefs import Mode
from foresci.agents.methods.aris import aris_graph
from foresci.agents.methods.coi import coi_graph
from foresci.agents.methods.hybrid_rag import hybrid_rag_graph
from foresci.agents.methods.native import native_graph
from foresci.agents.methods.react import react_graph
from foresci.agents.methods.research_agent import research_agent_graph

GRAPHS: dict[str, Callable[[], Any]] = {
    "native": native_graph,
    "hybrid_rag": hybrid_rag_graph,
    "coi": coi_graph,
    "research_agent": research_agent_graph,
    "aris": aris_graph,
    "react": react_graph,
}


def build_graph(method: str, mode: Mode = "full") -> Any:
    """The compiled graph of ``method``; name-only mode always uses the native graph."""
    if method not in GRAPHS:
        raise ValueError(f"unknown LLM method {method!r}; expected one of {sorted(GRAPHS)}")
    if mode == "name_only":
        return native_graph()
    return GRAPHS[method]()
