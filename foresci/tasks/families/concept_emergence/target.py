"""concept_emergence, hidden side: the options ordered by the window papers that use both concepts."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from foresci.tasks.hidden import HiddenTarget


class EmergenceTarget(HiddenTarget):
    """The hidden target of a concept-emergence task."""

    family: Literal["concept_emergence"] = "concept_emergence"
    ranking: list[str] = Field(default_factory=list, description="option ids, most window papers first")
    window_papers: dict[str, int] = Field(default_factory=dict,
                                          description="option id -> window papers using both concepts")

    def top_option(self) -> str | None:
        return self.ranking[0] if self.ranking else None

    def named_options(self) -> list[str]:
        return list(self.ranking)
