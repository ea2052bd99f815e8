"""The error a KB tool call raises past the task's tool budget (its own module so that the tools'
adapters, :mod:`foresci.agents.langchain_tools`, need not import the tools they adapt)."""

from __future__ import annotations


class ToolBudgetExceeded(RuntimeError):
    """A method asked for more tool calls than ``settings.agents.tool_budget`` allows."""
