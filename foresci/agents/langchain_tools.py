"""The KB tools of one task as LangChain ``StructuredTool`` objects, for any LangGraph graph or agent.

:func:`kb_langchain_tools` wraps a task's :class:`~foresci.agents.tools.KBTools` (bound to the task's
cutoff view) as ``search_papers``, ``get_paper``, ``related_papers`` and ``timeline``, each with a
pydantic argument schema. What the wrapped tools guarantee carries over unchanged: every call counts
against the task's tool budget, is logged into its support artifact and recorded in the open transcript
(``tool_call`` event with the arguments and the ids and dates returned), and every paper returned is
checked again against the cutoff. A call over budget, or with bad arguments, comes back to the model as
an error message instead of raising, so a model loop can go on to its answer.

The tool's text content is what the model reads: one line per paper (``[id] (date) title — excerpt``),
fenced as data (:mod:`foresci.core.fencing`); the papers themselves ride along as the ``ToolMessage``'s
artifact. Example::

    tools = kb_langchain_tools(KBTools(view, "llm_agents", budget=12))
    agent = create_react_agent(chat_model, tools)   # langgraph.prebuilt

    # in a plug-in: the same four tools over its inputs.tools
    agent = create_react_agent(inputs.llm.chat, inputs.tools.as_langchain())
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.tools import StructuredTool, ToolException
from pydantic import BaseModel, ConfigDict, Field

from foresci.agents.briefs import evidence_block
from foresci.agents.tool_budget import ToolBudgetExceeded
from foresci.core.fencing import fence
from foresci.kb.models import Paper

TOOL_NAMES: tuple[str, ...] = ("search_papers", "get_paper", "related_papers", "timeline")
MAX_K = 20


class SearchPapersArgs(BaseModel):
    """Arguments of ``search_papers``."""

    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, description="keywords to search the pre-cutoff papers for")
    k: int | None = Field(default=None, ge=1, le=MAX_K, description="papers to return (default: the task's)")


class GetPaperArgs(BaseModel):
    """Arguments of ``get_paper``."""

    model_config = ConfigDict(extra="forbid")

    paper_id: str = Field(min_length=1, description="arXiv id of the paper, e.g. 2503.01234")


class RelatedPapersArgs(BaseModel):
    """Arguments of ``related_papers``."""

    model_config = ConfigDict(extra="forbid")

    paper_id: str = Field(min_length=1, description="arXiv id of the paper to find related work for")
    k: int | None = Field(default=None, ge=1, le=MAX_K, description="papers to return (default: the task's)")


class TimelineArgs(BaseModel):
    """Arguments of ``timeline``."""

    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, description="a direction or topic to count papers for, month by month")


def papers_text(name: str, papers: Sequence[Paper], excerpt_chars: int = 280) -> str:
    """What the model reads of a paper list: evidence lines fenced as data."""
    return fence(name, evidence_block(papers, excerpt_chars=excerpt_chars))


def _guarded(run: Callable[..., tuple[str, list[Paper]]]) -> Callable[..., tuple[str, list[Paper]]]:
    """``run`` with a refused call (budget spent) turned into a ``ToolException`` the model reads."""

    def call(**arguments: Any) -> tuple[str, list[Paper]]:
        try:
            return run(**arguments)
        except ToolBudgetExceeded as error:
            raise ToolException(f"{error}. Stop calling tools and give your findings now.") from error

    return call


def _cutoff_of(tools: Any) -> str:
    """The cutoff of ``tools``: foresci's KBTools (its view's), or a plug-in's tools facade (its own)."""
    cutoff = getattr(tools, "cutoff", None)
    if cutoff is None:
        cutoff = tools.view.cutoff
    return str(cutoff.isoformat())


def kb_langchain_tools(tools: Any) -> list[StructuredTool]:
    """``search_papers``, ``get_paper``, ``related_papers`` and ``timeline`` over ``tools`` (one task):
    foresci's :class:`KBTools`, or the ``inputs.tools`` a plug-in gets (in its sandbox, behind the wall)
    whose calls foresci answers at the task's cutoff and budget (``inputs.tools.as_langchain()``)."""
    cutoff = _cutoff_of(tools)

    def search_papers(query: str, k: int | None = None) -> tuple[str, list[Paper]]:
        papers = tools.search(query, k=k)
        return papers_text("search_papers", papers), papers

    def get_paper(paper_id: str) -> tuple[str, list[Paper]]:
        paper = tools.get_paper(paper_id)
        if paper is None:
            return f"no paper {paper_id} on or before {cutoff}", []
        details = "\n".join([evidence_block([paper], excerpt_chars=2000),
                             *(f"limitation: {text}" for text in paper.limitations),
                             *(f"future work: {text}" for text in paper.future_work)])
        return fence("get_paper", details), [paper]

    def related_papers(paper_id: str, k: int | None = None) -> tuple[str, list[Paper]]:
        papers = tools.related_papers(paper_id, k=k)
        return papers_text("related_papers", papers), papers

    def timeline(query: str) -> tuple[str, list[Paper]]:
        counts = tools.timeline(query)
        return fence("timeline", json.dumps(counts, ensure_ascii=False)), []

    specs: list[tuple[str, Callable[..., tuple[str, list[Paper]]], type[BaseModel], str]] = [
        ("search_papers", search_papers, SearchPapersArgs,
         f"Search papers announced on or before {cutoff} (hybrid sparse + dense retrieval); returns "
         "'[id] (date) title — abstract excerpt' lines, best match first."),
        ("get_paper", get_paper, GetPaperArgs,
         f"One paper by arXiv id (only if announced on or before {cutoff}): abstract, limitations, "
         "future work."),
        ("related_papers", related_papers, RelatedPapersArgs,
         f"Papers related to a given paper (announced on or before {cutoff}), oldest first: follow how "
         "an idea developed."),
        ("timeline", timeline, TimelineArgs,
         f"Monthly counts up to {cutoff} of papers matching a topic, beside the domain's monthly totals "
         "and the resulting share: read whether a direction grows or cools."),
    ]
    return [
        StructuredTool.from_function(
            func=_guarded(run), name=name, description=description, args_schema=schema,
            response_format="content_and_artifact", handle_tool_error=True, handle_validation_error=True,
        )
        for name, run, schema, description in specs
    ]
