"""Venue-community profiles (``evaluation/venues.yaml``), accepted venues, a node's venue shares."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from foresci.core.resources import declarative_file
from foresci.core.yamlio import load_yaml_model
from foresci.kb.models import VENUE_FAMILIES, Paper
from foresci.kb.venue_status import parse_venue_status
from foresci.taxonomy.models import Node


class VenueProfile(BaseModel):
    """What one venue family rewards and what its reviewers ask for."""

    model_config = ConfigDict(extra="forbid")

    contribution_style: str
    maturity_expectations: str
    reviewer_risks: list[str] = Field(min_length=1)
    evidence_package: list[str] = Field(min_length=1)
    compatible_families: list[str] = Field(default_factory=list)
    cycle: str = ""


class VenueProfiles(BaseModel):
    """All five profiles, keyed by venue family."""

    model_config = ConfigDict(extra="forbid")

    families: dict[str, VenueProfile]

    @model_validator(mode="after")
    def _known_families(self) -> VenueProfiles:
        unknown = [name for name in self.families if name not in VENUE_FAMILIES]
        missing = [name for name in VENUE_FAMILIES if name not in self.families]
        if unknown or missing:
            raise ValueError(f"venue families must be exactly {list(VENUE_FAMILIES)}; "
                             f"unknown {unknown}, missing {missing}")
        for name, profile in self.families.items():
            bad = [other for other in profile.compatible_families
                   if other not in VENUE_FAMILIES or other == name]
            if bad:
                raise ValueError(f"families.{name}.compatible_families: invalid entries {bad}")
        return self


def load_venue_profiles(path: Path | None = None) -> VenueProfiles:
    """Read ``evaluation/venues.yaml`` (or ``path``); errors name the file and field."""
    path = path or declarative_file("evaluation", "venues.yaml")
    return load_yaml_model(path, VenueProfiles, "venue profiles")


def venue_shares(node: Node) -> dict[str, float]:
    """Share of the node's venue-tagged papers per venue family (all five keys; zeros when none)."""
    total = sum(node.venue_counts.values())
    return {family: round(node.venue_counts.get(family, 0) / total, 4) if total else 0.0
            for family in VENUE_FAMILIES}


def accepted_venue_family(paper: Paper) -> str | None:
    """The venue family a paper was accepted at, re-read from its comment (so a KB built before the
    acceptance-only parser still counts no submission, workshop or "under review" as a venue)."""
    if paper.comment is None:
        return paper.venue_family
    return _accepted_family(paper.comment)


@lru_cache(maxsize=1 << 16)
def _accepted_family(comment: str) -> str | None:
    """:func:`accepted_venue_family` of a comment, parsed once per distinct comment (a round's opening reads
    each paper's venue for every window and question writer: ~70,000 parses)."""
    return parse_venue_status(comment).accepted_family
