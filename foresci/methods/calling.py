"""Calling a registered method, and its results read into the family answer schema (a dict or another
model is validated; what fails names the field).

Shipped methods are called directly. A sandboxed plug-in (``spec.isolated``) is called directly too: its
spec's functions are foresci's side of the plug-in's own process. Any other method (``--trust-plugin``)
runs in this process behind the plug-in wall (:mod:`foresci.methods.wall`), and its ``sys.exit`` is that
task's error, not the end of the run."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pydantic import BaseModel, ValidationError

from foresci.contracts import ForecastAnswer, SupportArtifact, family_schema
from foresci.methods.registry import ForecastInput, MethodInput, MethodResult, MethodSpec
from foresci.methods.wall import PluginTools, walled
from foresci.tasks.models import ForecastQuestion, Task


class MethodOutputError(ValueError):
    """A method returned something that is not an answer in its task family's schema."""


class PluginExit(RuntimeError):
    """A plug-in called ``sys.exit`` (or raised ``SystemExit``) while answering."""


def _walled_call(spec: MethodSpec, function: Any, *args: Any) -> Any:
    """``function(*args)`` as plug-in ``spec`` behind the wall; its ``SystemExit`` is a
    :class:`PluginExit`."""
    try:
        with walled(spec.name):
            return function(*args)
    except SystemExit as error:
        raise PluginExit(f"method {spec.name}: the plug-in called sys.exit({error.code!r})") from error


def _direct(spec: MethodSpec) -> bool:
    return spec.shipped or spec.isolated


def _first_problem(error: ValidationError) -> str:
    problem = error.errors()[0]
    where = ".".join(str(part) for part in problem.get("loc", ())) or "(root)"
    return f"{where}: {problem.get('msg', 'invalid')}"


def read_answer(name: str, task: Task, answer: Any) -> BaseModel:
    """``answer`` as the family answer model of ``task``; a :class:`MethodOutputError` naming the field
    that does not fit."""
    schema = family_schema(task.family)
    if isinstance(answer, schema):
        return _known_options(name, task, answer)
    data = answer.model_dump(mode="json") if isinstance(answer, BaseModel) else answer
    if not isinstance(data, dict):
        raise MethodOutputError(f"method {name} returned {type(answer).__name__}, expected a "
                                f"{schema.__name__} (an object in the {task.family} answer schema)")
    try:
        read = schema.model_validate(data)
    except ValidationError as error:
        raise MethodOutputError(f"method {name} answered outside the {schema.__name__} schema: "
                                f"{_first_problem(error)}") from error
    return _known_options(name, task, read)


def _known_options(name: str, task: Task, answer: BaseModel) -> BaseModel:
    """``answer`` when each key of its ``probabilities`` is one of the task's option ids."""
    from foresci.tasks.option_probabilities import unknown_options

    options = [candidate.option_id for candidate in task.candidates]
    unknown = unknown_options(answer, options)
    if unknown:
        raise MethodOutputError(f"method {name}: probabilities: {', '.join(map(repr, unknown))} "
                                f"not among the task's option ids {', '.join(options)}")
    return answer


def read_support(name: str, task: Task, support: Any) -> SupportArtifact | None:
    """A method's own support artifact, validated; retrieved items dated after the cutoff are dropped and
    the drop noted (an answer cannot rest on the future)."""
    if support is None:
        return None
    try:
        artifact = SupportArtifact.model_validate(
            support.model_dump(mode="json") if isinstance(support, BaseModel) else support
        )
    except ValidationError as error:
        problem = _first_problem(error)
        raise MethodOutputError(f"method {name}: support artifact invalid: {problem}") from error
    late = [item.paper_id for item in artifact.retrieved if item.announced > task.cutoff]
    if late:
        artifact.retrieved = [item for item in artifact.retrieved if item.announced <= task.cutoff]
        artifact.notes.append(f"dropped {len(late)} retrieved items dated after the cutoff: "
                              f"{', '.join(late)}")
    return artifact


def tools_support(task: Task, answer: BaseModel, tools: Any) -> SupportArtifact | None:
    """The KB tools' log as the support artifact of a plug-in's answer, with evidence per sentence of the
    answer that cites papers the tools returned (as the shipped methods link theirs)."""
    from foresci.agents.evidence_links import link_evidence
    from foresci.agents.render import render_text

    artifact = getattr(tools, "artifact", None)
    if not isinstance(artifact, SupportArtifact):
        return None
    known = {item.paper_id for item in artifact.retrieved}
    artifact.evidence.extend(link_evidence(render_text(task, answer), known))
    return artifact


