"""The metrics by name: what each one measures, how it is computed, and how it is shown."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

Kind = Literal["judged", "deterministic", "offline approximation", "proper score"]


@dataclass(frozen=True)
class MetricSpec:
    """One metric: its name in scores.jsonl, its column label, how it is computed and its direction."""

    name: str
    label: str
    kind: Kind
    description: str
    higher_is_better: bool = True


METRICS: dict[str, MetricSpec] = {
    spec.name: spec
    for spec in (
        MetricSpec(
            "fact",
            "Fact",
            "judged",
            "claim-level F1: judge-extracted claims, supported/partial verdicts "
            "(precision) and hidden claim-bank coverage (recall)",
        ),
        MetricSpec(
            "fta",
            "FTA",
            "deterministic",
            "future-target alignment: ranking-aware F1 for planning/venue "
            "(deterministic); reference-guided slot-max-mean cosine over judge-extracted claims for "
            "direction/bottleneck (judged mode only)",
        ),
        MetricSpec(
            "trace",
            "Trace",
            "judged",
            "0.50 evidence linkage + 0.25 support specificity + 0.25 internal "
            "trace, judged n times from the support artifact; '–' without one",
        ),
        MetricSpec(
            "pers",
            "Pers",
            "judged",
            "holistic reviewer persuasiveness with family and generic rubric "
            "dimensions, judged n times; unavailable offline",
        ),
        MetricSpec(
            "fact_offline",
            "Fact~off",
            "offline approximation",
            "answer sentences as claims, graded by "
            "embedding similarity to the claim bank (not the judged Fact)",
        ),
        MetricSpec(
            "fta_offline_claims",
            "FTA~off",
            "offline approximation",
            "reference-guided FTA with answer "
            "sentences instead of judge-extracted claims (direction/bottleneck)",
        ),
        MetricSpec(
            "trace_offline",
            "Trace~off",
            "offline approximation",
            "Trace weights over citation validity and evidence-to-answer similarity (not the judged Trace)",
        ),
        MetricSpec(
            "top_choice",
            "Top-1",
            "deterministic",
            "first pick right: primary direction 1, acceptable neighbour 0.5; planning/venue S_top",
        ),
        MetricSpec(
            "crps",
            "CRPS",
            "proper score",
            "CRPS of the Gaussian fitted to p10/p50/p90 in log10(y+1)",
            higher_is_better=False,
        ),
        MetricSpec(
            "crps_skill", "CRPS skill", "proper score", "1 - CRPS / CRPS of the persistence point forecast"
        ),
        MetricSpec(
            "brier", "Brier", "proper score", "(p - o)^2 of a binary forecast", higher_is_better=False
        ),
        MetricSpec(
            "brier_skill", "Brier skill", "proper score", "1 - Brier / Brier of the question's baseline"
        ),
    )
}


def metric_label(name: str) -> str:
    """The column label of a metric (its name when unregistered)."""
    spec = METRICS.get(name)
    return spec.label if spec else name


def metric_info() -> dict[str, dict[str, Any]]:
    """Every registered metric as plain data (for summary.json and the report legend)."""
    return {name: asdict(spec) for name, spec in METRICS.items()}
