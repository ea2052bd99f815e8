"""The non-LLM forecasters as registered methods: ``trend`` and ``persistence`` answer tasks from the
task's KB view and forecast questions (numeric and binary) from the question's KB view. Each answer
records what it read as a ``baseline_read`` transcript event (months, normaliser, counts, papers).
``recency`` answers the tasks of families whose hook writes a counts-rule answer (direction and planning) by
the naive recent / pre-cutoff ratio rule, from the counts a task states (older releases) or the KB's."""

from __future__ import annotations

from typing import Any

from foresci.agents.baselines.forecasters import Forecaster, Kind
from foresci.agents.baselines.questions import forecast_question
from foresci.agents.tools import KBTools
from foresci.contracts import ForecastAnswer
from foresci.core.transcripts import record
from foresci.methods.registry import ForecastInput, MethodInput, MethodResult, method
from foresci.tasks.families import UnknownFamilyError, get_family
from foresci.tasks.models import ForecastQuestion
from foresci.tasks.public_counts import public_option_counts


def _kb_tools(tools: Any, name: str) -> KBTools:
    if tools is None:
        raise ValueError(f"method {name} needs a KB (--kb)")
    if not isinstance(tools, KBTools):
        raise TypeError(f"method {name} reads the KB through KBTools, got {type(tools).__name__}")
    return tools


def _answer(kind: Kind, inputs: MethodInput) -> MethodResult:
    if inputs.settings is None:
        raise ValueError(f"method {kind} needs settings")
    view = _kb_tools(inputs.tools, kind).view
    answer, support = Forecaster(kind, view, inputs.settings.agents).answer(inputs.task)
    record("baseline_read", method=kind, cutoff=view.cutoff.isoformat(), read=list(support.notes),
           measured=[item.claim for item in support.evidence],
           papers=[item.paper_id for item in support.retrieved])
    return MethodResult(answer=answer, support=support)


def _forecast(kind: Kind, question: ForecastQuestion, inputs: ForecastInput) -> ForecastAnswer:
    if inputs.settings is None:
        raise ValueError(f"method {kind} needs settings")
    return forecast_question(kind, _kb_tools(inputs.tools, kind).view, question, inputs.settings.agents)


@method("trend", needs_kb=True)
def trend(inputs: MethodInput) -> MethodResult:
    """Momentum of normalised shares, fragmentation, venue shares, bottleneck recurrence."""
    return _answer("trend", inputs)


@trend.forecaster
def trend_forecast(question: ForecastQuestion, inputs: ForecastInput) -> ForecastAnswer:
    """The trend forecast of one question."""
    return _forecast("trend", question, inputs)


@method("persistence", needs_kb=True)
def persistence(inputs: MethodInput) -> MethodResult:
    """The past continues: the biggest recent direction wins, rankings by pre-cutoff volume."""
    return _answer("persistence", inputs)


@persistence.forecaster
def persistence_forecast(question: ForecastQuestion, inputs: ForecastInput) -> ForecastAnswer:
    """The persistence forecast of one question."""
    return _forecast("persistence", question, inputs)


def recency_counts(inputs: MethodInput) -> dict[str, tuple[int, int]]:
    """Option id -> (pre-cutoff papers, recent papers) of ``inputs.task``: as the task states them (tasks of
    releases built before issue 43), else read from the KB (the months the forecasters read, and the last
    window-length months of them: tasks no longer state recent papers, an agent retrieves them)."""
    task = inputs.task
    stated = public_option_counts(task)
    if len(stated) >= 2:
        return stated
    if inputs.settings is None:
        raise ValueError("method recency needs settings")
    view = _kb_tools(inputs.tools, "recency").view
    series = Forecaster("persistence", view, inputs.settings.agents).series(task)
    recent = max(1, round(((task.window_end - task.window_start).days + 1) / 30.44))  # window months
    counts = {option: (sum(item.counts), sum(item.counts[-recent:])) for option, item in series.items()}
    if len(counts) < 2:
        raise ValueError(f"task {task.task_id}: recency found paper counts for {len(counts)} option(s) in "
                         "the KB")
    return counts


def _recency_order(counts: dict[str, tuple[int, int]]) -> list[str]:
    """Option ids by the recent / pre-cutoff ratio, highest first (ties by id)."""
    return sorted(counts, key=lambda option: (-counts[option][1] / max(counts[option][0], 1), option))


def _states_counts(family: str) -> bool:
    """Whether the family's hook writes the answer of a rule ranking options by their paper counts."""
    try:
        return get_family(family).counts_rule_answers
    except UnknownFamilyError:
        return False


@method("recency", needs_kb=True, answers=_states_counts)
def recency(inputs: MethodInput) -> MethodResult:
    """The naive recency forecaster: the option with the highest recent / pre-cutoff paper ratio, from the
    counts the task states or, where it states none (tasks built since issue 43), the KB's (families whose
    ``TaskFamily.counts_rule_answers`` is set; a run does not ask it other families). The audit gates the
    same rule where a task states the counts (``recency``)."""
    task = inputs.task
    family = get_family(task.family)
    if not family.counts_rule_answers:
        raise ValueError(f"task {task.task_id}: recency does not answer family {task.family}")
    counts = recency_counts(inputs)
    return MethodResult(answer=family.counts_rule_answer(task, _recency_order(counts), counts))
