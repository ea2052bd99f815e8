"""The cutoff at which ``foresci tasks build`` (default windows) can build a generated world's release:
every window after it (3m, 6m and the hidden venue cycle of six months) must close by the corpus's last
day, or the build refuses the windows as not yet closed."""

from __future__ import annotations

import calendar
from collections.abc import Iterable
from datetime import date, timedelta
from pathlib import Path

from foresci.tasks.windows import KNOWN_HORIZONS, make_window


def last_corpus_day(files: Iterable[Path]) -> date | None:
    """The latest day of the daily corpus files (named ``YYYY-MM-DD.jsonl[.gz]``), None without any."""
    days = []
    for path in files:
        try:
            days.append(date.fromisoformat(path.name.split(".", 1)[0]))
        except ValueError:
            continue
    return max(days) if days else None


def _month_end(day: date) -> date:
    return date(day.year, day.month, calendar.monthrange(day.year, day.month)[1])


def task_cutoff(planted: date, last_day: date, horizons: Iterable[str] = KNOWN_HORIZONS) -> date:
    """The latest month end on or before ``planted`` whose windows of ``horizons`` all end by
    ``last_day`` (the planted cutoff itself when they do)."""
    cutoff = _month_end(planted)
    wanted = tuple(horizons)
    for _ in range(240):
        if all(make_window(cutoff, horizon).end <= last_day for horizon in wanted):
            return cutoff
        cutoff = date(cutoff.year, cutoff.month, 1) - timedelta(days=1)  # the month before's end
    return cutoff
