"""LLM answers to resolvable forecast questions: p10/p50/p90 for numeric, a probability for binary.

Every shipped LLM method has a forecaster with one signature, ``(question, llm, tools, settings) ->
ForecastAnswer`` (:data:`LLM_FORECASTERS`); ``tools`` are the method's KB tools bound to the question's
cutoff and domain, or None (native, name-only runs). Each method module registers its forecaster as its
forecast hook with :func:`forecast_hook`. Each keeps its method's shape at forecast scale:

- native: the question alone (one call).
- hybrid_rag: the papers hybrid search finds for the question's subject (one call).
- coi: a chain of ideas: the earliest strongly related paper and the later work related to it, in date
  order (one call).
- research_agent: search plus the subject's measured share trend; a draft forecast, then one
  calibration review that returns the final forecast (two calls).
- aris: family-specific evidence: the subject's share trend normalised by the domain's monthly papers,
  related papers, and the family signal (venue profile for venue questions, recurring limitations for
  bottleneck questions) (one call).

Without tools every method answers from the question alone. Answers come through a structured schema;
quantiles given out of order are sorted (the repair is noted). The prompts are ``agents/forecast.yaml``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from foresci.agents.briefs import evidence_block
from foresci.agents.config import AgentSettings
from foresci.agents.methods.signals import growth_summary, limitation_statements, venue_profile
from foresci.agents.prompts import load_prompts
from foresci.agents.tools import KBTools
from foresci.contracts import ForecastAnswer
from foresci.kb.models import Paper
from foresci.llm import LLMClient
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


def _papers(tools: KBTools, subject: str) -> list[Paper]:
    return tools.search(subject) if tools.calls_left > 0 else []


def _trend(tools: KBTools, subject: str, months: int) -> str:
    """The subject's monthly matches and share trend over the last ``months`` months (one tool call)."""
    if tools.calls_left <= 0:
        return "(tool budget exhausted: no trend measured)"
    timeline = tools.timeline(subject)
    recent = dict(sorted(timeline["matched"].items())[-months:])
    return (f"Monthly papers matching '{subject}': {recent}; {growth_summary(timeline['share'], months)}; "
            f"normalised by {timeline['normalised_by']}")


def _related(papers: list[Paper]) -> str:
    return "Related papers (on or before the cutoff):\n" + evidence_block(papers)


def _chain(tools: KBTools, subject: str) -> str:
    """A chain of ideas: the earliest of the top hits, then later work related to it, in date order."""
    hits = _papers(tools, subject)
    if not hits:
        return "(no related papers found)"
    anchor = min(hits[:3], key=lambda paper: (paper.announced, paper.paper_id))
    followers = tools.related_papers(anchor.paper_id) if tools.calls_left > 0 else []
    chain = [anchor, *(paper for paper in followers if paper.announced >= anchor.announced)]
    return "Chain of ideas, oldest first:\n" + evidence_block(chain)


def _family_signal(question: ForecastQuestion, papers: list[Paper]) -> str:
    family = str(question.params.get("family", ""))
    if family == "venue_positioning":
        lines = venue_profile(papers)
    elif family == "bottleneck_opportunity":
        lines = limitation_statements(papers) or ["no limitation statements found"]
    else:
        return ""
    return "Family signal:\n" + "\n".join(f"- {line}" for line in lines)


def _ask(question: ForecastQuestion, llm: LLMClient, evidence: str, draft: Reply | None = None) -> Reply:
    book = load_prompts()
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


def _answer(question: ForecastQuestion, reply: Reply, tools: KBTools | None) -> ForecastAnswer:
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


def native_forecast(question: ForecastQuestion, llm: LLMClient, tools: KBTools | None,
                    settings: AgentSettings) -> ForecastAnswer:
    """The backbone alone: the question and its public facts, no literature."""
    return _answer(question, _ask(question, llm, NO_LITERATURE), None)


def rag_forecast(question: ForecastQuestion, llm: LLMClient, tools: KBTools | None,
                 settings: AgentSettings) -> ForecastAnswer:
    """Hybrid RAG: the papers search finds for the question's subject."""
    evidence = NO_LITERATURE if tools is None else _related(_papers(tools, question_subject(question)))
    return _answer(question, _ask(question, llm, evidence), tools)


def coi_forecast(question: ForecastQuestion, llm: LLMClient, tools: KBTools | None,
                 settings: AgentSettings) -> ForecastAnswer:
    """CoI: one chain of ideas on the subject (anchor, then later related work, oldest first)."""
    evidence = NO_LITERATURE if tools is None else _chain(tools, question_subject(question))
    return _answer(question, _ask(question, llm, evidence), tools)


def research_agent_forecast(question: ForecastQuestion, llm: LLMClient, tools: KBTools | None,
                            settings: AgentSettings) -> ForecastAnswer:
    """ResearchAgent: a draft from papers and the share trend, then a calibration review (two calls)."""
    evidence = NO_LITERATURE
    if tools is not None:
        subject = question_subject(question)
        evidence = _related(_papers(tools, subject)) + "\n\n" + _trend(tools, subject, settings.trend_months)
    draft = _ask(question, llm, evidence)
    answer = _answer(question, _ask(question, llm, evidence, draft=draft), tools)
    answer.notes.append(f"draft before review: {draft.model_dump(exclude={'rationale'})}")
    return answer


def aris_forecast(question: ForecastQuestion, llm: LLMClient, tools: KBTools | None,
                  settings: AgentSettings) -> ForecastAnswer:
    """ARIS: the measured share trend first, related papers, and the family's own signal."""
    evidence = NO_LITERATURE
    if tools is not None:
        subject = question_subject(question)
        trend = _trend(tools, subject, settings.trend_months)
        papers = _papers(tools, subject)
        evidence = "\n\n".join(part for part in (trend, _related(papers), _family_signal(question, papers))
                               if part)
    return _answer(question, _ask(question, llm, evidence), tools)


LLM_FORECASTERS: dict[str, LLMForecaster] = {
    "native": native_forecast,
    "hybrid_rag": rag_forecast,
    "coi": coi_forecast,
    "research_agent": research_agent_forecast,
    "aris": aris_forecast,
}


def forecast_with_llm(question: ForecastQuestion, llm: LLMClient, tools: KBTools | None,
                      settings: AgentSettings, method: str = "hybrid_rag") -> ForecastAnswer:
    """The forecast of ``question`` by LLM ``method`` (a key of :data:`LLM_FORECASTERS`)."""
    try:
        forecaster = LLM_FORECASTERS[method]
    except KeyError as error:
        raise ValueError(f"no forecaster for method {method!r}; expected one of {sorted(LLM_FORECASTERS)}") \
            from error
    return forecaster(question, llm, tools, settings)


def forecast_hook(method: str) -> Callable[[ForecastQuestion, ForecastInput], ForecastAnswer]:
    """LLM ``method``'s forecaster as a registry forecast hook ``(question, ForecastInput)``."""
    forecaster = LLM_FORECASTERS[method]

    def hook(question: ForecastQuestion, inputs: ForecastInput) -> ForecastAnswer:
        if inputs.llm is None or inputs.settings is None:
            raise ValueError(f"method {method} needs an LLM endpoint (FORESCI_LLM__BASE_URL) and settings")
        tools = inputs.tools
        if tools is not None and not isinstance(tools, KBTools):
            raise TypeError(f"method {method} reads the KB through KBTools, got {type(tools).__name__}")
        return forecaster(question, inputs.llm, tools, inputs.settings.agents)

    hook.__doc__ = f"The {method} forecast of one question (:data:`LLM_FORECASTERS`)."
    return hook
