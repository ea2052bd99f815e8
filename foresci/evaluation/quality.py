"""Forecaster quality per family with uncertainty: top-1 and FTA with bootstrap 95 % intervals, next to
chance (a uniformly random pick among the task's options, whose expected top-1 is 1 / options).

Top-1 is strict: the first pick is the hidden primary direction (direction) or the hidden first item
(planning, venue); an acceptable neighbour does not count. FTA is the judged ``fta`` where present, else
its offline approximation ``fta_offline_claims`` (answer sentences instead of extracted claims). The
demo's terminal summary and ``benchmarks/foresight_signal.py`` both read it from scored rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from foresci.evaluation.models import Score
from foresci.evaluation.stats import MeanWithInterval, bootstrap_mean, cluster_bootstrap_mean
from foresci.tasks.models import Task

CHANCE = "chance"


@dataclass
class FamilyQuality:
    """Per method: top-1 and FTA values of one family, task by task (task ids aligned across methods)."""

    family: str
    top1: dict[str, dict[str, float]] = field(default_factory=dict)
    fta: dict[str, dict[str, float]] = field(default_factory=dict)

    def methods(self) -> list[str]:
        """Methods with top-1 or FTA values, chance last."""
        names = (set(self.top1) | set(self.fta)) - {CHANCE}
        return sorted(names) + ([CHANCE] if CHANCE in self.top1 else [])

    def interval(self, metric: str, method: str, samples: int = 2000, seed: int = 11,
                 cluster_of: Callable[[str], str] | None = None,
                 equal_clusters: bool = False) -> MeanWithInterval | None:
        """Mean and bootstrap 95 % interval of ``metric`` ('top1' or 'fta') for one method.

        ``cluster_of`` (task id -> cluster, e.g. its world): resample whole clusters, not tasks;
        ``equal_clusters``: and average the clusters' means, each cluster counting once.
        """
        values = getattr(self, metric).get(method, {})
        return _interval(values, samples, seed, cluster_of, equal_clusters) if values else None

    def paired_difference(self, metric: str, left: str, right: str, samples: int = 2000, seed: int = 11,
                          cluster_of: Callable[[str], str] | None = None,
                          equal_clusters: bool = False) -> MeanWithInterval | None:
        """Mean and bootstrap 95 % interval of ``left - right`` over the tasks both answered."""
        table = getattr(self, metric)
        shared = sorted(set(table.get(left, {})) & set(table.get(right, {})))
        if not shared:
            return None
        return _interval({task: table[left][task] - table[right][task] for task in shared}, samples, seed,
                         cluster_of, equal_clusters)


def _interval(values: Mapping[str, float], samples: int, seed: int,
              cluster_of: Callable[[str], str] | None, equal_clusters: bool = False) -> MeanWithInterval:
    if cluster_of is None:
        return bootstrap_mean(list(values.values()), samples, seed)
    clusters: dict[str, list[float]] = {}
    for task, value in values.items():
        clusters.setdefault(cluster_of(task), []).append(value)
    return cluster_bootstrap_mean([clusters[name] for name in sorted(clusters)], samples, seed,
                                  equal_weights=equal_clusters)


def family_quality(scores: Iterable[Score], tasks: Mapping[str, Task]) -> dict[str, FamilyQuality]:
    """Collect strict top-1 and FTA per family and method (label ``method`` or ``method·model``), plus
    chance's expected top-1 for every task with options. Rows without the metric are skipped."""
    result: dict[str, FamilyQuality] = {}
    for row in scores:
        task = tasks.get(row.task_id)
        if task is None:
            continue
        quality = result.setdefault(row.family, FamilyQuality(row.family))
        label = row.method if not row.model else f"{row.method}·{row.model}"
        top = row.metrics.get("top_choice")
        if top is not None and top.value is not None:
            quality.top1.setdefault(label, {})[row.task_id] = 1.0 if top.value >= 1.0 else 0.0
            if task.candidates:
                quality.top1.setdefault(CHANCE, {})[row.task_id] = 1.0 / len(task.candidates)
        fta = row.metrics.get("fta") or row.metrics.get("fta_offline_claims")
        if fta is not None and fta.value is not None and fta.available:
            quality.fta.setdefault(label, {})[row.task_id] = float(fta.value)
    return result


def _cell(interval: MeanWithInterval | None) -> str:
    if interval is None:
        return "–"
    return f"{interval.mean:.3f} [{interval.low:.3f}, {interval.high:.3f}]"


def quality_rows(quality: FamilyQuality, samples: int = 2000, seed: int = 11,
                 cluster_of: Callable[[str], str] | None = None) -> list[list[str]]:
    """Rows (method, n, top-1 [95 % CI], FTA [95 % CI]) of one family, chance last (``cluster_of``: see
    :meth:`FamilyQuality.interval`)."""
    rows = []
    for method in quality.methods():
        top = quality.interval("top1", method, samples, seed, cluster_of)
        fta = quality.interval("fta", method, samples, seed, cluster_of) if method != CHANCE else None
        rows.append([method, str(top.n if top else 0), _cell(top), _cell(fta)])
    return rows


def quality_table(quality: FamilyQuality, samples: int = 2000, seed: int = 11) -> Any:
    """A rich Table of one family's forecaster quality with chance and the 95 % intervals."""
    from rich.table import Table

    title = f"{quality.family.replace('_', ' ')}: top-1 and FTA, mean [95 % CI]"
    table = Table(title=title)
    for name, justify in (("method", "left"), ("n", "right"), ("top-1", "right"), ("FTA", "right")):
        table.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for row in quality_rows(quality, samples, seed):
        table.add_row(*row)
    return table


def chance_level(quality: FamilyQuality) -> float | None:
    """Mean expected top-1 of a uniformly random pick over the family's tasks."""
    values = list(quality.top1.get(CHANCE, {}).values())
    return float(np.mean(values)) if values else None
