"""The terminal leaderboard of a run's forecasts: CRPS (numeric questions) and Brier (binary ones) per
entry, lower is better, with the skill against the naive baseline."""

from __future__ import annotations

from typing import Any


def _mean(entry: dict[str, Any], name: str) -> str:
    """The mean, and its interval on a second line (two columns of them fit 80 columns beside the name)."""
    metric = (entry.get("metrics") or {}).get(name)
    return "–" if not metric else f"{metric['mean']:.3f}\n[{metric['low']:.3f}, {metric['high']:.3f}]"


def _number(value: Any) -> str:
    return "–" if value is None else f"{float(value):.3f}"


def forecast_table(summary: dict[str, Any]) -> Any | None:
    """A rich Table of ``summary['forecast']`` (None when the run has no scored forecast)."""
    entries = summary.get("forecast") or []
    if not entries:
        return None
    from rich import box
    from rich.table import Table

    from foresci.evaluation.summary import LABEL_WIDTH, backbone_keys, short_label, wrappable

    keys = backbone_keys(entries)  # long backbone names as keys (b1), spelled out in the caption
    spelled = "; ".join(f"{key} = {model}" for model, key in keys.items())
    table = Table(title="forecasts (offline: scored against resolved outcomes, no judge)",
                  box=box.SIMPLE_HEAD, pad_edge=False,
                  caption="mean [95% interval]; lower CRPS/Brier is better; skill: 1 - score / baseline's"
                  + (f"; backbones: {spelled}" if spelled else ""))
    label_header = "method · backbone" if any(entry.get("model") for entry in entries) else "method"
    labels = [short_label(entry, keys) for entry in entries]
    labels = [wrappable(label, LABEL_WIDTH) for label in labels]  # wrap before @version, after ://
    longest = max(len(word) for label in [label_header, *labels] for word in label.split())
    table.add_column(label_header, overflow="fold", min_width=min(longest, 22))
    for header in ("CRPS", "Brier", "CRPS\nskill", "Brier\nskill"):  # two-line headers: 80 columns hold it
        table.add_column(header, justify="right", no_wrap=True)
    for label, entry in zip(labels, entries, strict=True):
        table.add_row(label, _mean(entry, "crps"), _mean(entry, "brier"), _number(entry.get("crps_skill")),
                      _number(entry.get("brier_skill")))
    return table
