"""bottleneck_opportunity in a release audit (:mod:`foresci.tasks.release_defects`): the share of targets
whose addressing share rises in the window (goal 100 %; from the recorded ``rise_test``, else read from the
mechanism line "a of the w window papers ... against b of p before" and tested the same way) and the
primary opportunities' specificity (recorded lift against the domain's other window papers)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from foresci.tasks.families.bottleneck_opportunity.acceptance import MIN_SPECIFICITY_LIFT, rise_test, rises
from foresci.tasks.hidden import HiddenTarget
from foresci.tasks.models import Task

MECHANISM = re.compile(r"(\d+) of the (\d+) window papers.*?against (\d+) of (\d+) before")


def bottleneck_rise(hidden: HiddenTarget) -> dict[str, float] | None:
    """The target's rise test: recorded, else recomputed from its mechanism line; None when neither."""
    recorded = hidden.stats.get("rise_test")
    if isinstance(recorded, dict):
        return {str(key): float(value) for key, value in recorded.items()}
    found = MECHANISM.search(str(getattr(hidden, "mechanism", "") or ""))
    if found is None:
        return None
    after, window, before, pre = (int(value) for value in found.groups())
    return rise_test(before, pre, after, window)


def primary_opportunity_lift(hidden: HiddenTarget) -> float | None:
    """The recorded specificity lift of the target's primary opportunity (its first), None when not
    recorded. The lifts are stored by phrase, and a release writes keys sorted, so the first stored
    lift is the alphabetically first opportunity's, not the primary's."""
    lifts = dict(hidden.stats.get("opportunity_lift") or {})
    opportunities = list(getattr(hidden, "opportunity", []) or [])
    if not opportunities or opportunities[0] not in lifts:
        return None
    return float(lifts[opportunities[0]])


def defect_figures(tasks: Sequence[Task], hidden: Mapping[str, HiddenTarget]) -> dict[str, Any]:
    """The figures above for the release's bottleneck tasks."""
    targets = [hidden[task.task_id] for task in tasks if task.task_id in hidden]
    tests = [test for target in targets if (test := bottleneck_rise(target)) is not None]
    lifts = [lift for target in targets if (lift := primary_opportunity_lift(target)) is not None]
    return {
        "bottleneck_targets": len(targets),
        "bottleneck_tested": len(tests),
        "bottleneck_rising": sum(rises(test) for test in tests),
        "bottleneck_share_up": sum(test["window_share"] > test["pre_share"] for test in tests),
        "opportunity_lifts": lifts,
        "opportunity_specific": sum(lift >= MIN_SPECIFICITY_LIFT for lift in lifts),
    }


def defect_lines(figures: Mapping[str, Any]) -> list[str]:
    """Plain lines of :func:`defect_figures`."""
    tested = figures["bottleneck_tested"]
    lines = [f"bottleneck targets: {figures['bottleneck_targets']}; addressing share up in "
             f"{figures['bottleneck_share_up']}/{tested}, a rise at p <= 0.1 (one-sided two-proportion) "
             f"in {figures['bottleneck_rising']}/{tested} (goal 100 %)"]
    lifts = figures["opportunity_lifts"]
    if lifts:
        lines.append(f"primary opportunity specificity (lift vs the domain's other window papers): "
                     f"{figures['opportunity_specific']}/{len(lifts)} >= {MIN_SPECIFICITY_LIFT:g}; median "
                     f"{sorted(lifts)[len(lifts) // 2]:.2f}, lowest {min(lifts):.2f}")
    else:
        lines.append("opportunity specificity: not recorded by this release")
    return lines
