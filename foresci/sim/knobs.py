"""WorldConfig: the knobs of a synthetic research world, and the month calendar they imply."""

from __future__ import annotations

import calendar
from datetime import date

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from foresci.sim.dynamics import COUNTERFACTUALS


class WorldConfig(BaseModel):
    """Knobs of a synthetic world. Same config (seed included) → byte-identical corpus and ground truth.

    Example: ``WorldConfig(seed=7, difficulty=1.0, noise=0.0, counterfactual="reverse")``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int = Field(default=2026, description="world seed")
    n_domains: int = Field(default=3, ge=1, le=8, description="invented research domains")
    directions_per_domain: int = Field(
        default=10, ge=2, le=12,
        description="planted directions per domain (10: enough distinct 4-option sets per domain that the "
        "release's label and blind-rule gates keep a direction family; with 6, four of five sets hold the "
        "domain's one accelerating direction and the label gate cut the demo's family to 2 tasks)",
    )
    start: str = Field(default="2024-01", description="first simulated month, 'YYYY-MM'")
    months: int = Field(default=18, ge=6, le=120, description="simulated months")
    cutoff_month: str | int | None = Field(
        default=None,
        description="last month on or before the cutoff ('YYYY-MM' or 0-based index); the "
        "cutoff is its last day. None: leave `window_months` months after it",
    )
    window_months: int = Field(
        default=6, ge=1, description="hidden months after the cutoff when cutoff_month is None"
    )
    papers_per_month: float = Field(
        default=120.0, gt=0,
        description="mean expected papers per month before the cutoff, background included",
    )
    background_share: float = Field(
        default=0.08, ge=0.0, lt=1.0, description="share of off-domain papers a domain screen should exclude"
    )
    difficulty: float = Field(
        default=0.6,
        ge=0.0,
        le=1.0,
        description="0: planted trends already visible before the cutoff; 1: flat "
        "before the cutoff, the change happens only in the window",
    )
    noise: float = Field(
        default=0.1,
        ge=0.0,
        le=1.0,
        description="observation noise: mislabelled topics, missing papers, delayed and "
        "repeated announcements, stringified author lists",
    )
    counterfactual: str | None = Field(
        default=None, description=f"dynamics shift with the same vocabulary: {', '.join(COUNTERFACTUALS)}"
    )
    trend_strength: float = Field(
        default=0.2,
        gt=0.0,
        le=1.0,
        description="mean monthly log-slope of accelerating/cooling rates after the cutoff "
        "(each direction draws its own within ±25 %)",
    )
    children_per_split: int = Field(default=2, ge=2, le=4, description="sub-directions of a fragmenting one")
    venue_comment_rate: float = Field(
        default=0.3, ge=0.0, le=1.0, description="share of papers whose comment names an accepting venue"
    )
    gzip: bool = Field(
        default=False, description="write corpus days as .jsonl.gz (fixed mtime) instead of .jsonl"
    )

    @field_validator("start")
    @classmethod
    def _check_start(cls, value: str) -> str:
        parse_month(value, "start")
        return value

    @field_validator("counterfactual")
    @classmethod
    def _check_counterfactual(cls, value: str | None) -> str | None:
        if value is not None and value not in COUNTERFACTUALS:
            raise ValueError(f"counterfactual: unknown value {value!r}; expected one of {COUNTERFACTUALS}")
        return value

    @model_validator(mode="after")
    def _check_cutoff(self) -> WorldConfig:
        index = self.cutoff_index
        if not 2 <= index <= self.months - 2:
            raise ValueError(
                f"cutoff_month: index {index} leaves too few months on one side of the cutoff "
                f"(months={self.months}; need >= 3 before and >= 1 after)"
            )
        return self

    @property
    def month_keys(self) -> list[str]:
        """'YYYY-MM' of every simulated month."""
        year, month = parse_month(self.start, "start")
        keys = []
        for offset in range(self.months):
            absolute = year * 12 + month - 1 + offset
            keys.append(f"{absolute // 12:04d}-{absolute % 12 + 1:02d}")
        return keys

    @property
    def cutoff_index(self) -> int:
        """0-based index of the last month on or before the cutoff."""
        if self.cutoff_month is None:
            return self.months - 1 - self.window_months
        if isinstance(self.cutoff_month, int):
            return self.cutoff_month
        keys = self.month_keys
        if self.cutoff_month not in keys:
            raise ValueError(
                f"cutoff_month: {self.cutoff_month!r} is not among the simulated months {keys[0]}..{keys[-1]}"
            )
        return keys.index(self.cutoff_month)

    @property
    def cutoff(self) -> date:
        """The cutoff date: last day of the cutoff month."""
        year, month = parse_month(self.month_keys[self.cutoff_index], "cutoff_month")
        return date(year, month, calendar.monthrange(year, month)[1])


def parse_month(value: str, field: str) -> tuple[int, int]:
    """Parse 'YYYY-MM' into (year, month); errors name the field."""
    try:
        year_text, month_text = value.split("-")
        year, month = int(year_text), int(month_text)
    except ValueError as error:
        raise ValueError(f"{field}: expected 'YYYY-MM', got {value!r}") from error
    if not (1 <= month <= 12 and 1991 <= year <= 2099):
        raise ValueError(
            f"{field}: expected 'YYYY-MM' with a month 01-12 and a year 1991-2099, got {value!r}"
        )
    return year, month


def weekdays(month_key: str) -> list[date]:
    """Announcement days (Monday–Friday) of a month."""
    year, month = parse_month(month_key, "month")
    return [
        date(year, month, day)
        for day in range(1, calendar.monthrange(year, month)[1] + 1)
        if date(year, month, day).weekday() < 5
    ]
