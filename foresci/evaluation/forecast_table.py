"""The terminal leaderboard of a run's forecasts: CRPS (numeric questions) and Brier (binary ones) per
entry, lower is better, with the skill against the naive baseline."""

from __future__ import annotations

from typing import Any


def _mean(entry: dict[str, Any], name: str) -> str:
    metric = (entry.get("metrics") or {}).get(name)
    return "–" if not metric else f"{metric['mean']:.3f} [{metric['low']:.3f}, {metric['high']:.3f}]"


def _number(value: Any) -> str:
    return "–" if value is None else f"{float(value):.3f}"


def forecast_table(summary: dict[str, Any]) -> Any | None:
    """A rich Table of ``summary['forecast']`` (None when the run has no scored forecast)."""
    entries = summary.get("forecast") or []
    if not entries:
        return None
    from rich import box
    from rich.table import Table

    table = Table(title="forecasts (offline: scored against resolved outcomes, no judge)",
                  box=box.SIMPLE_HEAD, pad_edge=False,
                  caption="mean [95% interval]; lower CRPS/Brier is better; skill: 1 - score / baseline's")
    for header in ("method · backbone", "CRPS", "Brier", "CRPS skill", "Brier skill"):
        table.add_column(header, justify="left" if header.startswith("method") else "right")
    for entry in entries:
        table.add_row(str(entry["label"]), _mean(entry, "crps"), _mean(entry, "brier"),
                      _number(entry.get("crps_skill")), _number(entry.get("brier_skill")))
    return table
