"""The bulk link-prediction set of a domain and window: every candidate pair (public, with its
pre-cutoff network measures) and its window papers (hidden), and the scoring of a method's pair scores.

Files in a release folder: ``emergence_pairs.jsonl`` (public) and ``emergence_hidden.jsonl`` (hidden,
beside ``hidden.jsonl``), one row per pair, keyed by ``pair_id`` (``<domain>:<horizon>:<row>``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from foresci.core.io import iter_jsonl, write_jsonl
from foresci.emergence.build import EmergenceSet
from foresci.emergence.config import ScoringSettings
from foresci.emergence.features import BASELINES
from foresci.emergence.scoring import Interval, score_pairs

PUBLIC_FILE = "emergence_pairs.jsonl"
HIDDEN_FILE = "emergence_hidden.jsonl"


Rows = list[dict[str, Any]]


def bulk_rows(target: EmergenceSet, domain: str, horizon: str) -> tuple[Rows, Rows]:
    """(public rows, hidden rows) of every candidate of ``target``."""
    snapshot = target.snapshot
    names = snapshot.vocabulary.names
    features = snapshot.features
    measures = {name: features.baseline(name) for name in BASELINES}
    public, hidden = [], []
    for row, (first, second) in enumerate(snapshot.candidates.pairs.tolist()):
        pair_id = f"{domain}:{horizon}:{row}"
        public.append({"pair_id": pair_id, "domain": domain, "horizon": horizon,
                       "cutoff": snapshot.cutoff.isoformat(), "window_end": target.window_end.isoformat(),
                       "first": names[first], "second": names[second],
                       **{name: round(float(values[row]), 6) for name, values in measures.items()}})
        hidden.append({"pair_id": pair_id, "window_papers": int(target.counts[row])})
    return public, hidden


def write_bulk(folder: Path, rows: Sequence[tuple[Rows, Rows]]) -> list[str]:
    """Write the public and hidden files of one or more bulk sets into ``folder``; return their names."""
    write_jsonl(folder / PUBLIC_FILE, [row for public, _ in rows for row in public])
    write_jsonl(folder / HIDDEN_FILE, [row for _, hidden in rows for row in hidden])
    return [PUBLIC_FILE, HIDDEN_FILE]


def baseline_scores(public: Sequence[Mapping[str, Any]], method: str) -> dict[str, float]:
    """pair_id -> score of a network baseline, read from the public rows."""
    if method not in BASELINES:
        raise KeyError(f"unknown emergence baseline {method!r}; expected one of {', '.join(BASELINES)}")
    return {str(row["pair_id"]): float(row[method]) for row in public}


def hidden_groups(folder: Path) -> dict[str, tuple[list[str], np.ndarray]]:
    """``<domain>:<horizon>`` -> (pair ids, window papers of each) from ``folder``'s hidden file."""
    groups: dict[str, tuple[list[str], list[int]]] = {}
    for row in iter_jsonl(folder / HIDDEN_FILE):
        pair_id = str(row["pair_id"])
        ids, counts = groups.setdefault(pair_id.rsplit(":", 1)[0], ([], []))
        ids.append(pair_id)
        counts.append(int(row["window_papers"]))
    return {group: (ids, np.asarray(counts, dtype=np.int64)) for group, (ids, counts) in groups.items()}


def pair_concepts(folder: Path, pair_ids: Sequence[str], settings: ScoringSettings) -> np.ndarray | None:
    """(n, 2) concept ids of each pair of ``pair_ids`` (the concepts' names in the public file, numbered),
    what a concept-level bootstrap resamples; None when the settings resample pairs or a pair is missing
    from ``folder``'s public file."""
    if settings.bootstrap_unit != "concepts" or not (folder / PUBLIC_FILE).is_file():
        return None
    wanted = set(pair_ids)
    names = {str(row["pair_id"]): (str(row["first"]), str(row["second"]))
             for row in iter_jsonl(folder / PUBLIC_FILE) if str(row["pair_id"]) in wanted}
    if len(names) < len(wanted):
        return None
    numbers: dict[str, int] = {}
    return np.asarray([[numbers.setdefault(name, len(numbers)) for name in names[pair_id]]
                       for pair_id in pair_ids], dtype=np.int64).reshape(-1, 2)


def filled_scores(pair_ids: Sequence[str], scores: Mapping[str, float]) -> np.ndarray:
    """The score of each pair of ``pair_ids``; a pair without a score ranks below every scored one."""
    values = [scores.get(pair_id) for pair_id in pair_ids]
    given = [value for value in values if value is not None]
    floor = min(given) - 1.0 if given else 0.0
    return np.asarray([floor if value is None else float(value) for value in values], dtype=np.float64)


def score_bulk(folder: Path, scores: Mapping[str, float], min_papers: int,
               settings: ScoringSettings) -> dict[str, dict[str, Interval]]:
    """``<domain>:<horizon>`` -> AUC and precision@k of ``scores`` (pair_id -> score; a pair without a
    score ranks last) against the hidden window papers, with bootstrap intervals."""
    results = {}
    for group, (ids, counts) in sorted(hidden_groups(folder).items()):
        results[group] = score_pairs(filled_scores(ids, scores), counts >= min_papers, settings.precision_at,
                                     settings.bootstrap_resamples, settings.bootstrap_seed,
                                     pair_concepts(folder, ids, settings))
    return results
