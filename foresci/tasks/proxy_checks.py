"""The zero-evidence control's result as a release audit records it (computed by
:mod:`foresci.evaluation.proxy_control`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class ProxyCheck(BaseModel):
    """One metric's separation of evidence-based from blind (zero-evidence) answers."""

    model_config = ConfigDict(extra="forbid")

    metric: str
    pairs: int
    evidence_mean: float
    blind_mean: float
    difference: float
    p_value: float
    separates: bool
    verdict: str


def render_checks(checks: list[ProxyCheck]) -> str:
    """Plain-text lines of the zero-evidence control."""
    lines = ["\nzero-evidence control (same tasks and methods, cutoff before the KB):"]
    lines += [
        f"  {check.metric}: evidence {check.evidence_mean:.3f} vs blind {check.blind_mean:.3f} "
        f"(diff {check.difference:+.3f}, p={check.p_value:.3f}, n={check.pairs}): {check.verdict}"
        for check in checks
    ]
    return "\n".join(lines)
