"""Forecast windows after a cutoff: month arithmetic, horizons and the matching pre-cutoff baseline."""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date, timedelta

HORIZON_MONTHS: dict[str, int] = {"1m": 1, "2m": 2, "3m": 3, "6m": 6}
VENUE_CYCLE_MONTHS = 6


def add_months(day: date, months: int) -> date:
    """Return ``day`` shifted by ``months`` calendar months (day clipped to the month's length)."""
    index = day.year * 12 + (day.month - 1) + months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, min(day.day, last))


def month_key(day: date) -> str:
    """Return the 'YYYY-MM' key of a date."""
    return f"{day.year:04d}-{day.month:02d}"


def months_between(start: date, end: date) -> list[str]:
    """Return the 'YYYY-MM' keys of every month touched by [start, end]."""
    keys: list[str] = []
    cursor = date(start.year, start.month, 1)
    while cursor <= end:
        keys.append(month_key(cursor))
        cursor = add_months(cursor, 1)
    return keys


@dataclass(frozen=True)
class Window:
    """A forecast window (start, end inclusive) after a cutoff and its equal-length baseline before it."""

    horizon: str
    cutoff: date
    start: date
    end: date
    baseline_start: date
    baseline_end: date

    @property
    def months(self) -> int:
        """Length of the window in months."""
        return len(months_between(self.start, self.end))

    def contains(self, day: date) -> bool:
        """True when ``day`` lies in the window."""
        return self.start <= day <= self.end

    def in_baseline(self, day: date) -> bool:
        """True when ``day`` lies in the baseline period (the same length, just before the cutoff)."""
        return self.baseline_start <= day <= self.baseline_end


KNOWN_HORIZONS = (*HORIZON_MONTHS, "venue_cycle")


def make_window(cutoff: date, horizon: str) -> Window:
    """Return the window of ``horizon`` ('1m', '2m', '3m', '6m' or 'venue_cycle') after ``cutoff``.

    The window opens the day after the cutoff; a venue cycle is treated as six months (the submission and
    decision calendar of the five venue families all fall within half a year). The baseline is the period
    of the same length ending on the cutoff.
    """
    months = VENUE_CYCLE_MONTHS if horizon == "venue_cycle" else HORIZON_MONTHS.get(horizon)
    if months is None:
        from foresci.core.errors import UserError

        raise UserError(f"unknown horizon {horizon!r}; use one of {', '.join(KNOWN_HORIZONS)}",
                        field="window")
    start = cutoff + timedelta(days=1)
    end = add_months(start, months) - timedelta(days=1)
    baseline_start = add_months(start, -months)
    return Window(horizon=horizon, cutoff=cutoff, start=start, end=end, baseline_start=baseline_start,
                  baseline_end=cutoff)
