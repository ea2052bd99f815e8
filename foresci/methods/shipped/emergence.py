"""Link-prediction methods for tasks whose options are concept pairs: the families that declare the
``pair_network`` baseline strategy (a run asks them nothing else; the shipped concept-pair family, and an
extension declaring it). Each answers through the task's family (``ranked_by``), naming none.

The five network baselines of Science4Cast rank a task's concept pairs by a measure of the co-occurrence
network at the cutoff, read from the task's KB view (:mod:`foresci.agents.baselines.pair_network`; a task
of an older release that states ``context.pair_signals`` is read as stated): preferential attachment
(degree product), common neighbours, Adamic–Adar, Jaccard and resource allocation.
``learned_links`` is the learned baseline: a classifier on those network features trained at the earlier
cutoff ``t - window`` with labels up to ``t`` (:mod:`foresci.emergence.pair_model`, papers from the
task's KB view only); it ranks a task's pairs by their probability and answers the family's binary
forecast questions with it.
"""

from __future__ import annotations

from typing import Any

from foresci.contracts import ForecastAnswer
from foresci.core.transcripts import record
from foresci.methods.registry import ForecastInput, MethodInput, MethodResult, method
from foresci.tasks.families.lookup import UnknownFamilyError, find_family
from foresci.tasks.models import ForecastQuestion, Task
from foresci.tasks.windows import HORIZON_MONTHS

PAIR_STRATEGY = "pair_network"
"""The baseline strategy a family declares when its options are concept pairs of the co-occurrence network."""


def pairs_concepts(family: str) -> bool:
    """Whether the family's options are concept pairs (it declares the ``pair_network`` baseline strategy):
    the families these methods answer (an unknown name, e.g. a question of no family: none)."""
    try:
        return bool(find_family(family).baseline_strategy == PAIR_STRATEGY)
    except UnknownFamilyError:
        return False


def _ranked(task: Task, score: str, who: str, value: Any) -> tuple[Any, Any]:
    """The answer ranking the task's pairs by ``value``, built by the task's family (``ranked_by``)."""
    answer, support = find_family(task.family).ranked_by(task, score, who, value)
    return answer, support


def _network(score: str, inputs: MethodInput) -> MethodResult:
    from foresci.agents.baselines.pair_network import network_score, pair_signals

    task = inputs.task
    if isinstance(task.context.get("pair_signals"), dict) and task.context["pair_signals"]:
        signals = pair_signals(None, task)
    else:
        view = getattr(inputs.tools, "view", None)
        if view is None:
            raise ValueError(f"method {score} needs a KB (--kb): the task states no network measures")
        signals = pair_signals(view, task)
    answer, support = _ranked(task, score, score, lambda option: network_score(signals[option], score))
    return MethodResult(answer=answer, support=support)


@method("preferential_attachment", needs_kb=True, answers=pairs_concepts)
def preferential_attachment(inputs: MethodInput) -> MethodResult:
    """Pairs of well-connected concepts meet first: the product of the two concepts' degrees."""
    return _network("preferential_attachment", inputs)


@method("common_neighbours", needs_kb=True, answers=pairs_concepts)
def common_neighbours(inputs: MethodInput) -> MethodResult:
    """Pairs sharing the most neighbouring concepts meet first."""
    return _network("common_neighbours", inputs)


@method("adamic_adar", needs_kb=True, answers=pairs_concepts)
def adamic_adar(inputs: MethodInput) -> MethodResult:
    """Shared neighbours, each weighted by 1 / log(its degree): rare shared concepts count more."""
    return _network("adamic_adar", inputs)


@method("jaccard", needs_kb=True, answers=pairs_concepts)
def jaccard(inputs: MethodInput) -> MethodResult:
    """Shared neighbours over all neighbours of the two concepts."""
    return _network("jaccard", inputs)


@method("resource_allocation", needs_kb=True, answers=pairs_concepts)
def resource_allocation(inputs: MethodInput) -> MethodResult:
    """Shared neighbours, each weighted by 1 / its degree."""
    return _network("resource_allocation", inputs)


def _model(tools: Any, domain: str, cutoff: Any, horizon: str) -> Any:
    from foresci.emergence.pair_model import domain_model

    view = getattr(tools, "view", None)
    if view is None:
        raise ValueError("method learned_links needs a KB (--kb)")
    if horizon not in HORIZON_MONTHS:
        raise ValueError(f"learned_links: no window length for horizon {horizon!r}")
    return domain_model(view, domain, cutoff, HORIZON_MONTHS[horizon])


@method("learned_links", needs_kb=True, answers=pairs_concepts)
def learned_links(inputs: MethodInput) -> MethodResult:
    """A logistic regression on the network features, trained at ``t - window`` (labels up to ``t``)."""
    task = inputs.task
    model = _model(inputs.tools, task.domain, task.cutoff, task.horizon)
    names = {candidate.option_id: candidate.name.split(" + ", 1) for candidate in task.candidates}
    found = {option: model.probability(*pair) if len(pair) == 2 else None for option, pair in names.items()}
    missing = sorted(option for option, value in found.items() if value is None)
    if missing:
        raise ValueError(f"task {task.task_id}: options {missing} are no candidate pair of the network the "
                         f"KB view shows at {task.cutoff}")
    record("baseline_read", method="learned_links", cutoff=task.cutoff.isoformat(),
           read=[model.model.note, f"{model.snapshot.network.papers} papers up to the cutoff"],
           measured=[f"{option}: {value:.4f}" for option, value in sorted(found.items())], papers=[])
    answer, support = _ranked(task, "learned_probability", "learned_links",
                              lambda option: float(found[option] or 0.0))
    support.notes.append(model.model.note)
    return MethodResult(answer=answer, support=support)


@learned_links.forecaster
def learned_links_forecast(question: ForecastQuestion, inputs: ForecastInput) -> ForecastAnswer:
    """The learned probability that the question's pair is used together in the window."""
    params = question.params
    if not pairs_concepts(str(params.get("family"))):
        raise ValueError(f"learned_links answers questions about concept pairs only, not of family "
                         f"{params.get('family')!r}")
    model = _model(inputs.tools, question.domain, question.cutoff, str(params.get("horizon")))
    probability = model.probability(str(params.get("first")), str(params.get("second")))
    if probability is None:
        raise ValueError(f"question {question.question_id}: the pair is no candidate at {question.cutoff}")
    return ForecastAnswer(question_id=question.question_id, method="learned_links",
                          probability=round(min(0.99, max(0.01, probability)), 4),
                          notes=[model.model.note])
