"""The metric reference page, generated from the registry (the docs site and ``README`` link to it)."""

from __future__ import annotations

from foresci.evaluation.metrics.base import ANY_TASK_FAMILY, Metric, all_metrics


def _families(metric: Metric) -> str:
    from foresci.tasks.families import family_names

    if metric.families == ANY_TASK_FAMILY:
        return "every task family"
    listed = [family for family in family_names() if metric.applies_to(family)]
    return ", ".join(dict.fromkeys([*metric.families, *listed]))


def metric_reference() -> str:
    """Markdown: one table row per registered metric (extensions included) with where it applies, its
    phase, direction, aggregation, offline stand-in and description."""
    lines = [
        "# Metrics",
        "",
        "Generated from the metric registry (`foresci.evaluation.metrics`); a metric registered by an "
        "extension appears here too.",
        "",
        "| metric | label | kind | applies to | phase | better | aggregate | offline stand-in | "
        "description |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for metric in all_metrics():
        cells = [
            f"`{metric.name}`",
            metric.label,
            metric.kind,
            _families(metric),
            metric.phase,
            "higher" if metric.higher_is_better else "lower",
            metric.aggregate or "forecast section",
            f"`{metric.offline_stand_in}`" if metric.offline_stand_in else "–",
            metric.description,
        ]
        # a pipe in any cell (the coverage labels: "cover |z|<1") would end the cell
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines) + "\n"
