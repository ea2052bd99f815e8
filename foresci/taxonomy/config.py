"""Settings of taxonomy induction (the ``taxonomy`` section).

Numbers that shape the tree live here (overridable by env/YAML, e.g. ``FORESCI_TAXONOMY__SEED=7``);
the slicing policy, dimension cue words and trajectory thresholds live in the declarative files
``taxonomy/slicing.yaml``, ``taxonomy/dimensions.yaml`` and ``taxonomy/trajectory.yaml``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from foresci.core.sections import SettingsSection

MemberStatus = Literal["core", "support"]


def _core_only() -> list[MemberStatus]:
    return ["core"]


class TaxonomySettings(SettingsSection):
    """How temporal taxonomies are induced (offline: embedding clustering + c-TF-IDF labels)."""

    member_statuses: list[MemberStatus] = Field(
        default_factory=_core_only,
        description="screen statuses whose papers a domain's taxonomy is induced from: core only by default, "
                    "so every node (and every task option drawn from one) is a direction of the domain's own "
                    "papers; with support papers too, off-domain directions (reasoning models inside RAG) "
                    "became options")
    seed: int = Field(default=13, description="random seed for clustering (same seed, same taxonomy)")
    top_level_size: int = Field(default=120, description="papers per top-level node aimed at when seeding "
                                                         "the first slice (k = papers / this)")
    max_top_level: int = Field(default=14, description="most top-level nodes the seed slice creates")
    min_top_level: int = Field(default=3, description="fewest top-level nodes the seed slice creates")
    max_leaf_papers: int = Field(default=150, description="density threshold: a leaf holding more papers "
                                                         "expands in depth (children)")
    children_per_split: int = Field(default=4, description="children a depth expansion creates (at most)")
    min_split_gain: float = Field(default=0.02,
                                  description="mean cosine to own centre a depth split must gain over the "
                                              "parent (homogeneous nodes stay whole)")
    max_depth: int = Field(default=3, description="deepest level a node may sit at (root level = 0)")
    coverage_margin: float = Field(default=0.5, ge=0.0, le=1.0,
                                   description="a paper is poorly covered when its cosine to the nearest "
                                               "node sits less than this fraction of the way from how close "
                                               "seed papers are to the nearest other node (median) to how "
                                               "close they are to their own node (median); in those units "
                                               "the threshold means the same for any embedding model")
    coverage_threshold: float | None = Field(default=None, description="fixed cosine threshold instead of "
                                                                       "the calibrated margin rule")
    min_width_papers: int = Field(default=12, description="poorly covered papers needed under one parent "
                                                          "before a width expansion (new siblings)")
    min_node_papers: int = Field(default=5, description="smallest node a split or width expansion keeps")
    representatives: int = Field(default=5, description="most central papers kept per node")
    label_terms: int = Field(default=3, description="c-TF-IDF terms joined into a node label")
    key_terms: int = Field(default=10, description="c-TF-IDF terms kept per node")
    kmeans_iterations: int = Field(default=40, description="Lloyd iterations per clustering")
    signals_every_slice: bool = Field(default=False, description="derive signals and evolution edges for "
                                                                 "every snapshot, not only the final one")
    recent_months: int = Field(default=3, ge=1, description="months (ending at the cutoff) of a node's "
                                                            "pre-cutoff momentum window")
    recent_baseline_months: int = Field(default=6, ge=1, description="months before that window used as "
                                                                     "its baseline")
    slicing_file: Path | None = Field(default=None, description="slicing policy YAML; default "
                                                                "taxonomy/slicing.yaml")
    dimensions_file: Path | None = Field(default=None, description="dimension cue words YAML; default "
                                                                   "taxonomy/dimensions.yaml")
    signals_file: Path | None = Field(default=None, description="signal cue patterns YAML; default "
                                                                "taxonomy/signals.yaml")
    evolution_file: Path | None = Field(default=None, description="evolution-edge rules YAML; default "
                                                                  "taxonomy/evolution.yaml")
    trajectory_file: Path | None = Field(default=None, description="trajectory thresholds YAML; default "
                                                                   "taxonomy/trajectory.yaml")
