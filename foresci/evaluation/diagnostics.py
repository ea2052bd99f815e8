"""Diagnostics over scored rows (ForeSci App. F): low-score rates, correlations, conflicts, foresight lift."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.stats import pearsonr, spearmanr

from foresci.evaluation.metrics import headline_metric_names, higher_is_better, offline_stand_ins
from foresci.evaluation.models import Score
from foresci.evaluation.stats import low_score_weights


def metric_value(score: Score, name: str) -> float | None:
    """The value of a metric on a row, or None when missing, unavailable or not applicable."""
    result = score.metrics.get(name)
    if result is None or not result.available or result.value is None:
        return None
    return float(result.value)


Plan = dict[tuple[str, str], str]


def metric_plan(scores: Sequence[Score]) -> Plan:
    """Per (family, content metric): the metric name diagnostics use for that family.

    The judged metric when any row of the family has it, else its offline stand-in, so one family never
    mixes judged and offline values (rows lacking the chosen metric are left out of it). FTA of
    planning/venue is deterministic, so 'fta' is chosen there in offline runs too.
    """
    plan: Plan = {}
    stand_ins = offline_stand_ins()
    for family in {score.family for score in scores}:
        rows = [score for score in scores if score.family == family]
        for name, stand_in in stand_ins.items():
            judged = any(metric_value(score, name) is not None for score in rows)
            plan[(family, name)] = name if judged else stand_in
    return plan


def diagnostic_value(score: Score, name: str, plan: Plan | None = None) -> tuple[float | None, str]:
    """The row's value for a content metric under ``plan`` (see :func:`metric_plan`), and the name used.

    Without a plan the judged metric is used when the row has it, else its offline stand-in.
    """
    if plan is not None:
        used = plan.get((score.family, name), name)
        return metric_value(score, used), used
    value = metric_value(score, name)
    stand_in = offline_stand_ins().get(name)
    if value is not None or stand_in is None:
        return value, name
    return metric_value(score, stand_in), stand_in


def _task_rows(scores: Sequence[Score]) -> list[Score]:
    return [score for score in scores if score.status == "ok" and score.family != "forecast"]


def low_score_rates(scores: Sequence[Score], fraction: float = 0.2) -> dict[str, Any]:
    """Share of each family's and each method's rows in the rank-selected bottom ``fraction`` per metric.

    Rows where a metric is not applicable (e.g. Trace of native answers) are left out of that metric;
    rows tied at the boundary share the remaining low-score slots (see ``low_score_weights``). Where
    some families use a judged metric and others its offline stand-in, each is ranked on its own. The
    metrics are the headline ones; for a metric where lower is better, the highest values are the low
    scores.
    """
    rows = _task_rows(scores)
    plan = metric_plan(rows)
    by_family: dict[str, dict[str, float]] = defaultdict(dict)
    by_method: dict[str, dict[str, float]] = defaultdict(dict)
    used: dict[str, str] = {}
    for name in headline_metric_names():
        sign = 1.0 if higher_is_better(name) else -1.0
        present = [
            (score, value, used_name)
            for score in rows
            for value, used_name in [diagnostic_value(score, name, plan)]
            if value is not None
        ]
        if not present:
            continue
        used[name] = ", ".join(sorted({used_name for _, _, used_name in present}))
        weights = np.zeros(len(present))
        for used_name in {entry[2] for entry in present}:  # judged and offline values ranked apart
            positions = [index for index, entry in enumerate(present) if entry[2] == used_name]
            weights[positions] = low_score_weights(
                [sign * present[index][1] for index in positions], fraction
            )
        for grouping, key_of in ((by_family, lambda s: s.family), (by_method, lambda s: s.method)):
            totals: dict[str, int] = defaultdict(int)
            lows: dict[str, float] = defaultdict(float)
            for (score, _, _), weight in zip(present, weights, strict=True):
                totals[key_of(score)] += 1
                lows[key_of(score)] += float(weight)
            for group, total in totals.items():
                grouping[group][name] = lows[group] / total
    return {
        "fraction": fraction,
        "by_family": dict(by_family),
        "by_method": dict(by_method),
        "metrics_used": used,
    }


def metric_correlations(
    scores: Sequence[Score], names: Sequence[str] = ("fact", "fta", "pers")
) -> list[dict[str, Any]]:
    """Spearman and Pearson correlation of each metric pair over rows where both are available."""
    rows = _task_rows(scores)
    plan = metric_plan(rows)
    results = []
    for index, first in enumerate(names):
        for second in names[index + 1 :]:
            pairs: list[tuple[float, float]] = []
            used: set[str] = set()
            for score in rows:
                (a, a_name), (b, b_name) = (
                    diagnostic_value(score, first, plan),
                    diagnostic_value(score, second, plan),
                )
                if a is not None and b is not None:
                    pairs.append((a, b))
                    used.update((a_name, b_name))
            entry: dict[str, Any] = {
                "pair": f"{first}~{second}",
                "metrics_used": sorted(used),
                "n": len(pairs),
                "spearman": None,
                "pearson": None,
            }
            if len(pairs) >= 3:
                left, right = np.array(pairs).T
                if np.ptp(left) > 0 and np.ptp(right) > 0:
                    entry["spearman"] = float(spearmanr(left, right).statistic)
                    entry["pearson"] = float(pearsonr(left, right).statistic)
            results.append(entry)
    return results


def fact_fta_conflicts(scores: Sequence[Score], gap: float = 0.5, limit: int = 50) -> dict[str, Any]:
    """Rows with |Fact - FTA| >= gap: counts (high-FTA/low-Fact and the reverse) and the largest cases."""
    cases: list[dict[str, Any]] = []
    rows = _task_rows(scores)
    plan = metric_plan(rows)
    for score in rows:
        fact, fact_name = diagnostic_value(score, "fact", plan)
        fta, fta_name = diagnostic_value(score, "fta", plan)
        if fact is None or fta is None or abs(fact - fta) < gap:
            continue
        cases.append(
            {
                "task_id": score.task_id,
                "family": score.family,
                "method": score.method,
                "model": score.model,
                "fact": fact,
                "fta": fta,
                "gap": fta - fact,
                "metrics": f"{fact_name}/{fta_name}",
            }
        )
    cases.sort(key=lambda case: -abs(case["gap"]))
    return {
        "gap": gap,
        "count": len(cases),
        "high_fta_low_fact": sum(1 for case in cases if case["gap"] > 0),
        "high_fact_low_fta": sum(1 for case in cases if case["gap"] < 0),
        "cases": cases[:limit],
    }


def _means_by_task(
    scores: Sequence[Score], metric: str
) -> tuple[dict[tuple[str, str | None, str], dict[str, float]], set[str]]:
    table: dict[tuple[str, str | None, str], dict[str, float]] = defaultdict(dict)
    used: set[str] = set()
    rows = _task_rows(scores)
    plan = metric_plan(rows)
    for score in rows:
        value, used_name = diagnostic_value(score, metric, plan)
        if value is not None:
            table[(score.method, score.model, score.mode)][score.task_id] = value
            used.add(used_name)
    return table, used


def foresight_lift(
    scores: Sequence[Score],
    persistence_method: str = "persistence",
    metrics: Sequence[str] = ("fta", "fact", "top_choice"),
) -> list[dict[str, Any]]:
    """Method - baseline on shared tasks: vs persistence, and vs the same method in name_only mode."""
    lifts = []
    for metric in metrics:
        table, used = _means_by_task(scores, metric)
        persistence = {
            task: value
            for (method, _, mode), values in table.items()
            if method == persistence_method and mode == "full"
            for task, value in values.items()
        }
        for (method, model, mode), values in sorted(table.items(), key=lambda item: str(item[0])):
            if mode != "full" or method == persistence_method:
                continue
            entry: dict[str, Any] = {
                "metric": metric,
                "method": method,
                "model": model,
                "metrics_used": sorted(used),
            }
            shared = sorted(set(values) & set(persistence))
            if shared:
                entry["vs_persistence"] = float(np.mean([values[t] - persistence[t] for t in shared]))
                entry["n_persistence"] = len(shared)
            name_only = table.get((method, model, "name_only"), {})
            shared = sorted(set(values) & set(name_only))
            if shared:
                entry["vs_name_only"] = float(np.mean([values[t] - name_only[t] for t in shared]))
                entry["n_name_only"] = len(shared)
            if len(entry) > 4:
                lifts.append(entry)
    return lifts
