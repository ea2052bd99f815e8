"""The metric reference page, generated from the registry (the docs site and ``README`` link to it)."""

from __future__ import annotations

from foresci.evaluation.metrics.base import ANY_TASK_FAMILY, Metric, all_metrics


def _families(metric: Metric) -> str:
    from foresci.tasks.families import family_names

    if metric.families == ANY_TASK_FAMILY:
        return "every task family"
    listed = [family for family in family_names() if metric.applies_to(family)]
    return ", ".join(dict.fromkeys([*metric.families, *listed]))


def _scored(metric: Metric) -> str:
    """How a metric is scored, in one cell: kind, phase, aggregation and its offline stand-in."""
    parts = [metric.kind, f"{metric.phase} phase", metric.aggregate or "forecast section"]
    if metric.offline_stand_in:
        parts.append(f"offline: `{metric.offline_stand_in}`")
    return "; ".join(parts)


def metric_reference() -> str:
    """Markdown: one table row per registered metric (extensions included): its name and label, where it
    applies, how it is scored (kind, phase, aggregation, offline stand-in), its direction and description.
    Five columns, so the description stays on screen beside the docs site's navigation."""
    lines = [
        "# Metrics",
        "",
        "Generated from the metric registry (`foresci.evaluation.metrics`); a metric registered by an "
        "extension appears here too.",
        "",
        "| metric | applies to | scored | better | description |",
        "|---|---|---|---|---|",
    ]
    for metric in all_metrics():
        cells = [
            f"`{metric.name}`<br>{metric.label}",
            _families(metric).replace("_", "_<wbr>"),  # long family names break after an underscore
            _scored(metric),
            "higher" if metric.higher_is_better else "lower",
            metric.description,
        ]
        # a pipe in any cell (the coverage labels: "cover |z|<1") would end the cell
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines) + "\n"
