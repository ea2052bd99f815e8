"""Ground truth of a synthetic world: what was planted, written beside the corpus.

Only evaluation, task builders and tests read this; agents never see it.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from foresci.core.io import read_json
from foresci.sim.vocab import Vocabulary

TrajectoryLabel = Literal["accelerating", "fragmenting", "steady", "cooling"]
EvolutionRelation = Literal["extension", "replacement", "component_reuse"]

GROUND_TRUTH_NAME = "ground_truth.json"
PAPER_LABELS_NAME = "paper_labels.jsonl"


class ChildTruth(BaseModel):
    """An emergent sub-direction of a fragmenting direction."""

    model_config = ConfigDict(extra="forbid")

    child_id: str = Field(description="'<direction_id>/<n>'")
    vocabulary: Vocabulary
    emerges: str = Field(description="'YYYY-MM' of its first planted paper")
    true_monthly_rates: dict[str, float] = Field(description="'YYYY-MM' -> expected papers")
    planted_counts: dict[str, int] = Field(description="'YYYY-MM' -> papers drawn before observation noise")


class BottleneckTruth(BaseModel):
    """A bottleneck → opportunity chain: a limitation reported, later reduced, opening an opportunity."""

    model_config = ConfigDict(extra="forbid")

    bottleneck: str
    bottleneck_variants: list[str]
    resolver: str = Field(description="the component whose introduction reduces the bottleneck")
    opportunity: str
    opportunity_variants: list[str]
    mechanism: str = Field(description="one sentence: how the reduction opens the opportunity")
    reported_from: str = Field(description="'YYYY-MM' from which papers report the limitation")
    resolved: str = Field(description="'YYYY-MM' in which the first paper reducing it is announced")
    after_cutoff: bool = Field(description="True when the resolution falls in the hidden window")
    resolution_paper_id: str | None = Field(default=None, description="id of the first paper that reduces it")


class MethodRelationTruth(BaseModel):
    """A method-evolution relation from one direction's method to another's."""

    model_config = ConfigDict(extra="forbid")

    source: str = Field(description="direction (or child) id whose method is built on")
    target: str = Field(description="direction (or child) id whose papers state the relation")
    relation: EvolutionRelation
    source_method: str
    target_method: str
    cue: str = Field(description="the phrase the target's papers use, e.g. 'We extend Vrelmorn'")
    first_month: str = Field(description="'YYYY-MM' from which the cue appears")


class DirectionTruth(BaseModel):
    """One planted research direction and everything planted about it."""

    model_config = ConfigDict(extra="forbid")

    direction_id: str = Field(description="'<domain slug>/<n>'")
    domain: str = Field(description="domain slug")
    name: str
    vocabulary: Vocabulary
    trajectory: TrajectoryLabel = Field(description="planted label over the post-cutoff window")
    base_rate: float = Field(description="mean expected papers per month before the cutoff")
    pre_slope: float = Field(description="monthly log-slope of the rate before the cutoff")
    post_slope: float = Field(description="monthly log-slope of the rate after the cutoff")
    planted_factor: float = Field(
        description="mean window rate / mean rate of as many months before the cutoff (children included)"
    )
    true_monthly_rates: dict[str, float] = Field(
        description="'YYYY-MM' -> expected papers (children included)"
    )
    planted_counts: dict[str, int] = Field(description="'YYYY-MM' -> papers drawn (children included)")
    observed_counts: dict[str, int] = Field(
        description="'YYYY-MM' -> papers in the corpus written with this "
        "direction's vocabulary, by announcement month"
    )
    children: list[ChildTruth] = Field(default_factory=list, description="emergent sub-directions")
    bottlenecks: list[BottleneckTruth] = Field(default_factory=list)
    venue_ranking: list[str] = Field(description="venue families, most preferred first")
    venue_weights: dict[str, float] = Field(description="venue family -> probability of an accepted paper")


class DomainTruth(BaseModel):
    """An invented research domain."""

    model_config = ConfigDict(extra="forbid")

    slug: str
    name: str
    category: str = Field(description="invented arXiv category of its papers")
    direction_ids: list[str]


class GroundTruth(BaseModel):
    """Everything planted in a world, keyed so hidden targets can be checked against it."""

    model_config = ConfigDict(extra="forbid")

    seed: int
    config: dict[str, object] = Field(description="the WorldConfig that made the world")
    months: list[str] = Field(description="'YYYY-MM' of every simulated month")
    cutoff: date = Field(description="last day before the hidden window")
    cutoff_month: str
    window_months: list[str] = Field(description="months after the cutoff")
    domains: list[DomainTruth]
    directions: list[DirectionTruth]
    method_relations: list[MethodRelationTruth]
    background_category: str = Field(description="category of off-domain papers a screen should exclude")
    paper_count: int = Field(description="unique papers in the corpus")
    row_count: int = Field(description="rows in the corpus (repeats included)")
    noise_counts: dict[str, int] = Field(
        default_factory=dict,
        description="papers touched by observation noise: dropped, delayed, repeated, mislabelled, "
        "stringified (author or category list written as a Python string)",
    )

    def direction(self, key: str) -> DirectionTruth:
        """A direction by id or name; KeyError naming the key if absent."""
        for candidate in self.directions:
            if key in (candidate.direction_id, candidate.name):
                return candidate
        raise KeyError(f"no direction {key!r} in this world")

    def by_label(self, label: TrajectoryLabel) -> list[DirectionTruth]:
        """The directions planted with a trajectory label."""
        return [candidate for candidate in self.directions if candidate.trajectory == label]


class PaperLabel(BaseModel):
    """The planted identity of one paper (one line of paper_labels.jsonl)."""

    model_config = ConfigDict(extra="forbid")

    paper_id: str
    announced: date = Field(description="first announcement date in the corpus")
    planned_month: str = Field(description="month the dynamics planted it in")
    domain: str | None = Field(description="domain slug; None for off-domain background")
    direction_id: str | None = Field(description="planted direction; None for background")
    child_id: str | None = None
    written_as: str | None = Field(
        description="direction whose vocabulary the text uses (differs when mislabelled by noise)"
    )
    roles: list[str] = Field(
        default_factory=list,
        description="e.g. 'limitation', 'resolution', 'opportunity', 'relation:extension'",
    )
    delayed_days: int = 0
    repeats: int = Field(default=0, description="extra rows of this paper on later days")


def load_ground_truth(out: Path | str) -> GroundTruth:
    """Read ``out/ground_truth.json`` of a generated world."""
    path = Path(out) / GROUND_TRUTH_NAME
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no ground truth; generate the world with `foresci sim generate`")
    return GroundTruth.model_validate(read_json(path))


def planted_trajectory(gt: GroundTruth, direction: str) -> TrajectoryLabel:
    """The planted trajectory label of a direction (by id or name)."""
    return gt.direction(direction).trajectory
