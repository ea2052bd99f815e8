"""A release's forecast questions as inspect samples, and a sample's reply read as a forecast row.

A question's sample asks what ``foresci run`` asks a method: the question, its public facts (window,
reference period, resolution rule; :func:`foresci.methods.shipped.forecasting.question_facts`) and the
JSON schema of the reply its kind is scored on: ``p10``/``p50``/``p90`` of the count for a numeric
question, ``probability`` for a binary one (the fields of :class:`foresci.contracts.ForecastReply`, the
HTTP agents' contract). Its ``id`` is the question id, its metadata the public question; the outcome stays
in the release's ``forecast_hidden.jsonl``, read by the scorer only.

The reply is read as an HTTP agent's forecast is (bare or ``{"answer": {...}}``, checked against
ForecastReply, a half answer refused by :func:`foresci.methods.calling.check_forecast_fields`), with the
papers the sample's KB tools returned as its ``evidence_ids`` (ids the reply claims are not kept: only
what the tools recorded). The same :func:`forecast_row` serves the
scorer and the log import, and :func:`foresci.evaluation.loading.forecast_as_answer` turns the row into
what ``foresci eval`` scores, so the log's CRPS and Brier equal ``foresci eval``'s of the imported rows.
"""

from __future__ import annotations

import json
from typing import Any

from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser
from pydantic import ValidationError

from foresci.bridges.inspect_ai.answers import backbone, reply_object
from foresci.bridges.inspect_ai.dataset import REPLY, SYSTEM, TOOLS_LINE
from foresci.contracts import ForecastAnswer, ForecastReply
from foresci.core.errors import UserError
from foresci.llm import contamination_risk, load_model_registry
from foresci.methods.calling import check_forecast_fields
from foresci.methods.shipped.forecasting import question_facts
from foresci.tasks.models import ForecastQuestion

QUESTION_METADATA = "foresci_question"
FORECAST = "forecast"
"""The family name forecast rows are scored under (``--family forecast`` selects the questions)."""
KIND_FIELDS = {"numeric": ("p10", "p50", "p90"), "binary": ("probability",)}


def question_schema(question: ForecastQuestion) -> dict[str, Any]:
    """The JSON schema of the reply to ``question``: ForecastReply's fields its kind is scored on
    (required) and ``notes``."""
    full = ForecastReply.model_json_schema()
    needed = KIND_FIELDS[question.kind]
    properties = {name: dict(full["properties"][name]) for name in (*needed, "notes")}
    for name in needed:
        properties[name].pop("anyOf", None)
        properties[name].pop("default", None)
        properties[name]["type"] = "number"
        properties[name].setdefault("minimum", 0)
    return {"title": f"{question.kind.capitalize()}Forecast", "type": "object", "properties": properties,
            "required": list(needed), "additionalProperties": False}


def question_prompt(question: ForecastQuestion) -> str:
    """What the model is asked: the question, its public facts and the reply schema."""
    asked = ("the 10th, 50th and 90th percentiles of the count" if question.kind == "numeric"
             else "the probability that it resolves yes")
    return "\n".join([f"Forecast question ({question.kind}): {question.text}", "", question_facts(question),
                      "", f"Give {asked}.", "", REPLY,
                      json.dumps(question_schema(question), ensure_ascii=False, sort_keys=True)])


def question_sample(question: ForecastQuestion, with_tools: bool) -> Sample:
    """One forecast question as an inspect sample (no outcome: ``target`` is empty)."""
    cutoff = question.cutoff.isoformat()
    system = SYSTEM.format(cutoff=cutoff, tools=TOOLS_LINE.format(cutoff=cutoff) if with_tools else "")
    return Sample(
        id=question.question_id,
        input=[ChatMessageSystem(content=system), ChatMessageUser(content=question_prompt(question))],
        target="",
        metadata={QUESTION_METADATA: question.model_dump(mode="json"), "family": FORECAST,
                  "domain": question.domain, "cutoff": cutoff},
    )


def sample_question(metadata: dict[str, Any] | None) -> ForecastQuestion | None:
    """The forecast question a sample carries (None for a task's sample)."""
    data = (metadata or {}).get(QUESTION_METADATA)
    return ForecastQuestion.model_validate(data) if isinstance(data, dict) else None


def _papers(support: dict[str, Any] | None, question: ForecastQuestion) -> list[str]:
    """Ids of the papers the sample's KB tools returned, on or before the question's cutoff."""
    cutoff = question.cutoff.isoformat()
    return [str(item["paper_id"]) for item in (support or {}).get("retrieved") or []
            if isinstance(item, dict) and "paper_id" in item and str(item.get("announced", "")) <= cutoff]


def forecast_row(question: ForecastQuestion, reply: str, support: dict[str, Any] | None, *, method: str,
                 model: str | None, version: str | None = None, label: str | None = None) -> ForecastAnswer:
    """The forecast row of one reply to ``question`` (an error row naming the question when the reply is
    no forecast of its kind)."""
    base: dict[str, Any] = {
        "question_id": question.question_id, "method": method, "model": model, "version": version,
        "label": label,
        "contamination_risk": contamination_risk(backbone(model), question.cutoff, load_model_registry()),
    }
    try:
        data = reply_object(reply)
        if isinstance(data.get("answer"), dict) and set(data) == {"answer"}:
            data = data["answer"]
        checked = ForecastReply.model_validate(data)
        if checked.question_id not in (None, question.question_id):
            raise ValueError(f"answered question {checked.question_id!r}, asked {question.question_id!r}")
        row = ForecastAnswer(**base, **checked.model_dump(exclude={"question_id", "evidence_ids"}),
                             evidence_ids=_papers(support, question))
        check_forecast_fields(method, question, row)
        return row
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"]) or "reply"
        message = f"ValueError: forecast reply field {where}: {problem['msg']}"
    except (ValueError, UserError) as error:  # no JSON object, a half answer, another question's answer
        message = f"{type(error).__name__}: {' '.join(str(error).split())[:2000]}"
    return ForecastAnswer(**base, status="error", error=f"question {question.question_id}: {message}")
