"""Report figures as PNG bytes (matplotlib, Agg): low-score heatmap, reliability diagram, coverage bars."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from foresci.evaluation.metrics import headline_metric_names, metric_labels


def _png(figure: Any) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(figure)
    return buffer.getvalue()


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def heatmap_columns(rates: dict[str, dict[str, float]]) -> list[str]:
    """The heatmap's columns: the headline metrics (registration order) that some group has a rate of."""
    return [name for name in headline_metric_names() if any(name in group for group in rates.values())]


def low_score_heatmap(rates: dict[str, dict[str, float]], title: str) -> bytes | None:
    """Rows (families or methods) x headline metrics heatmap of low-score rates (ForeSci Fig. 3a style)."""
    groups = sorted(rates)
    metrics = heatmap_columns(rates)
    labels = metric_labels()
    if not groups or not metrics:
        return None
    plt = _pyplot()
    import numpy as np

    grid = np.array([[rates[g].get(m, np.nan) for m in metrics] for g in groups], dtype=float)
    figure, axes = plt.subplots(figsize=(1.4 * len(metrics) + 2.5, 0.55 * len(groups) + 1.2))
    image = axes.imshow(
        np.ma.masked_invalid(grid), cmap="Reds", vmin=0.0, vmax=max(0.5, float(np.nanmax(grid)))
    )
    axes.set_xticks(range(len(metrics)), [labels.get(m, m) for m in metrics])
    axes.set_yticks(range(len(groups)), [g.replace("_", " ") for g in groups])
    for row in range(len(groups)):
        for column in range(len(metrics)):
            value = grid[row, column]
            colour = "white" if not np.isnan(value) and value > 0.6 * image.norm.vmax else "black"
            label = "–" if np.isnan(value) else f"{value:.2f}"
            axes.text(column, row, label, ha="center", va="center", fontsize=9, color=colour)
    axes.set_title(title)
    figure.colorbar(image, ax=axes, fraction=0.046, pad=0.04, label="share in the low-score set")
    return _png(figure)


def reliability_diagram(series: dict[str, Sequence[dict[str, float]]]) -> bytes | None:
    """Observed frequency vs mean forecast per probability bin, one line per method."""
    series = {label: bins for label, bins in series.items() if bins}
    if not series:
        return None
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(4.8, 4.4))
    axes.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=1, label="perfect calibration")
    for label, bins in series.items():
        axes.plot([b["forecast"] for b in bins], [b["observed"] for b in bins], marker="o", label=label)
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1)
    axes.set_xlabel("forecast probability (bin mean)")
    axes.set_ylabel("observed frequency")
    axes.set_title("Reliability of binary forecasts")
    axes.legend(fontsize=7)
    return _png(figure)


def coverage_bars(coverage: dict[str, dict[str, dict[str, float]]]) -> bytes | None:
    """Observed coverage of |z| < 1, 2, 3 per method next to the nominal 68.3 / 95.4 / 99.7 %."""
    if not coverage:
        return None
    plt = _pyplot()
    import numpy as np

    labels = list(coverage)
    levels = ["1", "2", "3"]
    width = 0.8 / (len(labels) + 1)
    figure, axes = plt.subplots(figsize=(5.5, 3.8))
    positions = np.arange(len(levels))
    nominal = [next(iter(coverage.values()))[level]["nominal"] for level in levels]
    axes.bar(positions, nominal, width, color="lightgrey", label="nominal")
    for index, label in enumerate(labels):
        axes.bar(
            positions + (index + 1) * width,
            [coverage[label][level]["observed"] for level in levels],
            width,
            label=label,
        )
    axes.set_xticks(positions + width * len(labels) / 2, [f"|z| < {level}" for level in levels])
    axes.set_ylim(0, 1.05)
    axes.set_ylabel("share of numeric questions")
    axes.set_title("Coverage of log-space forecast intervals")
    axes.legend(fontsize=7)
    return _png(figure)
