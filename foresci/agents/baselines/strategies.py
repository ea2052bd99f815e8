"""How the non-LLM forecasters (``trend``, ``persistence``) answer a family's tasks: strategies by name.

A family names its strategy (:attr:`foresci.tasks.families.TaskFamily.baseline_strategy`); the strategy
lives here, on the agents side, so the tasks layer knows no forecaster. A strategy is a
:class:`BaselineStrategy`: ``(forecaster, task) -> (answer, support)``. :func:`baseline_answer` runs it and
checks what it returns (an answer of the family's schema, a :class:`~foresci.contracts.SupportArtifact`),
so a strategy that returns something else is one clear error row, not a crash in the row's writer.

The shipped strategies: ``momentum_choice`` (the option whose share gains most; persistence: the
biggest), ``momentum_ranking`` (options ranked so), ``venue_record`` (venue families by where similar
work was accepted), ``recurring_limitation`` (the limitation read as most recurrent / rising),
``pair_network`` (concept pairs by measures of the co-occurrence network the KB shows at the cutoff:
persistence preferential attachment, trend shared neighbours between concepts in use now) and
``task_signals`` (the family's own answer from the signals its task shows,
:meth:`~foresci.tasks.families.TaskFamily.signal_answer`). An extension registers its own with
:func:`register_strategy`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from foresci.contracts import SupportArtifact
from foresci.core.errors import UserError
from foresci.tasks.families import get_family
from foresci.tasks.models import Task


class Forecaster(Protocol):
    """What a strategy reads of a forecaster (:class:`foresci.agents.baselines.forecasters.Forecaster`):
    its kind and its measured answers."""

    @property
    def kind(self) -> str: ...

    @property
    def view(self) -> Any: ...

    def direction(self, task: Task) -> tuple[BaseModel, SupportArtifact]: ...
    def planning(self, task: Task) -> tuple[BaseModel, SupportArtifact]: ...
    def venue(self, task: Task) -> tuple[BaseModel, SupportArtifact]: ...
    def bottleneck(self, task: Task) -> tuple[BaseModel, SupportArtifact]: ...


class BaselineStrategy(Protocol):
    """A forecaster's answer to one task: (family answer, support artifact)."""

    def __call__(self, forecaster: Forecaster, task: Task, /) -> tuple[BaseModel, SupportArtifact]: ...


class StrategyError(UserError):
    """A family's baseline strategy is unknown, or returned something other than an answer and support."""


_STRATEGIES: dict[str, BaselineStrategy] = {}
StrategyT = TypeVar("StrategyT", bound=Callable[..., tuple[BaseModel, SupportArtifact]])


def register_strategy(name: str) -> Callable[[StrategyT], StrategyT]:
    """Decorator: register a :class:`BaselineStrategy` under ``name`` (what a family's
    ``baseline_strategy`` names). A name taken by another function is an error."""

    def decorate(function: StrategyT) -> StrategyT:
        taken = _STRATEGIES.get(name)
        if taken is not None and taken is not function:
            raise StrategyError(f"baseline strategy {name!r} is already registered by "
                                f"{taken.__module__}.{getattr(taken, '__qualname__', taken)}")
        _STRATEGIES[name] = function
        return function

    return decorate


def strategy_names() -> tuple[str, ...]:
    """The registered strategies' names, in registration order."""
    return tuple(_STRATEGIES)


def _options(task: Task) -> None:
    if not task.candidates:
        raise ValueError(f"task {task.task_id} ({task.family}) has no candidate options to rank")


@register_strategy("momentum_choice")
def momentum_choice(forecaster: Forecaster, task: Task) -> tuple[BaseModel, SupportArtifact]:
    """The candidate the forecaster measures gaining most (it ranks fixed options, it invents none)."""
    _options(task)
    return forecaster.direction(task)


@register_strategy("momentum_ranking")
def momentum_ranking(forecaster: Forecaster, task: Task) -> tuple[BaseModel, SupportArtifact]:
    """The options ranked by measured momentum (it ranks fixed options, it invents none)."""
    _options(task)
    return forecaster.planning(task)


