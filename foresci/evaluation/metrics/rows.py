"""What a metric may be declared for (``Metric.families``) besides a task family's name: the forecast
question rows, or every task family."""

from __future__ import annotations

FORECAST_FAMILY = "forecast"  # the rows of forecast questions (forecasts.jsonl), not of tasks
ANY_TASK_FAMILY = "*"  # every task family, shipped or registered by an extension
