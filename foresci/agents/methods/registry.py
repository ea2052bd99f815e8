"""Method name -> graph builder (graphs are built per task, never at import)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from foresci.agents.methods.aris import build_aris
from foresci.agents.methods.base import MethodContext
from foresci.agents.methods.coi import build_coi
from foresci.agents.methods.hybrid_rag import build_hybrid_rag
from foresci.agents.methods.native import build_native
from foresci.agents.methods.research_agent import build_research_agent

GRAPH_BUILDERS: dict[str, Callable[[MethodContext], Any]] = {
    "native": build_native,
    "hybrid_rag": build_hybrid_rag,
    "coi": build_coi,
    "research_agent": build_research_agent,
    "aris": build_aris,
}


def build_graph(method: str, context: MethodContext) -> Any:
    """The compiled graph of ``method`` for one task; name-only mode always uses the native graph."""
    if method not in GRAPH_BUILDERS:
        raise ValueError(f"unknown LLM method {method!r}; expected one of {sorted(GRAPH_BUILDERS)}")
    if context.mode == "name_only":
        return build_native(context)
    return GRAPH_BUILDERS[method](context)
