"""The ``Metric`` object and the metric registry: one object per metric, every metric list derived from it.

A metric is a subclass of :class:`Metric` registered with ``@register_metric``. Its class attributes say
where it applies (``families``), how it is computed (``phase``: on the driver with the embedder, or in the
judge phase with the LLM judge), how rows reduce (``aggregate``), which way is better
(``higher_is_better``: read by the leader marks, p-values and low-score diagnostics), which offline
metric stands in for it, and how it is shown (``label``, ``description``, ``headline``, ``legend``).
:meth:`Metric.compute` scores one answer row from its ``ScoringContext`` (``metrics/context.py``).

The registry holds the shipped metrics (imported by this package) and every metric an extension module
registers (``FORESCI_EXTENSIONS`` or the entry-point group ``foresci.extensions``): extensions are loaded
before the registry is read, so a third-party metric is one file outside foresci.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar

from foresci.core.errors import UserError
from foresci.core.registry import Registry
from foresci.evaluation.metrics.rows import ANY_TASK_FAMILY as ANY_TASK_FAMILY
from foresci.evaluation.metrics.rows import FORECAST_FAMILY as FORECAST_FAMILY

if TYPE_CHECKING:
    from foresci.evaluation.config import EvaluationSettings
    from foresci.evaluation.metrics.context import ScoringContext
    from foresci.evaluation.models import MetricResult

Kind = Literal["judged", "deterministic", "offline approximation", "proper score"]
Phase = Literal["score", "judge"]
Aggregate = Literal["mean", "custom"]


class MetricError(UserError):
    """A metric definition that cannot be registered, or a metric name that is not registered."""


class Metric:
    """One metric: how it is computed on one answer row, where it applies, how it reduces and is shown.

    Subclasses set the class attributes and implement :meth:`compute`; ``@register_metric`` registers one
    instance. Nothing is bumped by hand when a metric changes: the scoring revision (which invalidates
    stored score rows) hashes each metric's name, ``version`` and source.
    """

    name: ClassVar[str]
    """The metric's key in scores.jsonl and summary.json."""
    label: ClassVar[str]
    """Column label in leaderboards, the Table-2 pivot, heatmaps and the report."""
    description: ClassVar[str]
    """What it measures and how (the metric legend and the docs)."""
    kind: ClassVar[Kind] = "deterministic"
    higher_is_better: ClassVar[bool] = True
    families: ClassVar[tuple[str, ...] | str] = ANY_TASK_FAMILY
    """The families it declares it applies to: names, or ``"*"`` for every task family (not forecasts;
    the default, so a third-party metric applies to existing families without editing them). It also
    applies wherever a family lists it (``TaskFamily.metrics``): shipped task metrics declare ``()``
    and apply exactly where the families list them."""
    phase: ClassVar[Phase] = "score"
    """``score``: computed where the embedder is (one thread); ``judge``: computed with the LLM judge
    (concurrently, or on Ray workers), and by :meth:`offline` in offline evaluations."""
    aggregate: ClassVar[Aggregate | None] = "mean"
    """How rows reduce in leaderboards: ``"mean"`` (bootstrap mean with a 95 % interval), ``"custom"``
    (:meth:`reduce`), or None (no leaderboard column: the forecast section reduces coverage and skill
    itself)."""
    offline_stand_in: ClassVar[str | None] = None
    """The metric that stands in for this one where no judged value exists (Table 2, diagnostics)."""
    headline: ClassVar[bool] = False
    """A headline metric: a column of the Table-2 pivot and the low-score heatmaps and diagnostics."""
    legend: ClassVar[bool] = True
    """Listed in the metric legend (summary.json ``metric_info``, the report) and its leaderboards."""
    version: ClassVar[int] = 1
    """Part of the scoring revision beside the metric's source; raise it to force re-scoring by hand."""

    def applies_to(self, family: str) -> bool:
        """True when this metric scores answers of ``family`` (declared here, or listed by the family)."""
        if self.families == ANY_TASK_FAMILY:
            if family != FORECAST_FAMILY:
                return True
        elif family in self.families:
            return True
        return self.name in family_metric_names(family)

    def compute(self, context: ScoringContext) -> MetricResult | None:
        """The metric on the context's answer row; None when it does not apply to this row."""
        raise NotImplementedError(f"metric {self.name!r} ({type(self).__qualname__}) has no compute()")

    def reduce(self, values: Sequence[float], settings: EvaluationSettings) -> dict[str, Any]:
        """A custom leaderboard cell from the rows' values (``aggregate = "custom"``): a dict with at
        least ``mean`` (the value leaders are picked by) and ``n``."""
        raise NotImplementedError(f"metric {self.name!r} has aggregate 'custom' but no reduce()")

    def note(self, result: MetricResult) -> str:
        """A one-line note on an available result for the report's drill-down ('' for none)."""
        return ""

    def offline(self, context: ScoringContext) -> MetricResult | None:
        """A judge-phase metric's result in an offline evaluation (None: absent from the row)."""
        return None

    def info(self) -> dict[str, Any]:
        """The metric as plain data for the legend (summary.json ``metric_info``)."""
        return {
            "name": self.name,
            "label": self.label,
            "kind": self.kind,
            "description": self.description,
            "higher_is_better": self.higher_is_better,
        }


