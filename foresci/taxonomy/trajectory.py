"""Trajectory of a node over a window: accelerating / fragmenting / steady / cooling.

Momentum is measured relative to a reference (the domain's own monthly total, or stable categories),
never in raw counts: a field that doubles in size does not make every node 'accelerating'.

``lift = share_window / share_baseline`` where ``share = (node papers + pseudo) / reference papers``
over the months of the window or baseline. With the rules of ``taxonomy/trajectory.yaml``:

1. lift >= ``accelerating_lift``                             -> accelerating
2. lift <= ``cooling_lift``                                  -> cooling
3. children given, >= ``fragmenting_min_children`` active in the window, and the normalised entropy
   of the children's shares rose by >= ``fragmenting_entropy_rise``   -> fragmenting
4. otherwise                                                 -> steady
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date, timedelta
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from foresci.core.resources import declarative_file
from foresci.core.yamlio import load_yaml_model
from foresci.taxonomy.models import Snapshot, Trajectory
from foresci.taxonomy.text import entropy


class TrajectoryRules(BaseModel):
    """Thresholds of the trajectory rules (see module docstring)."""

    model_config = ConfigDict(extra="forbid")

    accelerating_lift: float = Field(default=1.3, gt=1.0)
    cooling_lift: float = Field(default=0.77, gt=0.0, lt=1.0)
    pseudo_count: float = Field(default=1.0, ge=0.0, description="added to node counts (small-count damping)")
    fragmenting_entropy_rise: float = Field(default=0.1, gt=0.0)
    fragmenting_min_children: int = Field(default=2, ge=2)
    fragmenting_min_child_papers: int = Field(default=2, ge=1, description="window papers for a child to be "
                                                                            "active")

    @classmethod
    def load(cls, path: Path | None = None) -> TrajectoryRules:
        """Read the thresholds YAML (default ``taxonomy/trajectory.yaml``); errors name the file."""
        path = path or declarative_file("taxonomy", "trajectory.yaml")
        return load_yaml_model(path, cls, "trajectory rules", section="rules")


class TrajectoryMeasure(BaseModel):
    """The numbers behind a trajectory label."""

    model_config = ConfigDict(extra="forbid")

    label: Trajectory
    lift: float = Field(description="share in window / share in baseline")
    node_window: int
    node_baseline: int
    reference_window: int
    reference_baseline: int
    entropy_baseline: float | None = None
    entropy_window: float | None = None
    active_children: int = 0


def months_between(start: date, end: date) -> list[str]:
    """'YYYY-MM' keys of every month overlapping ``start``..``end`` (inclusive)."""
    if end < start:
        raise ValueError(f"range end {end} is before its start {start}")
    keys: list[str] = []
    year, month = start.year, start.month
    while (year, month) <= (end.year, end.month):
        keys.append(f"{year:04d}-{month:02d}")
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return keys


def _total(monthly: dict[str, int], months: Sequence[str]) -> int:
    return int(sum(monthly.get(month, 0) for month in months))


def _normalised_entropy(counts: Sequence[float]) -> float:
    active = sum(1 for value in counts if value > 0)
    return entropy(counts) / math.log(active) if active > 1 else 0.0


def measure_trajectory(node_monthly: dict[str, int], reference_monthly: dict[str, int],
                       window: tuple[date, date], baseline: tuple[date, date],
                       rules: TrajectoryRules | None = None,
                       child_monthly: list[dict[str, int]] | None = None) -> TrajectoryMeasure:
    """Measure a node's momentum in ``window`` against ``baseline`` and label it (see module doc).

    Raises ValueError when the reference has no papers in the window or the baseline.
    """
    rules = rules or TrajectoryRules.load()
    window_months, baseline_months = months_between(*window), months_between(*baseline)
    reference_window = _total(reference_monthly, window_months)
    reference_baseline = _total(reference_monthly, baseline_months)
    if reference_window <= 0 or reference_baseline <= 0:
        raise ValueError(f"reference has no papers in window {window} ({reference_window}) or baseline "
                         f"{baseline} ({reference_baseline}); cannot normalise")
    node_window = _total(node_monthly, window_months)
    node_baseline = _total(node_monthly, baseline_months)
    lift = ((node_window + rules.pseudo_count) / reference_window) / (
        (node_baseline + rules.pseudo_count) / reference_baseline)
    measure = TrajectoryMeasure(label="steady", lift=round(lift, 4), node_window=node_window,
                                node_baseline=node_baseline, reference_window=reference_window,
                                reference_baseline=reference_baseline)
    if child_monthly:
        child_window = [_total(child, window_months) for child in child_monthly]
        child_baseline = [_total(child, baseline_months) for child in child_monthly]
        measure.entropy_window = round(_normalised_entropy(child_window), 4)
        measure.entropy_baseline = round(_normalised_entropy(child_baseline), 4)
        measure.active_children = sum(1 for value in child_window
                                      if value >= rules.fragmenting_min_child_papers)
    if lift >= rules.accelerating_lift:
        measure.label = "accelerating"
    elif lift <= rules.cooling_lift:
        measure.label = "cooling"
    elif (measure.entropy_window is not None and measure.entropy_baseline is not None
          and measure.active_children >= rules.fragmenting_min_children
          and measure.entropy_window - measure.entropy_baseline >= rules.fragmenting_entropy_rise):
        measure.label = "fragmenting"
    return measure


def classify_trajectory(node_monthly: dict[str, int], reference_monthly: dict[str, int],
                        window: tuple[date, date], baseline: tuple[date, date],
                        rules: TrajectoryRules | None = None,
                        child_monthly: list[dict[str, int]] | None = None) -> Trajectory:
    """The trajectory label of a node in ``window`` relative to ``baseline`` (see measure_trajectory)."""
    return measure_trajectory(node_monthly, reference_monthly, window, baseline, rules, child_monthly).label


def _month_start(day: date, months_back: int) -> date:
    """First day of the month ``months_back`` months before ``day``'s month."""
    index = day.year * 12 + day.month - 1 - months_back
    return date(index // 12, index % 12 + 1, 1)


def attach_recent_momentum(snapshot: Snapshot, recent_months: int, baseline_months: int,
                           rules: TrajectoryRules | None = None) -> None:
    """Set ``recent_trajectory``/``recent_lift`` of every node from pre-cutoff counts only (in place).

    Window: the ``recent_months`` calendar months ending with the cutoff's month; baseline: the
    ``baseline_months`` before them; shares of ``snapshot.reference_monthly``. Nodes stay unset when
    the reference is empty in either range.
    """
    window = (_month_start(snapshot.cutoff, recent_months - 1), snapshot.cutoff)
    baseline = (_month_start(snapshot.cutoff, recent_months + baseline_months - 1),
                _month_start(snapshot.cutoff, recent_months - 1) - timedelta(days=1))
    window_months, baseline_months_keys = months_between(*window), months_between(*baseline)
    if _total(snapshot.reference_monthly, window_months) <= 0 or _total(
            snapshot.reference_monthly, baseline_months_keys) <= 0:
        return
    for node in snapshot.nodes:
        children = [child.monthly_counts for child in snapshot.children(node.node_id)]
        measure = measure_trajectory(node.monthly_counts, snapshot.reference_monthly, window, baseline, rules,
                                     children or None)
        node.recent_trajectory = measure.label
        node.recent_lift = measure.lift
