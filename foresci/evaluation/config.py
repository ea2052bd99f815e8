"""Settings of evaluation (the ``evaluation`` section)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class EvaluationSettings(BaseModel):
    """How answers are scored."""

    judge_runs: int = Field(default=3, description="times each rubric metric (Trace, Pers) is judged")
    max_claims: int = Field(default=12, description="at most this many claims extracted per answer for Fact")
    bootstrap_samples: int = Field(default=2000, description="bootstrap resamples for confidence intervals")
    seed: int = Field(default=11, description="random seed for bootstrap")
