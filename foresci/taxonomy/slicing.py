"""Chronological slices for induction: coarse far from the cutoff, fine near it (taxonomy/slicing.yaml)."""

from __future__ import annotations

import calendar
from datetime import date, timedelta
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from foresci.core.resources import declarative_file
from foresci.core.yamlio import load_yaml_model


class SliceLength(BaseModel):
    """A slice length: ``days``, ``half_months`` (1st-15th, 16th-end) or calendar ``months`` (one of them)."""

    model_config = ConfigDict(extra="forbid")

    days: int | None = Field(default=None, ge=1)
    half_months: int | None = Field(default=None, ge=1)
    months: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _exactly_one(self) -> SliceLength:
        if sum(value is not None for value in (self.days, self.half_months, self.months)) != 1:
            raise ValueError("give exactly one of 'days', 'half_months' or 'months'")
        return self

    def step_back(self, end: date) -> date:
        """The end date of the slice before one ending on ``end``.

        Calendar lengths snap to calendar edges: a slice ending mid-period is cut at the period start.
        """
        if self.days is not None:
            return end - timedelta(days=self.days)
        if self.half_months is not None:
            for _ in range(self.half_months):
                end = (date(end.year, end.month, 15) if end.day > 15
                       else end.replace(day=1) - timedelta(days=1))
            return end
        assert self.months is not None
        if not is_month_end(end):
            return subtract_months(end.replace(day=1) - timedelta(days=1), self.months - 1)
        return subtract_months(end, self.months)


class SliceRule(BaseModel):
    """Slices ending within ``within_days`` of the cutoff have this length (None: any distance)."""

    model_config = ConfigDict(extra="forbid")

    within_days: int | None = Field(default=None, ge=0)
    length: SliceLength


class SlicingPolicy(BaseModel):
    """The whole slicing policy."""

    model_config = ConfigDict(extra="forbid")

    min_slice_days: int = Field(default=10, ge=1)
    rules: list[SliceRule]

    @model_validator(mode="after")
    def _last_rule_unbounded(self) -> SlicingPolicy:
        if not self.rules or self.rules[-1].within_days is not None:
            raise ValueError("the last rule must have within_days: null (it covers the oldest papers)")
        return self

    def length_at(self, cutoff: date, slice_end: date) -> SliceLength:
        """The slice length for a slice that ends on ``slice_end``."""
        distance = (cutoff - slice_end).days
        for rule in self.rules:
            if rule.within_days is None or distance < rule.within_days:
                return rule.length
        return self.rules[-1].length


def subtract_months(day: date, months: int) -> date:
    """``day`` moved back by whole calendar months (month-end days stay month ends)."""
    month_index = day.year * 12 + day.month - 1 - months
    year, month = divmod(month_index, 12)
    month += 1
    last_day = calendar.monthrange(year, month)[1]
    return date(year, month, last_day if is_month_end(day) else min(day.day, last_day))


def is_month_end(day: date) -> bool:
    """True when ``day`` is the last day of its month."""
    return day.day == calendar.monthrange(day.year, day.month)[1]


def load_slicing_policy(path: Path | None = None) -> SlicingPolicy:
    """Read the slicing policy YAML (default ``taxonomy/slicing.yaml``); errors name the file and field."""
    path = path or declarative_file("taxonomy", "slicing.yaml")
    return load_yaml_model(path, SlicingPolicy, "slicing policy")


def slice_bounds(first: date, cutoff: date, policy: SlicingPolicy) -> list[tuple[date, date]]:
    """Slices ``(start, end)`` (both inclusive) covering ``first``..``cutoff``, oldest first.

    The newest slice ends at ``cutoff``; lengths follow the policy backwards; the oldest slice starts
    at ``first``, and one shorter than ``min_slice_days`` is merged into the next.
    """
    if first > cutoff:
        raise ValueError(f"first paper date {first} is after the cutoff {cutoff}")
    bounds: list[tuple[date, date]] = []
    end = cutoff
    while end >= first:
        previous_end = policy.length_at(cutoff, end).step_back(end)
        start = max(first, previous_end + timedelta(days=1))
        bounds.append((start, end))
        end = previous_end
    bounds.reverse()
    if len(bounds) > 1 and (bounds[0][1] - bounds[0][0]).days + 1 < policy.min_slice_days:
        bounds[1] = (bounds[0][0], bounds[1][1])
        bounds.pop(0)
    return bounds