def merged_support(claimed: SupportArtifact, recorded: SupportArtifact) -> SupportArtifact:
    """A plug-in's own support artifact merged into what foresci recorded of its KB tool calls.

    The record stays whole: every recorded query, retrieved paper and tool call is kept. The claim adds
    its evidence (the method's word on which paper supports which claim), its queries and notes; its
    ``retrieved`` items and ``tool_calls`` that the record lacks are not retrieval foresci saw, so they
    are left out and a note names how many (a claim never erases the record, and never forges it).
    """
    merged = recorded.model_copy(deep=True)
    seen = {item.paper_id for item in merged.retrieved}
    unseen = [item.paper_id for item in claimed.retrieved if item.paper_id not in seen]
    merged.queries += [query for query in claimed.queries if query not in merged.queries]
    recorded_claims = {(item.claim, tuple(item.paper_ids)) for item in merged.evidence}
    merged.evidence = [*[item for item in claimed.evidence
                         if (item.claim, tuple(item.paper_ids)) not in recorded_claims], *merged.evidence]
    merged.notes += claimed.notes
    if unseen:
        merged.notes.append(f"the method claimed {len(unseen)} retrieved paper(s) its KB tool calls did not "
                            f"return, left out: {', '.join(dict.fromkeys(unseen))}")
    if claimed.tool_calls:
        merged.notes.append(f"the method reported {len(claimed.tool_calls)} tool call(s) of its own; the "
                            f"{len(recorded.tool_calls)} recorded by foresci are kept")
    return merged


def call_method(spec: MethodSpec, inputs: MethodInput) -> MethodResult:
    """Run ``spec`` on ``inputs`` (a non-shipped method behind the plug-in wall) and read its result.

    A plug-in (or HTTP agent) given KB tools gets the tools' log as its support artifact, so its evidence
    is traceable like a shipped method's; a support artifact it returns itself is merged into that log
    (:func:`merged_support`), never put in its place (issue 42.1: an agent's ``support`` erased 234
    recorded tool calls and its Trace).
    """
    if _direct(spec):
        raw = spec.answer(inputs)
    else:
        given = replace(inputs, tools=PluginTools(inputs.tools) if inputs.tools is not None else None)
        raw = _walled_call(spec, spec.answer, given)
    result = raw if isinstance(raw, MethodResult) else MethodResult(answer=raw)
    answer = read_answer(spec.name, inputs.task, result.answer)
    support = read_support(spec.name, inputs.task, result.support)
    if not spec.shipped and inputs.tools is not None:
        recorded = tools_support(inputs.task, answer, inputs.tools)
        if recorded is not None:
            support = recorded if support is None else merged_support(support, recorded)
    return MethodResult(answer=answer, support=support, contract=result.contract,
                        contract_notes=list(result.contract_notes))


def call_forecast(spec: MethodSpec, question: ForecastQuestion, inputs: ForecastInput) -> ForecastAnswer:
    """``spec``'s forecast hook on ``question`` (behind the wall unless shipped), read as a
    :class:`ForecastAnswer` under the method's name."""
    if spec.forecast is None:
        raise NotImplementedError(f"method {spec.name} does not answer forecast questions")
    if _direct(spec):
        raw = spec.forecast(question, inputs)
    else:
        given = replace(inputs, tools=PluginTools(inputs.tools) if inputs.tools is not None else None)
        raw = _walled_call(spec, spec.forecast, question, given)
    data = raw.model_dump(mode="json") if isinstance(raw, BaseModel) else raw
    if not isinstance(data, dict):
        raise MethodOutputError(f"method {spec.name} forecast returned {type(raw).__name__}, expected a "
                                "ForecastAnswer")
    try:
        answer = ForecastAnswer.model_validate({"question_id": question.question_id, **data})
    except ValidationError as error:
        raise MethodOutputError(f"method {spec.name} forecast outside the ForecastAnswer schema: "
                                f"{_first_problem(error)}") from error
    if answer.question_id != question.question_id:
        raise MethodOutputError(f"method {spec.name} answered question {answer.question_id!r}, asked "
                                f"{question.question_id!r}")
    check_forecast_fields(spec.name, question, answer)
    return answer.model_copy(update={"method": spec.name})


def check_forecast_fields(name: str, question: ForecastQuestion, answer: ForecastAnswer) -> None:
    """Refuse a forecast that lacks what its question's kind is scored on: p10, p50 and p90 for a numeric
    question, the probability for a binary one. Checked when the answer arrives, so a half answer is an
    error row (``run --retry-errors`` asks again), not an ``ok`` row that only ``eval`` finds wanting."""
    needed = {"numeric": ("p10", "p50", "p90"), "binary": ("probability",)}.get(question.kind, ())
    missing = [field for field in needed if getattr(answer, field) is None]
    if missing:
        raise MethodOutputError(
            f"method {name}: forecast to the {question.kind} question {question.question_id} lacks "
            f"{', '.join(missing)} ({question.kind} questions need {', '.join(needed)})")
