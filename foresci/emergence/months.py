"""Calendar-month arithmetic on announcement days, shared by the concept network (its growth windows), the
emergence sets and the learned baseline's training period."""

from __future__ import annotations

import calendar
from datetime import date


def shift_months(day: date, months: int) -> date:
    """``day`` moved by ``months`` calendar months; a month's last day maps to the target month's last day."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    at_end = day.day == calendar.monthrange(day.year, day.month)[1]
    return date(year, month + 1, last if at_end else min(day.day, last))
