"""Settings of synthetic worlds (the ``sim`` section): the knobs of the world the demo generates.

Override with the environment (``FORESCI_SIM__DIFFICULTY=0.9``) or the YAML settings file.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from foresci.core.sections import SettingsSection


class SimSettings(SettingsSection):
    """Default knobs of the embedded synthetic world (see foresci.sim.knobs.WorldConfig for all knobs)."""

    seed: int = Field(default=2026, description="world seed; same seed, byte-identical world")
    n_domains: int = Field(default=3, description="invented research domains")
    directions_per_domain: int = Field(default=10, description="planted directions per domain")
    months: int = Field(default=18, description="simulated months")
    papers_per_month: float = Field(default=120.0,
                                     description="mean expected papers per month before the cutoff")
    difficulty: float = Field(default=0.6, description="0: trends visible before the cutoff; 1: only after")
    noise: float = Field(default=0.1, description="observation noise level 0..1")
    counterfactual: str | None = Field(default=None, description="'reverse', 'shuffle', 'null' or unset")

    def world_overrides(self) -> dict[str, Any]:
        """These settings as WorldConfig keyword arguments."""
        return self.model_dump()
