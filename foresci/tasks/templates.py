"""Question wording every family shares. Templates only see pre-cutoff facts (names, counts up to the
cutoff); each family's own question and deliverables live with it (:mod:`foresci.tasks.families`)."""

from __future__ import annotations

from datetime import date

COMMON_REQUIREMENTS = (
    "Use only literature announced on or before the cutoff date.",
    "Commit to a concrete conclusion; avoid vague trend language.",
    "Ground the conclusion in named pre-cutoff papers or signals.",
)


def when(cutoff: date, start: date, end: date) -> str:
    """The opening sentence of every question: the cutoff and the window."""
    return (f"Using only literature announced on or before {cutoff.isoformat()}, consider the window "
            f"{start.isoformat()} to {end.isoformat()}.")
