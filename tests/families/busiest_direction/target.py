"""The toy family's hidden target: the options by papers in the window, busiest first."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from foresci.tasks.hidden import HiddenTarget


class BusiestTarget(HiddenTarget):
    """Hidden order of the options."""

    family: Literal["busiest_direction"] = "busiest_direction"
    ranking: list[str] = Field(default_factory=list)

    def top_option(self) -> str | None:
        return self.ranking[0] if self.ranking else None

    def named_options(self) -> list[str]:
        return list(self.ranking)
