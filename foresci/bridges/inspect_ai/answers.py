"""An inspect sample's final reply read as a foresci answer row (the same row for the scorer and for the
log import, so ``foresci eval`` of imported answers scores exactly what the inspect scorer scored).

The reply is read like an HTTP agent's: a JSON object in the family's answer schema, bare or wrapped as
``{"answer": {...}}``, in a ```json block or as the first JSON object of the text. The answer is checked
against the task contract (:func:`foresci.agents.render.check_contract`, recorded on the row, never
repaired into another answer) and rendered (:func:`foresci.agents.render.render_text`). The support
artifact the KB tools wrote to the sample's store becomes the row's support, with evidence per sentence
that cites a paper the tools returned. A reply that is no answer becomes an error row naming the task.
"""

from __future__ import annotations

import json
import re
from typing import Any

from foresci.agents.evidence_links import link_evidence
from foresci.agents.render import check_contract, render_text
from foresci.contracts import Answer
from foresci.core.errors import UserError
from foresci.llm import contamination_risk, load_model_registry
from foresci.methods.calling import read_answer, read_support
from foresci.tasks.models import Task

_FENCED = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL)
WRAPPER_KEYS = frozenset({"answer", "support"})


def reply_object(text: str) -> dict[str, Any]:
    """The JSON object of a reply: a fenced ```json block, else the first object in the text."""
    candidates = [match.group(1) for match in _FENCED.finditer(text)]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    for start in (index for index, char in enumerate(text) if char == "{"):
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    shown = " ".join(text.split())[:120]
    raise ValueError(f"the reply holds no JSON object: {shown!r}")


def _unwrapped(data: dict[str, Any]) -> dict[str, Any]:
    if "answer" in data and isinstance(data["answer"], dict) and set(data) <= WRAPPER_KEYS:
        return dict(data["answer"])
    return data


def backbone(model: str | None) -> str | None:
    """The model's name without its inspect provider (``openai/gpt-4o`` -> ``gpt-4o``): how foresci's
    model registry names it (for the contamination flag)."""
    return model.split("/", 1)[-1] if model else None


def answer_row(task: Task, reply: str, support: dict[str, Any] | None, *, method: str, model: str | None,
               version: str | None = None, label: str | None = None) -> Answer:
    """The answer row of one reply to ``task`` (``support``: the artifact the KB tools stored, None when
    the sample had no KB tools)."""
    base: dict[str, Any] = {
        "task_id": task.task_id, "family": task.family, "method": method, "model": model, "mode": "full",
        "contamination_risk": contamination_risk(backbone(model), task.cutoff, load_model_registry()),
        "version": version, "label": label,
    }
    try:
        answer = read_answer(method, task, _unwrapped(reply_object(reply)))
        check = check_contract(task, answer)
        artifact = read_support(method, task, support)  # papers dated after the cutoff are dropped
        text = render_text(task, check.answer)
        if artifact is not None:
            artifact.evidence.extend(link_evidence(text, {item.paper_id for item in artifact.retrieved}))
        return Answer(
            **base,
            text=text,
            payload=check.answer.model_dump(mode="json"),
            support=artifact,
            contract="invalid" if check.problems else "ok",
            contract_notes=[*check.notes, *check.problems],
            evidence=None if artifact is None else ("retrieved" if artifact.retrieved else "none"),
        )
    except (ValueError, UserError) as error:  # no JSON object, or one outside the family schema
        message = " ".join(str(error).split())[:2000]
        return Answer(**base, status="error", error=f"task {task.task_id}: {type(error).__name__}: {message}")
