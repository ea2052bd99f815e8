"""strategic_planning, hidden side: the preferred order of the options and its rationale."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from foresci.tasks.hidden import HiddenTarget


class PlanningTarget(HiddenTarget):
    """The hidden target of a strategic-planning task."""

    writes_legacy_fields = True

    family: Literal["strategic_planning"] = "strategic_planning"
    ranking: list[str] = Field(default_factory=list, description="preferred order of option_ids")
    rationale: list[str] = Field(default_factory=list)

    def top_option(self) -> str | None:
        return self.ranking[0] if self.ranking else None

    def named_options(self) -> list[str]:
        return list(self.ranking)
