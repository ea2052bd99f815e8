"""The ``emergence`` section of ``summary.json``: AUC and precision@k, with 95 % bootstrap intervals, of
each method's bulk link-prediction scores (``RUNDIR/emergence_scores.jsonl``, written by ``foresci run``)
per domain, window and positive threshold k, against the release's hidden window papers
(``emergence_hidden.jsonl``); and the table the report shows of it.

The metrics are :func:`foresci.emergence.scoring.score_pairs` (the ones ``foresci emergence score``
prints); a pair a method left unscored ranks below all its scored pairs, and each row says how many
pairs were scored. Only this module reads the hidden bulk file.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from foresci.core.io import iter_jsonl
from foresci.emergence.bulk import HIDDEN_FILE, filled_scores, hidden_groups, pair_concepts
from foresci.emergence.config import EmergenceSettings, load_emergence_settings
from foresci.emergence.run_scores import SCORES_FILE
from foresci.emergence.scoring import Interval, score_pairs

SECTION = "emergence"


def _interval(interval: Interval) -> dict[str, float | None]:
    """{value, low, high} with NaN (no positive or no negative pair) as None."""
    return {name: None if value is None or math.isnan(value) else value
            for name, value in interval.as_dict().items()}


def read_run_scores(run_dir: Path) -> dict[str, dict[str, float]]:
    """method (``label/method`` for a labelled run) -> pair_id -> score, from the run's scores file."""
    scores: dict[str, dict[str, float]] = {}
    for row in iter_jsonl(Path(run_dir) / SCORES_FILE):
        name = f"{row['label']}/{row['method']}" if row.get("label") else str(row["method"])
        scores.setdefault(name, {})[str(row["pair_id"])] = float(row["score"])
    return scores


def emergence_summary(run_dir: Path, release_dir: Path,
                      settings: EmergenceSettings | None = None) -> dict[str, Any] | None:
    """The ``emergence`` section of the run's summary, or None when the run wrote no bulk scores."""
    if not (Path(run_dir) / SCORES_FILE).is_file():
        return None
    settings = settings or load_emergence_settings()
    scoring = settings.scoring
    section: dict[str, Any] = {
        "min_papers": list(settings.targets.positive_min_papers), "precision_at": list(scoring.precision_at),
        "bootstrap_resamples": scoring.bootstrap_resamples, "bootstrap_unit": scoring.bootstrap_unit,
        "rows": [],
    }
    hidden_path = Path(release_dir) / HIDDEN_FILE
    if not hidden_path.is_file():
        section["note"] = f"{hidden_path} is missing (a public copy of the release?): bulk pairs not scored"
        return section
    groups = hidden_groups(Path(release_dir))
    concepts: dict[str, np.ndarray | None] = {}  # group -> each pair's concept ids (concept bootstrap)
    rows = []
    for method, scores in sorted(read_run_scores(run_dir).items()):
        for group, (ids, counts) in sorted(groups.items()):
            domain, horizon = group.rsplit(":", 1)
            if group not in concepts:
                concepts[group] = pair_concepts(Path(release_dir), ids, scoring)
            values = filled_scores(ids, scores)
            scored = sum(pair_id in scores for pair_id in ids)
            for k in settings.targets.positive_min_papers:
                labels = counts >= k
                metrics = score_pairs(values, labels, scoring.precision_at, scoring.bootstrap_resamples,
                                      scoring.bootstrap_seed, concepts[group])
                rows.append({"method": method, "domain": domain, "horizon": horizon, "min_papers": k,
                             "pairs": len(ids), "scored": scored, "positives": int(labels.sum()),
                             **{name: _interval(interval) for name, interval in metrics.items()}})
    section["rows"] = sorted(rows, key=lambda row: (row["domain"], row["horizon"], row["min_papers"],
                                                   row["method"]))
    return section


def merge_sections(sections: Sequence[dict[str, Any] | None]) -> dict[str, Any] | None:
    """One section of several runs' (a row of one method, domain, window and k counted once: the first)."""
    present = [section for section in sections if section]
    if not present:
        return None
    merged = {key: value for key, value in present[0].items() if key not in ("rows", "note")}
    seen: dict[tuple[str, str, str, int], dict[str, Any]] = {}
    for section in present:
        for row in section.get("rows", []):
            seen.setdefault((row["domain"], row["horizon"], row["min_papers"], row["method"]), row)
    merged["rows"] = [seen[key] for key in sorted(seen)]
    notes = [section["note"] for section in present if section.get("note")]
    if notes:
        merged["note"] = "; ".join(notes)
    return merged


def _cell(metric: dict[str, Any] | None) -> str:
    if not metric or metric.get("value") is None:
        return "–"
    if metric.get("low") is None or metric.get("high") is None:
        return f"{metric['value']:.3f}"
    return f"{metric['value']:.3f} [{metric['low']:.3f}, {metric['high']:.3f}]"


def emergence_table(section: dict[str, Any] | None) -> dict[str, Any] | None:
    """Header and text cells of the report's bulk link-prediction table, or None without rows."""
    if not section or not section.get("rows"):
        return None
    ks = [f"precision@{k}" for k in section.get("precision_at", [])]
    header = ["method", "domain", "window", "k", "pairs (scored)", "positives", "AUC [95 % CI]",
              *(f"P@{name.split('@', 1)[1]} [95 % CI]" for name in ks)]
    rows = [[row["method"], row["domain"], row["horizon"], str(row["min_papers"]),
             f"{row['pairs']} ({row['scored']})", str(row["positives"]), _cell(row.get("auc")),
             *(_cell(row.get(name)) for name in ks)] for row in section["rows"]]
    return {"header": header, "rows": rows}


def emergence_markdown(section: dict[str, Any] | None) -> list[str]:
    """The report.md lines of the section (none without rows)."""
    table = emergence_table(section)
    if table is None:
        return []
    escaped = [[text.replace("|", "\\|") for text in row] for row in table["rows"]]
    return ["", "## Concept emergence: bulk link prediction", "",
            "A pair is positive when its two concepts co-occur in at least k window papers; unscored pairs "
            "rank last.", "",
            "| " + " | ".join(table["header"]) + " |",
            "|---|---|---|---:|---:|---:|" + "---:|" * (len(table["header"]) - 6),
            *("| " + " | ".join(row) + " |" for row in escaped)]
