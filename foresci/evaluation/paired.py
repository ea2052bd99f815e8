"""Paired differences between entries of one method that differ by run label or version (``foresci report
A B``): per metric, the mean of (later - earlier) over the tasks both answered, with wins and losses."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from itertools import combinations
from typing import Any

from foresci.evaluation.diagnostics import metric_value
from foresci.evaluation.models import Score


def base_method(method: str) -> str:
    """``label/method@version`` without its label and version."""
    return method.split("/", 1)[-1].split("@", 1)[0]


def paired_differences(scores: Sequence[Score], metrics: Sequence[str]) -> list[dict[str, Any]]:
    """One record per (pair of entries of the same method, backbone and mode, metric) with common tasks:
    both sides' means over those tasks, the mean of the differences (B - A), and B's wins and losses."""
    rows: dict[tuple[str, str | None, str], dict[str, Score]] = defaultdict(dict)
    for score in scores:
        if score.status == "ok":
            rows[(score.method, score.model, score.mode)][score.task_id] = score
    found: list[dict[str, Any]] = []
    for first, second in combinations(sorted(rows, key=lambda key: (key[0], key[1] or "", key[2])), 2):
        if (base_method(first[0]), first[1], first[2]) != (base_method(second[0]), second[1], second[2]):
            continue
        common = sorted(set(rows[first]) & set(rows[second]))
        for name in metrics:
            pairs = [(a, b) for task in common
                     if (a := metric_value(rows[first][task], name)) is not None
                     and (b := metric_value(rows[second][task], name)) is not None]
            if not pairs:
                continue
            differences = [b - a for a, b in pairs]
            found.append({"a": first[0], "b": second[0], "model": first[1], "mode": first[2], "metric": name,
                          "n": len(pairs), "a_mean": sum(a for a, _ in pairs) / len(pairs),
                          "b_mean": sum(b for _, b in pairs) / len(pairs),
                          "mean_difference": sum(differences) / len(differences),
                          "b_better": sum(d > 0 for d in differences),
                          "b_worse": sum(d < 0 for d in differences)})
    return found


def paired_lines(found: Sequence[dict[str, Any]]) -> list[str]:
    """One text line per paired difference."""
    return [f"{row['b']} vs {row['a']}: {row['metric']} {row['mean_difference']:+.3f} over {row['n']} "
            f"task(s) ({row['b_better']} better, {row['b_worse']} worse)" for row in found]
