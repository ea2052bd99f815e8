"""LLM answers to resolvable forecast questions: p10/p50/p90 for numeric, a probability for binary.

Every shipped LLM method has a forecaster with one signature, ``(question, llm, tools, settings) ->
ForecastAnswer`` (:data:`LLMForecaster`), defined in the method's own module; ``tools`` are the method's KB
tools bound to the question's cutoff and domain, or None (native, name-only runs). Each method module
registers its forecaster as its forecast hook with :func:`forecast_hook`; this module holds what they
share. Each keeps its method's shape at forecast scale:

- native: the question alone (one call).
- hybrid_rag: the papers hybrid search finds for the question's subject (one call).
- coi: a chain of ideas: the earliest strongly related paper and the later work related to it, in date
  order (one call).
- research_agent: search plus the subject's measured share trend; a draft forecast, then one
  calibration review that returns the final forecast (two calls).
- react: the model's own searches with the KB tools (a tool loop within the tool budget), then the
  forecast from the papers found and its findings (turns + 1 calls).
- aris: family-specific evidence: the subject's share trend normalised by the domain's monthly papers,
  related papers, and the family signal (venue profile for venue questions, recurring limitations for
  bottleneck questions) (one call).

Without tools every method answers from the question alone. Answers come through a structured schema;
quantiles given out of order are sorted (the repair is noted). The prompts are ``agents/forecast.yaml``
(declared in :mod:`foresci.methods.shipped.prompts`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from foresci.agents.briefs import evidence_block
from foresci.agents.config import AgentSettings
from foresci.agents.signals import growth_summary, limitation_statements, venue_profile
from foresci.agents.tools import KBTools
from foresci.contracts import ForecastAnswer
from foresci.kb.models import Paper
from foresci.llm import LLMClient
from foresci.methods.shipped.prompts import prompt_book
from foresci.tasks.families import UnknownFamilyError, get_family
from foresci.tasks.models import ForecastQuestion

if TYPE_CHECKING:
    from foresci.methods.registry import ForecastInput

QUOTED = re.compile(r"'([^']{3,})'")
NO_LITERATURE = "(no literature access: answer from the question alone)"
LLMForecaster = Callable[[ForecastQuestion, LLMClient, KBTools | None, AgentSettings], ForecastAnswer]


class NumericForecast(BaseModel):
    """The model's quantiles of a count (any order; sorted on reading)."""

    model_config = ConfigDict(extra="forbid")

    p10: float = Field(ge=0, description="10th percentile of the count")
    p50: float = Field(ge=0, description="median of the count")
    p90: float = Field(ge=0, description="90th percentile of the count")
    rationale: str = Field(description="two or three sentences: the signals behind the numbers")


class BinaryForecast(BaseModel):
    """The model's probability that the question resolves yes."""

    model_config = ConfigDict(extra="forbid")

    probability: float = Field(ge=0, le=1, description="probability that the answer is yes")
    rationale: str = Field(description="two or three sentences: the signals behind the probability")


Reply = NumericForecast | BinaryForecast


def question_subject(question: ForecastQuestion) -> str:
    """The sub-direction a question is about: its first quoted name, else the question text."""
    quoted = QUOTED.findall(question.text)
    return quoted[0] if quoted else question.text


def question_facts(question: ForecastQuestion) -> str:
    """The public, pre-cutoff facts of a question (its window and reference period) as prompt lines."""
    lines = [f"Question type: {question.kind}",
             f"Domain: {question.domain}",
             f"Window: {question.window_start.isoformat()} to {question.window_end.isoformat()}"]
    params = question.params
    if "baseline_start" in params and "baseline_count" in params:
        lines.append(f"Reference period before the cutoff: {params['baseline_start']} to "
                     f"{params['baseline_end']}, {params['baseline_count']} matching papers")
    lines.append(f"Resolution rule: {question.resolution_rule}")
    return "\n".join(lines)


def search_subject(tools: KBTools, subject: str) -> list[Paper]:
    """The papers search finds for ``subject`` (none once the tool budget is spent)."""
    return tools.search(subject) if tools.calls_left > 0 else []