def family_metric_names(family: str) -> tuple[str, ...]:
    """The metric names a registered task family lists (an UnknownFamilyError for an unknown family)."""
    if family == FORECAST_FAMILY:
        return ()
    from foresci.tasks.families import get_family

    return tuple(get_family(family).metrics)


SHIPPED_MODULES = (
    "fact", "fta", "trace", "pers", "fact_offline", "fta_offline_claims", "trace_offline", "top_choice",
    "plan_outcome", "crps", "brier", "coverage",
)
"""The shipped metric modules of :mod:`foresci.evaluation.metrics`, in the order of the metric legend and
the leaderboard columns (score rows are written with sorted keys): stated here once."""

_METRICS: Registry[Metric] = Registry("metric", tuple(f"foresci.evaluation.metrics.{name}"
                                                      for name in SHIPPED_MODULES),
                                      lambda metric: type(metric).__module__)
_REGISTRY = _METRICS.entries  # name -> metric, in registration order
MetricT = TypeVar("MetricT", bound=type[Metric])


def _check(metric: Metric) -> None:
    where = f"{type(metric).__module__}.{type(metric).__qualname__}"
    for attribute in ("name", "label", "description"):
        value = getattr(metric, attribute, None)
        if not isinstance(value, str) or not value.strip():
            raise MetricError(f"metric class {where} needs a non-empty string {attribute!r}", field=attribute)
    if metric.phase not in ("score", "judge"):
        raise MetricError(f"metric {metric.name!r}: phase must be 'score' or 'judge'", field="phase")
    if metric.aggregate not in ("mean", "custom", None):
        raise MetricError(f"metric {metric.name!r}: aggregate must be 'mean', 'custom' or None",
                          field="aggregate")


def register_metric(metric: MetricT) -> MetricT:
    """Register a :class:`Metric` subclass (one instance of it); usable as a class decorator.

    Registering the same class again (a module imported twice) is a no-op; another class under a taken
    name is a :class:`MetricError`.
    """
    instance = metric()
    _check(instance)
    known = _REGISTRY.get(instance.name)
    if known is not None:
        if type(known).__qualname__ == metric.__qualname__ and type(known).__module__ == metric.__module__:
            return metric
        raise MetricError(
            f"metric name {instance.name!r} of {metric.__module__}.{metric.__qualname__} is taken by "
            f"{type(known).__module__}.{type(known).__qualname__}",
            field="name",
        )
    _METRICS.add(instance.name, instance)
    return metric


def unregister_metric(name: str) -> None:
    """Remove a metric from the registry (tests that register toy metrics restore it this way)."""
    _METRICS.remove(name)


def all_metrics() -> list[Metric]:
    """Every registered metric, shipped ones first, in registration order (extensions loaded first)."""
    return list(_METRICS.ordered())


def get_metric(name: str) -> Metric:
    """The registered metric called ``name``; a :class:`MetricError` listing the known ones otherwise."""
    metrics = {metric.name: metric for metric in all_metrics()}
    if name not in metrics:
        raise MetricError(f"unknown metric {name!r}; registered: {', '.join(metrics)}")
    return metrics[name]


def metrics_for(family: str, phase: Phase | None = None) -> list[Metric]:
    """The metrics that apply to ``family`` (of ``phase`` when given), in registration order."""
    return [
        metric for metric in all_metrics()
        if metric.applies_to(family) and (phase is None or metric.phase == phase)
    ]


def task_metric_names() -> tuple[str, ...]:
    """Leaderboard columns of task answers: legend metrics that apply to a task family and reduce to a
    cell (registration order)."""
    return tuple(
        metric.name for metric in all_metrics()
        if metric.legend and metric.aggregate is not None and metric.families != (FORECAST_FAMILY,)
    )


def forecast_metric_names() -> tuple[str, ...]:
    """Forecast-leaderboard columns: forecast metrics that reduce to a cell (registration order)."""
    return tuple(
        metric.name for metric in all_metrics()
        if metric.aggregate is not None and metric.families == (FORECAST_FAMILY,)
    )


def headline_metric_names() -> tuple[str, ...]:
    """The headline metrics (Table 2, heatmaps, diagnostics) in registration order."""
    return tuple(metric.name for metric in all_metrics() if metric.headline)


def offline_stand_ins() -> dict[str, str]:
    """Headline metric -> the offline metric standing in for it where no judged value exists."""
    return {
        metric.name: metric.offline_stand_in
        for metric in all_metrics()
        if metric.headline and metric.offline_stand_in
    }


def judge_metric_names() -> tuple[str, ...]:
    """The judge-phase metrics (computed with the LLM judge)."""
    return tuple(metric.name for metric in all_metrics() if metric.phase == "judge")


def metric_labels() -> dict[str, str]:
    """Column label of each legend metric."""
    return {metric.name: metric.label for metric in all_metrics() if metric.legend}


def metric_label(name: str) -> str:
    """The column label of a metric (its name when unregistered)."""
    return next((metric.label for metric in all_metrics() if metric.name == name), name)


def metric_info() -> dict[str, dict[str, Any]]:
    """Every legend metric as plain data (summary.json ``metric_info`` and the report legend)."""
    return {metric.name: metric.info() for metric in all_metrics() if metric.legend}


def higher_is_better(name: str) -> bool:
    """The direction of a metric (True for names not registered)."""
    return next((metric.higher_is_better for metric in all_metrics() if metric.name == name), True)
