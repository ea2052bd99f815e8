"""Settings of evaluation (the ``evaluation`` section)."""

from __future__ import annotations

from pydantic import Field

from foresci.core.sections import SettingsSection


class EvaluationSettings(SettingsSection):
    """How answers are scored."""

    judge_runs: int = Field(default=3, description="times each rubric metric (Trace, Pers) is judged")
    max_claims: int = Field(default=12, description="at most this many claims extracted per answer for Fact")
    bootstrap_samples: int = Field(default=2000, description="bootstrap resamples for confidence intervals")
    seed: int = Field(default=11, description="random seed for bootstrap")
    low_score_fraction: float = Field(
        default=0.2,
        description="rank-selected bottom share marked low-scoring in diagnostics (ForeSci App. F uses 20 %)",
    )
    conflict_gap: float = Field(
        default=0.5, description="|Fact - FTA| at or above this is a Fact-FTA conflict"
    )
    forecast_reference: str = Field(
        default="persistence",
        description="method whose forecasts the others' CRPS and Brier skill is measured against "
        "(paired over the questions both answered)",
    )
    judge_concurrency: int = Field(default=4, description="answers judged concurrently")
    drilldown_limit: int = Field(
        default=400, description="at most this many per-task drill-downs in the report"
    )
    offline_supported_threshold: float = Field(
        default=0.7, description="fact_offline: cosine at or above which a sentence counts as supported"
    )
    offline_partial_threshold: float = Field(
        default=0.5,
        description="fact_offline: cosine at or above which a sentence counts as partially supported",
    )
