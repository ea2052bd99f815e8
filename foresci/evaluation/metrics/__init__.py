"""Metrics as objects: one :class:`Metric` per metric, a registry, and the ``ScoringContext`` they read.

Every list of metrics (score rows, leaderboard columns, the Table-2 pivot, heatmaps, diagnostics, the
metric legend and docs, the scoring revision) derives from the registry. A new metric is one module
that subclasses :class:`Metric` and decorates it with ``@register_metric``; outside foresci it is loaded
as an extension (``FORESCI_EXTENSIONS=my_module``). Shipped metrics, one module each
(``SHIPPED_MODULES``, their order stated once in :mod:`foresci.evaluation.metrics.base`):

  fact, fta, trace, pers                     the ForeSci metrics (fact, trace, pers: judge phase)
  fact_offline, fta_offline_claims,
  trace_offline                              their offline stand-ins
  top_choice                                 first pick right (Top-1)
  plan_outcome                               a plan's milestones and go/no-go against the window
  crps, brier, coverage                      forecast proper scores, skill and coverage indicators
"""

import importlib

from foresci.evaluation.metrics.base import (
    FORECAST_FAMILY,
    SHIPPED_MODULES,
    Metric,
    MetricError,
    all_metrics,
    forecast_metric_names,
    get_metric,
    headline_metric_names,
    higher_is_better,
    judge_metric_names,
    metric_info,
    metric_label,
    metric_labels,
    metrics_for,
    offline_stand_ins,
    register_metric,
    task_metric_names,
    unregister_metric,
)
from foresci.evaluation.metrics.context import JudgedParts, ScoringContext, answer_text, judge_failed

for _module in SHIPPED_MODULES:  # registered on import (the order is base.SHIPPED_MODULES')
    importlib.import_module(f"{__name__}.{_module}")

__all__ = [
    "FORECAST_FAMILY",
    "JudgedParts",
    "Metric",
    "MetricError",
    "SHIPPED_MODULES",
    "ScoringContext",
    "all_metrics",
    "answer_text",
    "forecast_metric_names",
    "get_metric",
    "headline_metric_names",
    "higher_is_better",
    "judge_failed",
    "judge_metric_names",
    "metric_info",
    "metric_label",
    "metric_labels",
    "metrics_for",
    "offline_stand_ins",
    "register_metric",
    "task_metric_names",
    "unregister_metric",
]
