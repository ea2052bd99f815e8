"""The answering methods: six LangGraph graphs (LLM) and two non-LLM forecasters."""

from __future__ import annotations

LLM_METHODS: tuple[str, ...] = ("native", "hybrid_rag", "coi", "research_agent", "aris", "react")
BASELINE_METHODS: tuple[str, ...] = ("trend", "persistence")
ALL_METHODS: tuple[str, ...] = LLM_METHODS + BASELINE_METHODS
