"""The non-LLM forecasters as registered methods: ``trend`` and ``persistence`` answer tasks from the
task's KB view and forecast questions (numeric and binary) from the question's KB view. Each answer
records what it read as a ``baseline_read`` transcript event (months, normaliser, counts, papers).
``recency`` answers the tasks of families that state per-option counts from their public context alone
(the naive recent / pre-cutoff ratio rule)."""

from __future__ import annotations

from typing import Any

from foresci.agents.baselines.forecasters import Forecaster, Kind
from foresci.agents.baselines.questions import forecast_question
from foresci.agents.tools import KBTools
from foresci.contracts import ForecastAnswer
from foresci.core.transcripts import record
from foresci.methods.registry import ForecastInput, MethodInput, MethodResult, method
from foresci.tasks.families import UnknownFamilyError, get_family
from foresci.tasks.models import ForecastQuestion, Task
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


@method("trend", needs_kb=True, order=70)
def trend(inputs: MethodInput) -> MethodResult:
    """Momentum of normalised shares, fragmentation, venue shares, bottleneck recurrence."""
    return _answer("trend", inputs)


@trend.forecaster
def trend_forecast(question: ForecastQuestion, inputs: ForecastInput) -> ForecastAnswer:
    """The trend forecast of one question."""
    return _forecast("trend", question, inputs)


@method("persistence", needs_kb=True, order=71)
def persistence(inputs: MethodInput) -> MethodResult:
    """The past continues: the biggest recent direction wins, rankings by pre-cutoff volume."""
    return _answer("persistence", inputs)


@persistence.forecaster
def persistence_forecast(question: ForecastQuestion, inputs: ForecastInput) -> ForecastAnswer:
    """The persistence forecast of one question."""
    return _forecast("persistence", question, inputs)


def _recency_order(task: Task) -> list[str]:
    """Option ids by the recent / pre-cutoff ratio the public task states, highest first (ties by id)."""
    counts = public_option_counts(task)
    if len(counts) < 2:
        raise ValueError(f"task {task.task_id}: recency needs pre_cutoff_papers and recent_papers per option "
                         f"in the public context (family {task.family} states none)")
    return sorted(counts, key=lambda option: (-counts[option][1] / max(counts[option][0], 1), option))


def _states_counts(family: str) -> bool:
    """Whether the family's tasks state the per-option counts recency reads (its hook writes the answer)."""
    try:
        return get_family(family).counts_rule_answers
    except UnknownFamilyError:
        return False


@method("recency", order=72, answers=_states_counts)
def recency(inputs: MethodInput) -> MethodResult:
    """The naive public-context forecaster: the option with the highest recent / pre-cutoff paper ratio
    stated in the task (families whose tasks state those counts, ``TaskFamily.counts_rule_answers``: other
    families state no counts, and a run does not ask it theirs). The audit gates the same rule
    (``recency``)."""
    task = inputs.task
    family = get_family(task.family)
    if not family.counts_rule_answers:
        raise ValueError(f"task {task.task_id}: recency does not answer family {task.family}")
    ranked = _recency_order(task)
    return MethodResult(answer=family.counts_rule_answer(task, ranked, public_option_counts(task)))
