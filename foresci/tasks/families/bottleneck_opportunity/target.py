"""bottleneck_opportunity, hidden side: the bottleneck, the opportunity (each with variants) and the
mechanism."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from foresci.tasks.hidden import HiddenTarget


class BottleneckTarget(HiddenTarget):
    """The hidden target of a bottleneck-opportunity task."""

    writes_legacy_fields = True

    family: Literal["bottleneck_opportunity"] = "bottleneck_opportunity"
    bottleneck: list[str] = Field(default_factory=list, description="primary bottleneck then variants")
    opportunity: list[str] = Field(default_factory=list, description="unlocked opportunity then variants")
    mechanism: str | None = None
