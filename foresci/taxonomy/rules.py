"""The taxonomy's rule files, read once per command: dimension cue words, the slicing policy, signal
patterns, evolution rules and trajectory thresholds (``taxonomy/*.yaml``, or the files the taxonomy
settings name). A command loads one :class:`TaxonomyRules` at its entry and hands it down to every
induction and window it runs, instead of each reading the YAML where it is used."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from foresci.taxonomy.dimensions import DimensionConfig, load_dimensions
from foresci.taxonomy.evolution import EvolutionRules
from foresci.taxonomy.signals import SignalPatterns
from foresci.taxonomy.slicing import SlicingPolicy, load_slicing_policy
from foresci.taxonomy.trajectory import TrajectoryRules

RULE_FILES = ("dimensions_file", "slicing_file", "signals_file", "evolution_file", "trajectory_file")
"""The taxonomy settings naming the rule files (two settings naming the same files load the same rules)."""


@dataclass(frozen=True)
class TaxonomyRules:
    """Every rule file the taxonomy reads, parsed and validated."""

    dimensions: DimensionConfig
    slicing: SlicingPolicy
    signals: SignalPatterns
    evolution: EvolutionRules
    trajectory: TrajectoryRules

    @classmethod
    def load(cls, config: Any) -> TaxonomyRules:
        """Read the five files ``config`` (the taxonomy settings) names, or the shipped defaults; an error
        names the file and the field."""
        return cls(dimensions=load_dimensions(config.dimensions_file),
                   slicing=load_slicing_policy(config.slicing_file),
                   signals=SignalPatterns.load(config.signals_file),
                   evolution=EvolutionRules.load(config.evolution_file),
                   trajectory=TrajectoryRules.load(config.trajectory_file))
