"""Settings of synthetic worlds (the ``sim`` section)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class SimSettings(BaseModel):
    """Default knobs of the embedded synthetic world."""

    seed: int = Field(default=2026, description="world seed; same seed, byte-identical world")
