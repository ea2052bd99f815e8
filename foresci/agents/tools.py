"""Tools over a cutoff-bounded KB view: search, get paper, timeline counts, related papers.

Every call is logged into the task's :class:`SupportArtifact` (tool, arguments, result ids; retrieved
papers with their dates), recorded in the open transcript (a ``tool_call`` event with the ids and dates
returned, or the reason it was refused) and counted against a per-task budget. Tools are named as the
model sees them (:mod:`foresci.agents.langchain_tools`): ``search_papers``, ``get_paper``,
``related_papers``, ``timeline``. The view is the only door to the KB;
as a second lock every result is checked again against the view's cutoff, so even a faulty view cannot
hand a post-cutoff paper to an agent.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import date
from functools import wraps
from typing import Any, Protocol, TypeVar

from foresci.agents.tool_budget import ToolBudgetExceeded as ToolBudgetExceeded  # its home before
from foresci.contracts import RetrievedItem, SupportArtifact, ToolCall
from foresci.core.transcripts import record
from foresci.kb.models import Paper, SearchHit


class KBViewLike(Protocol):
    """What agents need from ``foresci.kb.retrieve.KBView`` (a KB seen at one cutoff)."""

    @property
    def cutoff(self) -> date: ...

    def search(self, query: str, k: int = 10, domain: str | None = None) -> list[SearchHit]: ...

    def get(self, paper_id: str) -> Paper | None: ...

    def papers(self, domain: str | None = None,
               statuses: tuple[str, ...] = ("core", "support")) -> list[Paper]: ...

    def monthly_counts(self, domain: str | None = None) -> dict[str, int]: ...

    def embeddings(self, paper_ids: Any) -> Any: ...


def month_of(day: date) -> str:
    """'YYYY-MM' of a date."""
    return f"{day.year:04d}-{day.month:02d}"


ToolT = TypeVar("ToolT", bound=Callable[..., Any])


def serialised(method: ToolT) -> ToolT:
    """One tool call at a time per task: agents may run tool calls in parallel (LangGraph's ToolNode),
    and the budget check, the log and the view must see them one by one."""

    @wraps(method)
    def locked(self: KBTools, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)

    return locked  # type: ignore[return-value]


class KBTools:
    """The tools one task's method may call, with logging into ``artifact`` and a call budget."""

    def __init__(self, view: KBViewLike, domain: str | None, budget: int, papers_per_query: int = 8) -> None:
        self.view = view
        self.domain = domain
        self.budget = budget
        self.papers_per_query = papers_per_query
        self.artifact = SupportArtifact()
        self._seen: set[str] = set()
        self._lock = threading.RLock()

    @property
    def calls_left(self) -> int:
        """Tool calls still allowed for this task."""
        return self.budget - len(self.artifact.tool_calls)

    def as_langchain(self) -> list[Any]:
        """These tools as LangChain tools (:func:`foresci.agents.langchain_tools.kb_langchain_tools`)."""
        from foresci.agents.langchain_tools import kb_langchain_tools

        return kb_langchain_tools(self)

    def _spend(self, tool: str, arguments: dict[str, Any]) -> None:
        if self.calls_left <= 0:
            reason = f"tool budget of {self.budget} calls exhausted (asked {tool} {arguments})"
            record("tool_call", tool=tool, arguments=arguments, result_ids=[], result_dates=[],
                   refused=reason)
            raise ToolBudgetExceeded(reason)

    def _safe(self, paper: Paper | None) -> Paper | None:
        """The paper as known at the cutoff, or None when it was announced after it."""
        if paper is None or paper.announced > self.view.cutoff:
            return None
        return paper.as_of(self.view.cutoff)

    def _log(self, tool: str, arguments: dict[str, Any], papers: Sequence[tuple[Paper, float | None]],
             query: str | None = None, retrieved: bool = True) -> None:
        """Log a call; its papers join the retrieved items unless they were only counted (timeline)."""
        result_ids = [paper.paper_id for paper, _ in papers]
        self.artifact.tool_calls.append(ToolCall(tool=tool, arguments=arguments, result_ids=result_ids))
        record("tool_call", tool=tool, arguments=arguments, result_ids=result_ids,
               result_dates=[paper.announced.isoformat() for paper, _ in papers])
        for paper, score in papers if retrieved else []:
            if paper.paper_id in self._seen:
                continue
            self._seen.add(paper.paper_id)
            self.artifact.retrieved.append(RetrievedItem(paper_id=paper.paper_id, title=paper.title,
                                                         announced=paper.announced, score=score, query=query))

    @serialised
    def search(self, query: str, k: int | None = None) -> list[Paper]:
        """Papers (on or before the cutoff) most relevant to ``query``, best first."""
        k = k or self.papers_per_query
        arguments = {"query": query, "k": k, "domain": self.domain}
        self._spend("search_papers", arguments)
        hits = self.view.search(query, k=k, domain=self.domain)
        kept = [(paper, hit.score) for hit in hits if (paper := self._safe(hit.paper)) is not None]
        if query not in self.artifact.queries:
            self.artifact.queries.append(query)
        self._log("search_papers", arguments, kept, query=query)
        return [paper for paper, _ in kept]

    @serialised
    def get_paper(self, paper_id: str) -> Paper | None:
        """One paper by id, or None when absent or announced after the cutoff."""
        arguments = {"paper_id": paper_id}
        self._spend("get_paper", arguments)
        paper = self._safe(self.view.get(paper_id))
        self._log("get_paper", arguments, [(paper, None)] if paper else [])
        return paper

    @serialised
    def related_papers(self, paper_id: str, k: int | None = None) -> list[Paper]:
        """Papers close to ``paper_id`` (searched by its title), excluding itself, oldest first."""
        k = k or self.papers_per_query
        arguments = {"paper_id": paper_id, "k": k}
        self._spend("related_papers", arguments)
        anchor = self._safe(self.view.get(paper_id))
        if anchor is None:
            self._log("related_papers", arguments, [])
            return []
        hits = self.view.search(anchor.title, k=k + 1, domain=self.domain)
        kept = [(paper, hit.score) for hit in hits
                if (paper := self._safe(hit.paper)) is not None and paper.paper_id != paper_id][:k]
        kept.sort(key=lambda item: (item[0].announced, item[0].paper_id))
        self._log("related_papers", arguments, kept, query=anchor.title)
        return [paper for paper, _ in kept]

    @serialised
    def timeline(self, query: str, k: int = 60) -> dict[str, Any]:
        """Monthly counts of the top-``k`` papers matching ``query``, beside the domain's monthly totals.

        Returns ``{"matched": {month: n}, "total": {month: n}, "share": {month: matched/total}}``;
        shares are normalised by the domain's papers that month (said in the result).
        """
        arguments = {"query": query, "k": k, "domain": self.domain}
        self._spend("timeline", arguments)
        hits = self.view.search(query, k=k, domain=self.domain)
        papers = [paper for hit in hits if (paper := self._safe(hit.paper)) is not None]
        matched = Counter(month_of(paper.announced) for paper in papers)
        totals = {month: count for month, count in self.view.monthly_counts(self.domain).items()
                  if month <= month_of(self.view.cutoff)}
        share = {month: round(matched.get(month, 0) / total, 4)
                 for month, total in sorted(totals.items()) if total}
        self._log("timeline", arguments, [(paper, None) for paper in papers], query=query, retrieved=False)
        return {"matched": dict(sorted(matched.items())), "total": dict(sorted(totals.items())),
                "share": share,
                "normalised_by": f"papers of domain {self.domain or 'all'} per month"}
