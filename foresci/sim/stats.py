"""Plain statistics of a world: monthly counts read back from the corpus text, window ratios, and the
pre-cutoff separability test behind the difficulty dial."""

from __future__ import annotations

from pathlib import Path

from scipy.stats import chi2_contingency

from foresci.core.io import iter_jsonl
from foresci.sim.truth import GroundTruth, TrajectoryLabel


def corpus_monthly_counts(world: Path | str, truth: GroundTruth) -> dict[str, dict[str, int]]:
    """Per direction id: papers whose title or abstract names the direction, by first-announcement month.

    Reads the written corpus files (first row of each id), so it checks what a reader of the corpus
    sees, not the generator's bookkeeping. Children name their parent, so they count towards it.
    """
    counts = {direction.direction_id: dict.fromkeys(truth.months, 0) for direction in truth.directions}
    names = [(direction.direction_id, direction.name) for direction in truth.directions]
    seen: set[str] = set()
    for path in sorted((Path(world) / "corpus").glob("*.jsonl*")):
        month = path.name[:7]
        for row in iter_jsonl(path):
            paper_id = str(row["id"])
            if paper_id in seen:
                continue
            seen.add(paper_id)
            text = " ".join(f"{row['title']} {row['summary']}".lower().split())
            for direction_id, name in names:
                if name in text and month in counts[direction_id]:
                    counts[direction_id][month] += 1
    return counts


def split_counts(truth: GroundTruth, monthly: dict[str, int]) -> tuple[float, float]:
    """Mean monthly count over the window and over as many months up to the cutoff."""
    window = truth.window_months
    pre_months = truth.months[: truth.months.index(truth.cutoff_month) + 1][-len(window) :]
    return (
        sum(monthly[month] for month in window) / len(window),
        sum(monthly[month] for month in pre_months) / len(pre_months),
    )


def window_counts(truth: GroundTruth, direction_id: str) -> tuple[int, int]:
    """Observed papers of a direction in the months before the cutoff (as many as the window) and in it."""
    observed = truth.direction(direction_id).observed_counts
    window_mean, before_mean = split_counts(truth, observed)
    size = len(truth.window_months)
    return round(before_mean * size), round(window_mean * size)


def halves(series: list[int]) -> tuple[int, int]:
    """Sums of the first and second half of a monthly series (the middle month left out when odd)."""
    half = len(series) // 2
    return sum(series[:half]), sum(series[len(series) - half :])


def halves_p_value(first_group: list[list[int]], second_group: list[list[int]]) -> float:
    """p-value of a chi-square test that two groups of monthly series shift equally between their first
    and second halves (small p: the groups' trends differ)."""
    table = [
        [sum(halves(series)[part] for series in group) for part in (0, 1)]
        for group in (first_group, second_group)
    ]
    if min(sum(row) for row in table) == 0:
        raise ValueError("a group has no papers in the compared months")
    return float(chi2_contingency(table, correction=False).pvalue)


def pre_cutoff_series(
    truth: GroundTruth, label: TrajectoryLabel, counts: dict[str, dict[str, int]] | None = None
) -> list[list[int]]:
    """Monthly pre-cutoff counts (observed unless ``counts`` is given) of each direction with a label."""
    pre_months = truth.months[: truth.months.index(truth.cutoff_month) + 1]
    source = counts or {direction.direction_id: direction.observed_counts for direction in truth.directions}
    return [[source[item.direction_id][month] for month in pre_months] for item in truth.by_label(label)]


def pre_cutoff_separability(
    truth: GroundTruth,
    first: TrajectoryLabel = "accelerating",
    second: TrajectoryLabel = "cooling",
    counts: dict[str, dict[str, int]] | None = None,
) -> float:
    """p-value that two labels' pre-cutoff counts shift equally between the first and second half of the
    pre-cutoff months (small p: separable before the cutoff; the difficulty dial drives it)."""
    return halves_p_value(pre_cutoff_series(truth, first, counts), pre_cutoff_series(truth, second, counts))
