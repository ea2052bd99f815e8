"""What ``foresci run`` adds for a release with a bulk link-prediction set: the pair scores of every chosen
method that can score pairs (the five network baselines and ``learned_links``) in ``emergence_scores.jsonl``.

Only the public side is read: the network baselines' scores are the pre-cutoff measures the public rows
state, ``learned_links`` scores each pair with the model of its domain trained from the KB view at the
set's cutoff (:mod:`foresci.emergence.pair_model`). A pair that is no candidate of that view's network
gets no score (it ranks last when evaluated). Rows: ``{pair_id, method, score}`` (and ``label`` when the
run has one), ordered by label, method and the public file's order; a method whose rows already cover
every pair of the set is kept, not scored again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from foresci.core.io import iter_jsonl, write_jsonl
from foresci.emergence.bulk import PUBLIC_FILE, baseline_scores
from foresci.emergence.features import BASELINES
from foresci.emergence.months import shift_months

SCORES_FILE = "emergence_scores.jsonl"
LEARNED_METHOD = "learned_links"
PAIR_METHODS: tuple[str, ...] = (*BASELINES, LEARNED_METHOD)
ALL_DOMAINS = "all"

ViewFor = Callable[[date], Any]


@dataclass
class PairScoring:
    """What :func:`write_emergence_scores` did: pairs scored per method, methods kept, problems met."""

    scored: dict[str, int] = field(default_factory=dict)
    kept: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def window_months(cutoff: date, window_end: date) -> int:
    """The window length in months of a set whose window runs from ``cutoff`` to ``window_end``."""
    return next((months for months in range(1, 61) if shift_months(cutoff, months) >= window_end), 60)


def learned_scores(public: Sequence[Mapping[str, Any]], view_for: ViewFor,
                   problems: list[str] | None = None) -> dict[str, float]:
    """pair_id -> the learned baseline's probability, from the model of each set's domain at its cutoff
    (``view_for(cutoff)``: a KB view at the cutoff); a set whose model fails is left unscored and named
    in ``problems`` (raised when ``problems`` is None)."""
    from foresci.emergence.pair_model import domain_model

    groups: dict[tuple[str, str, str], list[Mapping[str, Any]]] = {}
    for row in public:
        groups.setdefault((str(row["domain"]), str(row["cutoff"]), str(row["window_end"])), []).append(row)
    values: dict[str, float] = {}
    for (domain, cutoff_text, end_text), rows in groups.items():
        cutoff = date.fromisoformat(cutoff_text)
        months = window_months(cutoff, date.fromisoformat(end_text))
        try:
            model = domain_model(view_for(cutoff), None if domain == ALL_DOMAINS else domain, cutoff, months)
        except Exception as error:  # one set's failure leaves its pairs unscored, the others go on
            if problems is None:
                raise
            problems.append(f"{LEARNED_METHOD} {domain} {months}m: {type(error).__name__}: {error}")
            continue
        for row in rows:
            probability = model.probability(str(row["first"]), str(row["second"]))
            if probability is not None:
                values[str(row["pair_id"])] = probability
    return values


def pair_methods(methods: Sequence[str]) -> list[str]:
    """The methods of ``methods`` that score bulk pairs, in their given order."""
    return [name for name in dict.fromkeys(methods) if name in PAIR_METHODS]


def write_emergence_scores(release: Path, out: Path, methods: Sequence[str], view_for: ViewFor | None,
                           label: str | None = None) -> PairScoring | None:
    """Score the bulk set of ``release`` with each pair-scoring method of ``methods`` into
    ``out/emergence_scores.jsonl``; None (nothing written) when the release has no bulk set or no chosen
    method scores pairs. ``learned_links`` needs ``view_for`` (a KB view at a cutoff)."""
    chosen = pair_methods(methods)
    public_path = Path(release) / PUBLIC_FILE
    if not chosen or not public_path.is_file():
        return None
    public = list(iter_jsonl(public_path))
    order = [str(row["pair_id"]) for row in public]
    path = Path(out) / SCORES_FILE
    stored: dict[tuple[str, str], dict[str, float]] = {}
    if path.is_file():
        for row in iter_jsonl(path):
            key = (str(row.get("label") or ""), str(row["method"]))
            stored.setdefault(key, {})[str(row["pair_id"])] = float(row["score"])
    result = PairScoring()
    for name in chosen:
        key = (label or "", name)
        if key in stored and set(stored[key]) == set(order):
            result.kept.append(name)
            continue
        if name == LEARNED_METHOD:
            if view_for is None:
                result.problems.append(f"{LEARNED_METHOD}: needs a KB (--kb) to score the bulk set")
                continue
            stored[key] = learned_scores(public, view_for, result.problems)
        else:
            try:
                stored[key] = baseline_scores(public, name)
            except KeyError as error:  # a bulk file of another foresci without this measure
                result.problems.append(f"{name}: {public_path} has no column {error}")
                continue
        result.scored[name] = len(stored[key])
    rows = []
    for (run_label, name), scores in sorted(stored.items()):
        for pair_id in order:
            if pair_id in scores:
                rows.append({"pair_id": pair_id, "method": name, "score": round(scores[pair_id], 8),
                             **({"label": run_label} if run_label else {})})
    write_jsonl(path, rows)
    return result
