"""direction_forecasting, hidden side: the option that gains momentum, its neighbours and trajectory."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from foresci.tasks.hidden import HiddenTarget
from foresci.taxonomy.models import Trajectory


class DirectionTarget(HiddenTarget):
    """The hidden target of a direction task."""

    writes_legacy_fields = True

    family: Literal["direction_forecasting"] = "direction_forecasting"
    primary_direction: str | None = Field(default=None,
                                          description="candidate option_id that gains momentum")
    acceptable_directions: list[str] = Field(default_factory=list,
                                             description="acceptable neighbour option_ids")
    trajectory: Trajectory | None = None
    ranking: list[str] = Field(default_factory=list, description="options by window growth, best first")

    def top_option(self) -> str | None:
        return self.primary_direction or (self.ranking[0] if self.ranking else None)

    def named_options(self) -> list[str]:
        return [*self.ranking, *self.acceptable_directions,
                *([self.primary_direction] if self.primary_direction else [])]
