"""What a public task states about its options' paper counts, and the naive rule a reader can apply to
them: pick the option with the highest recent / pre-cutoff ratio. Public context only (no hidden target),
so answering methods may use it; the audit (:mod:`foresci.tasks.audit_rates`) gates the same rule.

Direction and planning tasks built since issue 43 state each option's size (pre-cutoff papers) but not its
recent papers, so the ratio rule has nothing to read in them (:func:`public_option_counts` is empty); tasks
of older releases still state both."""

from __future__ import annotations

from foresci.tasks.models import Task


def public_option_counts(task: Task) -> dict[str, tuple[int, int]]:
    """Option id -> (pre-cutoff papers, recent papers) as the public task states them (empty when it does
    not: only families whose context lists both counts per option)."""
    for key in ("candidates", "options"):
        table = task.context.get(key)
        if not isinstance(table, dict):
            continue
        counts = {
            str(option): (int(entry["pre_cutoff_papers"]), int(entry["recent_papers"]))
            for option, entry in table.items()
            if isinstance(entry, dict) and "pre_cutoff_papers" in entry and "recent_papers" in entry
        }
        if counts:
            return counts
    return {}


def public_sizes(task: Task) -> dict[str, int]:
    """Option id -> pre-cutoff papers as the public task states them (empty when it does not)."""
    for key in ("candidates", "options"):
        table = task.context.get(key)
        if not isinstance(table, dict):
            continue
        sizes = {str(option): int(entry["pre_cutoff_papers"]) for option, entry in table.items()
                 if isinstance(entry, dict) and "pre_cutoff_papers" in entry}
        if sizes:
            return sizes
    return {}


def recency_choice(task: Task) -> str | None:
    """The option with the highest recent / pre-cutoff ratio (pre-cutoff papers floored at 1), from the
    public context only; None when the task states no counts or the highest ratio is tied."""
    counts = public_option_counts(task)
    if len(counts) < 2:
        return None
    ratios = {option: recent / max(pre, 1) for option, (pre, recent) in counts.items()}
    best = max(ratios.values())
    holders = sorted(option for option, ratio in ratios.items() if ratio == best)
    return holders[0] if len(holders) == 1 else None