@register_strategy("venue_record")
def venue_record(forecaster: Forecaster, task: Task) -> tuple[BaseModel, SupportArtifact]:
    """Venue families ranked by where similar pre-cutoff work was accepted."""
    return forecaster.venue(task)


@register_strategy("recurring_limitation")
def recurring_limitation(forecaster: Forecaster, task: Task) -> tuple[BaseModel, SupportArtifact]:
    """The limitation the forecaster reads as most recurrent (persistence) or rising (trend)."""
    return forecaster.bottleneck(task)


@register_strategy("pair_network")
def pair_network(forecaster: Forecaster, task: Task) -> tuple[BaseModel, SupportArtifact]:
    """Concept pairs ranked by a measure of the network the KB shows at the cutoff
    (:mod:`foresci.agents.baselines.pair_network`): persistence, preferential attachment (popular concepts
    meet); trend, ``growing_links`` (Adamic–Adar times the two concepts' recent papers; ties, pairs of
    all-zero shared neighbours included, by those recent papers)."""
    from foresci.agents.baselines.pair_network import activity, network_score, pair_signals
    from foresci.tasks.families.lookup import find_family

    _options(task)
    signals = pair_signals(forecaster.view, task)
    score = "preferential_attachment" if forecaster.kind == "persistence" else "growing_links"
    answer, support = find_family(task.family).ranked_by(
        task, score, forecaster.kind, lambda option: network_score(signals[option], score),
        tie=lambda option: activity(signals[option]))
    support.notes[-1] = (f"{forecaster.kind}: {score} of each pair in the co-occurrence network of the KB's "
                         f"papers up to {task.cutoff.isoformat()}")
    return answer, support


@register_strategy("task_signals")
def task_signals(forecaster: Forecaster, task: Task) -> tuple[BaseModel, SupportArtifact]:
    """The family's own answer from the signals the task shows (pre-cutoff), by the forecaster's kind."""
    found = get_family(task.family).signal_answer(task, forecaster.kind)
    if found is None:
        raise StrategyError(f"task {task.task_id}: family {task.family!r} gives no answer from the signals "
                            "its task shows (TaskFamily.signal_answer returned None)", field="family")
    answer, support = found
    return answer, support


def baseline_answer(forecaster: Forecaster, task: Task) -> tuple[BaseModel, SupportArtifact]:
    """The forecaster's answer to ``task`` by its family's strategy, checked: an answer of the family's
    schema and a SupportArtifact (a StrategyError naming the strategy otherwise)."""
    family = get_family(task.family)
    name = family.baseline_strategy
    if name is None:
        raise StrategyError(f"family {family.name!r} names no baseline strategy "
                            f"(TaskFamily.baseline_strategy); the {forecaster.kind} forecaster cannot answer "
                            "its tasks", field="family")
    strategy = _STRATEGIES.get(name)
    if strategy is None:
        raise StrategyError(f"family {family.name!r}: unknown baseline strategy {name!r}; known: "
                            f"{', '.join(_STRATEGIES)} (an extension registers its own with "
                            "foresci.agents.baselines.strategies.register_strategy)",
                            field="baseline_strategy")
    returned = strategy(forecaster, task)
    where = f"family {family.name!r}: baseline strategy {name!r}"
    if not (isinstance(returned, tuple) and len(returned) == 2):
        raise StrategyError(f"{where} returned {type(returned).__name__}, not (answer, SupportArtifact)")
    answer, support = returned
    if not isinstance(answer, family.answer_schema):
        raise StrategyError(f"{where} returned an answer of type {type(answer).__name__}, not the family's "
                            f"{family.answer_schema.__name__}")
    if not isinstance(support, SupportArtifact):
        raise StrategyError(f"{where} returned support {support!r}, not a foresci.contracts.SupportArtifact")
    return answer, support
