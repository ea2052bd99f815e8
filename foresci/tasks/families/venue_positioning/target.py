"""venue_positioning, hidden side: the preferred order of the venue families, its rationale, and the
trajectory an imported task records."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from foresci.tasks.hidden import HiddenTarget
from foresci.taxonomy.models import Trajectory


class VenueTarget(HiddenTarget):
    """The hidden target of a venue-positioning task."""

    writes_legacy_fields = True

    family: Literal["venue_positioning"] = "venue_positioning"
    ranking: list[str] = Field(default_factory=list, description="preferred order of option_ids")
    rationale: list[str] = Field(default_factory=list)
    trajectory: Trajectory | None = Field(default=None, description="imported: the direction's trajectory")

    def top_option(self) -> str | None:
        return self.ranking[0] if self.ranking else None

    def named_options(self) -> list[str]:
        return list(self.ranking)