def share_trend(tools: KBTools, subject: str, months: int) -> str:
    """The subject's monthly matches and share trend over the last ``months`` months (one tool call)."""
    if tools.calls_left <= 0:
        return "(tool budget exhausted: no trend measured)"
    timeline = tools.timeline(subject)
    recent = dict(sorted(timeline["matched"].items())[-months:])
    return (f"Monthly papers matching '{subject}': {recent}; {growth_summary(timeline['share'], months)}; "
            f"normalised by {timeline['normalised_by']}")


def related_block(papers: list[Paper]) -> str:
    """``papers`` as the prompt's related-papers block."""
    return "Related papers (on or before the cutoff):\n" + evidence_block(papers)


def idea_chain(tools: KBTools, subject: str) -> str:
    """A chain of ideas: the earliest of the top hits, then later work related to it, in date order."""
    hits = search_subject(tools, subject)
    if not hits:
        return "(no related papers found)"
    anchor = min(hits[:3], key=lambda paper: (paper.announced, paper.paper_id))
    followers = tools.related_papers(anchor.paper_id) if tools.calls_left > 0 else []
    chain = [anchor, *(paper for paper in followers if paper.announced >= anchor.announced)]
    return "Chain of ideas, oldest first:\n" + evidence_block(chain)


def family_signal(question: ForecastQuestion, papers: list[Paper]) -> str:
    """The family's own signal in ``papers`` (the venue profile or recurring limitations its
    ``agent_signals`` names), or ""."""
    try:
        kind = get_family(str(question.params.get("family", ""))).agent_signals
    except UnknownFamilyError:
        return ""
    if kind == "venue_profile":
        lines = venue_profile(papers)
    elif kind == "limitations":
        lines = limitation_statements(papers) or ["no limitation statements found"]
    else:
        return ""
    return "Family signal:\n" + "\n".join(f"- {line}" for line in lines)


def ask(question: ForecastQuestion, llm: LLMClient, evidence: str, draft: Reply | None = None) -> Reply:
    """The model's forecast of ``question`` from ``evidence`` (a review of ``draft`` when given)."""
    book = prompt_book()
    schema: type[NumericForecast] | type[BinaryForecast] = (
        NumericForecast if question.kind == "numeric" else BinaryForecast)
    values = {"question": question.text, "facts": question_facts(question), "evidence": evidence}
    if draft is None:
        prompt = book.render("forecast", question.kind, **values)
    else:
        prompt = book.render("forecast", "review", **values, draft=draft.model_dump_json())
    messages = [("system", book.render("common", "system", cutoff=question.cutoff.isoformat())),
                ("user", prompt)]
    return llm.invoke_structured(messages, schema)


def answer_reply(question: ForecastQuestion, reply: Reply, tools: KBTools | None) -> ForecastAnswer:
    """The model's ``reply`` as the :class:`ForecastAnswer` (quantiles sorted, tool evidence attached)."""
    answer = ForecastAnswer(question_id=question.question_id, notes=[f"rationale: {reply.rationale}"])
    if tools is not None:
        answer.evidence_ids = [item.paper_id for item in tools.artifact.retrieved]
        answer.notes.append(f"{len(tools.artifact.tool_calls)} tool calls, {len(answer.evidence_ids)} papers")
    if isinstance(reply, NumericForecast):
        given = (reply.p10, reply.p50, reply.p90)
        answer.p10, answer.p50, answer.p90 = sorted(given)
        if list(given) != sorted(given):
            answer.notes.append(f"quantiles given out of order {given}; sorted")
    else:
        answer.probability = reply.probability
    return answer


def forecast_hook(method: str, forecaster: LLMForecaster) -> Callable[[ForecastQuestion, ForecastInput],
                                                                      ForecastAnswer]:
    """LLM ``method``'s ``forecaster`` as a registry forecast hook ``(question, ForecastInput)``."""

    def hook(question: ForecastQuestion, inputs: ForecastInput) -> ForecastAnswer:
        if inputs.llm is None or inputs.settings is None:
            raise ValueError(f"method {method} needs an LLM endpoint (FORESCI_LLM__BASE_URL) and settings")
        tools = inputs.tools
        if tools is not None and not isinstance(tools, KBTools):
            raise TypeError(f"method {method} reads the KB through KBTools, got {type(tools).__name__}")
        return forecaster(question, inputs.llm, tools, inputs.settings.agents)

    hook.__doc__ = f"The {method} forecast of one question ({forecaster.__name__})."
    return hook
