"""Retrieval steps shared by the grounded methods: task queries through the KB tools, within budget."""

from __future__ import annotations

from foresci.agents.briefs import task_queries
from foresci.agents.tools import KBTools
from foresci.kb.models import Paper
from foresci.tasks.models import Task


def retrieve_for_queries(tools: KBTools, queries: list[str], k: int, keep_calls: int = 0) -> list[Paper]:
    """Search each query (best first) while more than ``keep_calls`` tool calls remain; merge results
    round-robin so every query contributes its best papers first."""
    per_query: list[list[Paper]] = []
    for query in queries:
        if tools.calls_left <= keep_calls:
            break
        per_query.append(tools.search(query, k=k))
    merged: dict[str, Paper] = {}
    for rank in range(max((len(papers) for papers in per_query), default=0)):
        for papers in per_query:
            if rank < len(papers):
                merged.setdefault(papers[rank].paper_id, papers[rank])
    return list(merged.values())


def retrieve_for_task(tools: KBTools, task: Task, k: int, keep_calls: int = 0) -> list[Paper]:
    """Search the task's own queries (title, each candidate) and merge the hits."""
    return retrieve_for_queries(tools, task_queries(task), k, keep_calls)
