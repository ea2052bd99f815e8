"""Optional LLM screen: the builder LLM re-judges borderline ('support') papers of each domain.

Enabled with ``settings.kb.llm_screen`` when an LLM endpoint is configured. Only the first
``settings.kb.llm_screen_max`` borderline papers per domain (announcement order) are sent, so the
cost is bounded; every answer is cached by the LLM client, so a rebuild makes no new calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from foresci.core.settings import Settings
from foresci.kb.domains import DomainSpec
from foresci.kb.models import Paper, ScreenDecision

SYSTEM_PROMPT = (
    "You screen research papers for a literature knowledge base. Domain: {name}. {description}\n"
    "Answer 'core' if the paper's main contribution belongs to the domain, 'support' if it is related "
    "(uses, evaluates or enables work in the domain) but its focus is elsewhere, and 'excluded' otherwise. "
    "Give a one-sentence reason."
)


class LLMScreenVerdict(BaseModel):
    """The builder LLM's verdict on one paper for one domain."""

    model_config = ConfigDict(extra="forbid")

    status: Literal["core", "support", "excluded"] = Field(description="screen status")
    reason: str = Field(description="one sentence")


def _one_line(text: str, limit: int = 300) -> str:
    return " ".join(text.split())[:limit]


def llm_rescreen(
    decisions: Sequence[ScreenDecision],
    papers: Sequence[Paper],
    domains: Sequence[DomainSpec],
    settings: Settings,
    client: object | None = None,
) -> list[ScreenDecision]:
    """Return ``decisions`` with borderline ones replaced by the builder LLM's verdicts."""
    from foresci.llm import LLMClient

    llm = client if client is not None else LLMClient(settings, "builder")
    by_id = {paper.paper_id: paper for paper in papers}
    specs = {spec.slug: spec for spec in domains}
    budget = {spec.slug: settings.kb.llm_screen_max for spec in domains}
    result = []
    for decision in decisions:
        if decision.status != "support" or budget.get(decision.domain, 0) <= 0:
            result.append(decision)
            continue
        budget[decision.domain] -= 1
        spec = specs[decision.domain]
        paper = by_id[decision.paper_id]
        messages = [
            ("system", SYSTEM_PROMPT.format(name=spec.name, description=spec.description)),
            ("user", f"Title: {paper.title}\nAbstract: {paper.abstract}"),
        ]
        verdict = llm.invoke_structured(messages, LLMScreenVerdict)  # type: ignore[attr-defined]
        result.append(
            decision.model_copy(
                update={
                    "status": verdict.status,
                    "reason": f"llm: {_one_line(verdict.reason)} (rules said: {decision.reason})",
                }
            )
        )
    return result
