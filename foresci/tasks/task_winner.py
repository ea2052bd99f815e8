"""The taxonomy node a task's keyed winner stands for: read by the builders' cap on how often one node wins
and by the release checks. Imports nothing of foresci.tasks, so the builders can use it."""

from __future__ import annotations

from typing import Any


def winner_node(task: Any, hidden: Any) -> str | None:
    """The taxonomy node of a task's keyed winner (direction and planning), None elsewhere."""
    ranking = list(getattr(hidden, "ranking", []) or [])
    node_ids = hidden.stats.get("node_ids")
    if not ranking or not isinstance(node_ids, dict):
        return None
    value = node_ids.get(ranking[0])
    return str(value) if value is not None else None
