"""Family-specific evidence construction (ARIS-style): measured signals read from the KB tools.

direction/planning: per candidate, monthly share of matching papers before the cutoff and its growth;
venue: venue families named in the comments of related pre-cutoff papers; bottleneck: recurring
limitation statements of related papers (the KB layer's limitations, else cue sentences of abstracts).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from foresci.agents.tools import KBTools
from foresci.kb.models import Paper
from foresci.tasks.models import Task

LIMITATION_CUES = re.compile(
    r"\b(however|limited|limitation|bottleneck|struggle|fail|costly|expensive|"
    r"challenge|remains? (?:unclear|difficult|open)|lack)\w*",
    re.IGNORECASE,
)


def growth_summary(share: dict[str, float], months: int = 6) -> str:
    """'share a -> b over the last N months, growth xR' from a month -> share series."""
    series = [share[month] for month in sorted(share)][-months:]
    if not series:
        return "no papers"
    half = max(1, len(series) // 2)
    earlier, recent = sum(series[:half]) / half, sum(series[half:]) / max(1, len(series) - half)
    ratio = (recent + 1e-4) / (earlier + 1e-4)
    return (
        f"mean share {earlier:.4f} -> {recent:.4f} over the last {len(series)} months (growth x{ratio:.2f})"
    )


def candidate_trends(tools: KBTools, task: Task) -> list[str]:
    """One line per candidate: its pre-cutoff share trend (normalised by the domain's monthly papers)."""
    lines = []
    for candidate in task.candidates:
        if tools.calls_left <= 0:
            lines.append(f"{candidate.option_id}: (tool budget exhausted)")
            continue
        timeline = tools.timeline(f"{candidate.name} {candidate.description}".strip())
        matched = sum(timeline["matched"].values())
        lines.append(
            f"{candidate.option_id} ({candidate.name}): {matched} matching papers; "
            f"{growth_summary(timeline['share'])}; normalised by {timeline['normalised_by']}"
        )
    return lines


def venue_profile(papers: list[Paper]) -> list[str]:
    """Venue families named by related papers, most frequent first, with example ids."""
    by_venue: dict[str, list[str]] = {}
    for paper in papers:
        if paper.venue_family:
            by_venue.setdefault(paper.venue_family, []).append(paper.paper_id)
    ranked = sorted(by_venue.items(), key=lambda item: (-len(item[1]), item[0]))
    return [
        f"{venue}: {len(ids)} related papers accepted there (e.g. {', '.join(ids[:3])})"
        for venue, ids in ranked
    ] or ["no related paper names a venue"]


def limitation_statements(papers: list[Paper], limit: int = 8) -> list[str]:
    """Recurring limitations: statements with the ids of papers that make them, most recurrent first."""
    counts: Counter[str] = Counter()
    sources: dict[str, list[str]] = {}
    for paper in papers:
        sentences = re.split(r"(?<=[.!?])\s+", paper.abstract)
        statements = list(paper.limitations) or [text for text in sentences if LIMITATION_CUES.search(text)]
        for statement in statements[:2]:
            key = " ".join(statement.split())[:220]
            counts[key] += 1
            sources.setdefault(key, []).append(paper.paper_id)
    return [
        f"{statement} [{', '.join(sources[statement][:3])}]" for statement, _ in counts.most_common(limit)
    ]


def _trends(tools: KBTools, task: Task, papers: list[Paper]) -> list[str]:
    return candidate_trends(tools, task) if task.candidates else ["no family-specific signals"]


def _limitations(tools: KBTools, task: Task, papers: list[Paper]) -> list[str]:
    return limitation_statements(papers) or ["no limitation statements found"]


SIGNALS: dict[str, Callable[[KBTools, Task, list[Paper]], list[str]]] = {
    "candidate_trends": _trends,
    "venue_profile": lambda tools, task, papers: venue_profile(papers),
    "limitations": _limitations,
    "none": lambda tools, task, papers: ["no family-specific signals"],
}
"""The signal blocks a family may name (:attr:`foresci.tasks.families.TaskFamily.agent_signals`)."""


def family_signals(tools: KBTools, task: Task, papers: list[Paper]) -> str:
    """The measured signals block the task's family names (text for the prompt)."""
    from foresci.tasks.families import UnknownFamilyError, get_family

    try:
        kind = get_family(task.family).agent_signals
    except UnknownFamilyError:
        kind = "none"
    lines = SIGNALS[kind](tools, task, papers)
    return "\n".join(f"- {line}" for line in lines)
