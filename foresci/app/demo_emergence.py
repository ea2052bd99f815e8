"""What ``foresci demo`` does with a release's bulk link-prediction set (the concept-pair family's): the
pair-scoring methods of a full-mode run score it (as ``foresci run`` does: ``emergence_scores.jsonl``),
``evaluate_run`` adds the
``emergence`` section to the run's ``summary.json`` (AUC and precision@k with bootstrap intervals per
method, domain, window and k), and the terminal summary shows one line per method: its mean AUC and
precision@100 over the domain and window sets at the smallest k.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import Any


def score_bulk(release_dir: Path, run_dir: Path, methods: Sequence[str],
               view_factory: Callable[[date], Any]) -> None:
    """Write the run's pair scores of the release's bulk set (nothing when it has none)."""
    from foresci.emergence.run_scores import write_emergence_scores

    write_emergence_scores(release_dir, run_dir, methods, view_factory)


def bulk_table(summary: dict[str, Any]) -> Any | None:
    """A rich table of the run summary's ``emergence`` rows at the smallest k: per method the sets, the
    mean AUC and mean precision@k over them (None without rows)."""
    from rich.table import Table

    rows = (summary.get("emergence") or {}).get("rows") or []
    if not rows:
        return None
    k = min(int(row["min_papers"]) for row in rows)
    chosen = [row for row in rows if int(row["min_papers"]) == k]
    precision = next((name for name in chosen[0] if name.startswith("precision@")), None)
    table = Table(title=f"Concept emergence bulk set (positives: >= {k} window paper(s); mean over "
                        f"{len({(row['domain'], row['horizon']) for row in chosen})} domain/window set(s))")
    for column in ("method", "AUC", *([precision] if precision else [])):
        table.add_column(column, justify="left" if column == "method" else "right")
    for method in sorted({str(row["method"]) for row in chosen}):
        mine = [row for row in chosen if row["method"] == method]
        values = [_mean([row["auc"]["value"] for row in mine])]
        if precision:
            values.append(_mean([row[precision]["value"] for row in mine]))
        table.add_row(method, *(f"{value:.3f}" if value is not None else "-" for value in values))
    return table


def _mean(values: Sequence[Any]) -> float | None:
    finite = [float(value) for value in values if value is not None]
    return sum(finite) / len(finite) if finite else None
