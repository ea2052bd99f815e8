"""The four KB tools as inspect tools, bound to each sample's cutoff, and the setup solver that binds them.

:func:`inspect_kb_tools` wraps one task's :class:`~foresci.agents.tools.KBTools` (a KB view at the task's
cutoff) as ``search_papers``, ``get_paper``, ``related_papers`` and ``timeline``: the same names,
descriptions, argument checks and fenced paper lines as the LangChain tools of
:mod:`foresci.agents.langchain_tools`, the same budget (a call over budget, or with bad arguments, comes
back to the model as a tool error), and every paper checked again against the cutoff. After each call the
task's support artifact (queries, retrieved papers with their dates, tool calls) is written to the
sample's store under :data:`SUPPORT_KEY`, so it is in the eval log and becomes the answer row's support.

:func:`bind_kb_tools` is the task's setup solver: it runs before any solver or agent and puts the tools
of the sample's own cutoff in ``state.tools``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import Tool, ToolDef, ToolError
from inspect_ai.util import store
from langchain_core.tools import StructuredTool, ToolException
from pydantic import ValidationError

from foresci.agents.langchain_tools import kb_langchain_tools
from foresci.agents.tools import KBTools, KBViewLike
from foresci.bridges.inspect_ai.dataset import sample_task
from foresci.bridges.inspect_ai.questions import sample_question

SUPPORT_KEY = "foresci_support"


def _parameters(tool: StructuredTool) -> dict[str, str]:
    schema = tool.args_schema
    fields = getattr(schema, "model_fields", {})
    return {name: field.description or name for name, field in fields.items()}


def inspect_kb_tools(tools: KBTools) -> list[Tool]:
    """``tools`` (one task's KB tools) as inspect tools; each call's support is saved in the sample store."""
    by_name = {item.name: item for item in kb_langchain_tools(tools)}

    def call(name: str, **arguments: Any) -> str:
        wrapped = by_name[name]
        given = {key: value for key, value in arguments.items() if value is not None}
        try:
            checked = wrapped.args_schema.model_validate(given)  # type: ignore[union-attr]
            text, _ = wrapped.func(**checked.model_dump(exclude_none=True))  # type: ignore[misc]
        except ValidationError as error:
            raise ToolError(f"{name}: {error.errors()[0].get('msg', 'invalid arguments')}") from error
        except ToolException as error:
            raise ToolError(str(error)) from error
        finally:
            store().set(SUPPORT_KEY, tools.artifact.model_dump(mode="json"))
        return str(text)

    async def search_papers(query: str, k: int | None = None) -> str:
        return call("search_papers", query=query, k=k)

    async def get_paper(paper_id: str) -> str:
        return call("get_paper", paper_id=paper_id)

    async def related_papers(paper_id: str, k: int | None = None) -> str:
        return call("related_papers", paper_id=paper_id, k=k)

    async def timeline(query: str) -> str:
        return call("timeline", query=query)

    functions: list[Callable[..., Any]] = [search_papers, get_paper, related_papers, timeline]
    return [
        ToolDef(function, name=function.__name__, description=by_name[function.__name__].description,
                parameters=_parameters(by_name[function.__name__])).as_tool()
        for function in functions
    ]


class CutoffViews:
    """KB views by cutoff over one KB folder, opened on first use (one view per cutoff, shared)."""

    def __init__(self, kb_dir: Path, settings: Any) -> None:
        self.kb_dir = Path(kb_dir)
        self.settings = settings
        self._kb: Any = None
        self._views: dict[date, KBViewLike] = {}
        self._lock = threading.Lock()

    def view(self, cutoff: date) -> KBViewLike:
        """The KB seen at ``cutoff`` (it cannot return a paper announced after it)."""
        from foresci.kb.retrieve import KBView
        from foresci.kb.store import KnowledgeBase

        with self._lock:
            if self._kb is None:
                self._kb = KnowledgeBase.open(self.kb_dir, self.settings)
            if cutoff not in self._views:
                self._views[cutoff] = KBView(self._kb, cutoff)
            return self._views[cutoff]


@solver
def bind_kb_tools(kb: str) -> Solver:
    """Setup solver: the sample's KB tools (at its task's or question's cutoff, domain and tool budget) in
    ``state.tools``. ``kb``: the KB folder (``foresci kb build``)."""
    from foresci.core.settings import Settings

    settings = Settings()
    views = CutoffViews(Path(kb), settings)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        question = sample_question(state.metadata)
        asked = question if question is not None else sample_task(state.metadata)
        tools = KBTools(views.view(asked.cutoff), asked.domain, settings.agents.tool_budget,
                        settings.agents.papers_per_query)
        store().set(SUPPORT_KEY, tools.artifact.model_dump(mode="json"))
        state.tools = inspect_kb_tools(tools)
        return state

    return solve
