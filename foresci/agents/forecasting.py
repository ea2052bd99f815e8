"""LLM answers to resolvable forecast questions: p10/p50/p90 for numeric, a probability for binary.

One step shared by every LLM method (the method graphs shape family-task answers; a forecast question
needs one calibrated number): the model reads the public question and, when the method reads the KB,
an evidence pack gathered through the method's cutoff-bound tools — the papers most related to the
question's subject and the subject's monthly share of the domain before the cutoff (normalised by the
domain's papers per month). It answers through a structured schema. Quantiles given out of order are
sorted (and the repair noted); a probability outside [0, 1] is refused by the schema and re-asked.

Call :func:`forecast_with_llm` with the question, an :class:`~foresci.llm.LLMClient`, the method's
:class:`~foresci.agents.tools.KBTools` (or None) and the agent settings.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

from foresci.agents.briefs import evidence_block
from foresci.agents.config import AgentSettings
from foresci.agents.methods.signals import growth_summary
from foresci.agents.models import ForecastAnswer
from foresci.agents.prompts import PromptBook, load_prompts
from foresci.agents.tools import KBTools
from foresci.llm import LLMClient
from foresci.tasks.models import ForecastQuestion

QUOTED = re.compile(r"'([^']{3,})'")


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


def gather_evidence(question: ForecastQuestion, tools: KBTools, months: int) -> str:
    """Related pre-cutoff papers and the subject's share trend over the last ``months`` months, read
    through ``tools`` (within their budget)."""
    subject = question_subject(question)
    parts: list[str] = []
    if tools.calls_left > 0:
        parts.append("Related papers (on or before the cutoff):\n" + evidence_block(tools.search(subject)))
    if tools.calls_left > 0:
        timeline = tools.timeline(subject)
        recent = dict(sorted(timeline["matched"].items())[-months:])
        parts.append(f"Monthly papers matching '{subject}': {recent}; "
                     f"{growth_summary(timeline['share'], months)}; "
                     f"normalised by {timeline['normalised_by']}")
    return "\n\n".join(parts) or "(tool budget exhausted: no evidence gathered)"


def forecast_with_llm(question: ForecastQuestion, llm: LLMClient, tools: KBTools | None,
                      settings: AgentSettings, prompts: PromptBook | None = None) -> ForecastAnswer:
    """One forecast of ``question`` by the model behind ``llm``; evidence only through ``tools``.

    ``tools`` None (native, name-only) answers from the question alone; ``settings.trend_months`` is how
    many pre-cutoff months of the subject's trend the model is shown. The returned answer's
    ``method``/``model`` are left for the caller to fill; ``evidence_ids`` lists the papers shown.
    """
    book = prompts or load_prompts()
    evidence = ("(no literature access)" if tools is None
                else gather_evidence(question, tools, settings.trend_months))
    schema: type[NumericForecast] | type[BinaryForecast] = (
        NumericForecast if question.kind == "numeric" else BinaryForecast)
    messages = [("system", book.render("common", "system", cutoff=question.cutoff.isoformat())),
                ("user", book.render("forecast", question.kind, question=question.text,
                                     facts=question_facts(question), evidence=evidence))]
    reply = llm.invoke_structured(messages, schema)
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
