"""Per-item scores of every submission version, and the leaderboard summary over all resolved items.

Per item: Brier for binary questions, CRPS (log10(y+1) space) for numeric ones, from
:mod:`foresci.evaluation.forecast`. A question a submission left unanswered (or answered with an error
row) is imputed, so that skipping hard items does not pay: 0.5 on binary questions, the question's
pre-cutoff baseline as a point forecast on numeric ones (``imputed: true`` on the row).

The board takes each method's latest version per round (the last one before the deadline: later ones are
refused). Two boards: ``brier`` (reference ``always-0.5`` reads 0.25, ForecastBench's scale) and ``crps``
(reference ``base-rate`` reads its raw mean CRPS). A method is ranked once it has ``min_items`` resolved,
non-imputed items on that board; before that it is listed as preliminary. Rank stability: Spearman's rho
between consecutive resolved rounds' per-round method orderings (mean score, all methods answer every item
of a round after imputation).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from foresci.contracts import ForecastAnswer
from foresci.core.io import iter_jsonl
from foresci.evaluation.forecast import brier, numeric_scores
from foresci.rounds.baselines import BASE_RATE, CHANCE
from foresci.rounds.fixed_effects import ScoreRow, adjusted_scores, bootstrap_intervals
from foresci.rounds.ledger import (
    RESOLUTIONS_DIR,
    SCORES_FILE,
    TASK_SCORES_FILE,
    LedgerConfig,
    RoundManifest,
    round_dir,
)
from foresci.rounds.submit import ANSWERS_FILE, all_submissions
from foresci.tasks.models import ForecastQuestion

BOARDS = {"brier": (CHANCE, 0.25), "crps": (BASE_RATE, None)}
PERSISTENCE = "persistence"
FAMILY_BOARDS = {"top1": (PERSISTENCE, None), "fta": (PERSISTENCE, None)}
"""Family-task boards (higher is better): reference persistence at its raw mean (the first method by name
where persistence did not answer); naive line: persistence; chance line (top-1): the mean of 1/options."""


def resolved_outcomes(folder: Path, manifest: RoundManifest) -> dict[str, tuple[str, float]]:
    """question id -> (window, outcome) for every resolved window of the round."""
    outcomes: dict[str, tuple[str, float]] = {}
    for window in manifest.windows:
        path = folder / RESOLUTIONS_DIR / f"{window}.jsonl"
        if path.is_file():
            for row in iter_jsonl(path):
                outcomes[str(row["question_id"])] = (window, float(row["outcome"]))
    return outcomes


def _item_score(
    question: ForecastQuestion, answer: ForecastAnswer | None, outcome: float
) -> tuple[str, float, bool]:
    if question.kind == "binary":
        usable = answer is not None and answer.status == "ok" and answer.probability is not None
        probability = (
            float(answer.probability) if usable and answer and answer.probability is not None else 0.5
        )
        return "brier", brier(probability, outcome), not usable
    quantiles = None
    if answer is not None and answer.status == "ok" and None not in (answer.p10, answer.p50, answer.p90):
        quantiles = (float(answer.p10 or 0), float(answer.p50 or 0), float(answer.p90 or 0))
        if not quantiles[0] <= quantiles[1] <= quantiles[2]:
            quantiles = None
    imputed = quantiles is None
    if quantiles is None:
        point = float(question.baseline or 0.0)
        quantiles = (point, point, point)
    return "crps", float(numeric_scores(*quantiles, outcome)["crps"] or 0.0), imputed


def score_round(
    folder: Path, manifest: RoundManifest, questions: Sequence[ForecastQuestion]
) -> list[dict[str, Any]]:
    """Score rows of every submission version on every resolved question (sorted, deterministic)."""
    outcomes = resolved_outcomes(folder, manifest)
    resolved = [question for question in questions if question.question_id in outcomes]
    rows: list[dict[str, Any]] = []
    for record in all_submissions(folder):
        answers = {}
        for row in iter_jsonl(folder / record["folder"] / ANSWERS_FILE):
            answer = ForecastAnswer.model_validate(row)
            answers[answer.question_id] = answer
        for question in resolved:
            window, outcome = outcomes[question.question_id]
            metric, value, imputed = _item_score(question, answers.get(question.question_id), outcome)
            rows.append(
                {
                    "round_id": manifest.round_id,
                    "item": f"{manifest.round_id}/{question.question_id}",
                    "question_id": question.question_id,
                    "window": window,
                    "kind": question.kind,
                    "family": question.params.get("family"),
                    "domain": question.domain,
                    "method": record["method"],
                    "version": record["version"],
                    "metric": metric,
                    "score": round(value, 10),
                    "imputed": imputed,
                    "outcome": outcome,
                }
            )
    rows.sort(key=lambda row: (row["method"], row["version"], row["item"]))
    return rows


def latest_rows(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Only each method's latest version in each round."""
    latest: dict[tuple[str, str], int] = {}
    for row in rows:
        key = (row["round_id"], row["method"])
        latest[key] = max(latest.get(key, 0), int(row["version"]))
    return [row for row in rows if int(row["version"]) == latest[(row["round_id"], row["method"])]]


def _spearman(first: dict[str, float], second: dict[str, float]) -> float | None:
    from scipy.stats import spearmanr

    shared = sorted(set(first) & set(second))
    if len(shared) < 3:
        return None
    rho = spearmanr([first[name] for name in shared], [second[name] for name in shared]).statistic
    return None if rho != rho else round(float(rho), 6)


def board(rows: Sequence[dict[str, Any]], metric: str, config: LedgerConfig) -> dict[str, Any]:
    """One board: adjusted score, interval, raw mean, items, ranked flag and rank per method."""
    family_board = metric in FAMILY_BOARDS
    reference, value = FAMILY_BOARDS[metric] if family_board else BOARDS[metric]
    picked = [row for row in latest_rows(rows) if row["metric"] == metric]
    taking_part = {row["method"] for row in picked if not row["imputed"]}
    picked = [row for row in picked if row["method"] in taking_part]  # imputed-only methods sit out
    methods = sorted(taking_part)
    if family_board and methods and reference not in methods:
        reference = methods[0]
    result: dict[str, Any] = {
        "metric": metric,
        "reference": reference,
        "reference_value": value,
        "min_items": config.min_items,
        "items": len({row["item"] for row in picked}),
        "methods": [],
    }
    if not picked or reference not in methods:
        return result
    raw = {method: [row["score"] for row in picked if row["method"] == method] for method in methods}
    if value is None:
        value = sum(raw[reference]) / len(raw[reference])
        result["reference_value"] = round(value, 10)
    triples: list[ScoreRow] = [(row["item"], row["method"], float(row["score"])) for row in picked]
    adjusted = adjusted_scores(triples, reference, value)
    intervals = bootstrap_intervals(triples, reference, value, config.bootstrap, config.seed)
    entries = []
    for method in methods:
        answered = sum(1 for row in picked if row["method"] == method and not row["imputed"])
        low, high = intervals.get(method, (adjusted[method], adjusted[method]))
        entries.append(
            {
                "method": method,
                "score": round(adjusted[method], 6) + 0.0,  # + 0.0: never -0.0
                "low": round(low, 6) + 0.0,
                "high": round(high, 6) + 0.0,
                "raw_mean": round(sum(raw[method]) / len(raw[method]), 6),
                "items": len(raw[method]),
                "answered_items": answered,
                "ranked": answered >= config.min_items,
            }
        )
    entries.sort(key=lambda entry: (-entry["score"] if family_board else entry["score"], entry["method"]))
    rank = 0
    for entry in entries:
        if entry["ranked"]:
            rank += 1
            entry["rank"] = rank
        else:
            entry["rank"] = None
    result["methods"] = entries
    if family_board:
        result["higher_is_better"] = True
        result["naive"] = next((entry["score"] for entry in entries if entry["method"] == PERSISTENCE), None)
        options = {row["item"]: int(row.get("options") or 0) for row in picked}
        result["chance"] = (
            round(sum(1 / count for count in options.values() if count) / len(options), 6)
            if metric == "top1" and options and all(options.values())
            else None
        )
        return result
    result["naive"] = next((entry["score"] for entry in entries if entry["method"] == BASE_RATE), None)
    result["chance"] = next((entry["score"] for entry in entries if entry["method"] == CHANCE), None)
    return result


def stability(rows: Sequence[dict[str, Any]], metric: str) -> list[dict[str, Any]]:
    """Spearman's rho of the per-round method means between consecutive resolved rounds."""
    picked = [row for row in latest_rows(rows) if row["metric"] == metric]
    per_round: dict[str, dict[str, list[float]]] = {}
    for row in picked:
        per_round.setdefault(row["round_id"], {}).setdefault(row["method"], []).append(row["score"])
    means = {
        round_id: {method: sum(values) / len(values) for method, values in methods.items()}
        for round_id, methods in sorted(per_round.items())
    }
    ordered = sorted(means)
    return [
        {"from": first, "to": second, "metric": metric, "spearman": _spearman(means[first], means[second])}
        for first, second in zip(ordered, ordered[1:], strict=False)
    ]


def read_scores(ledger: Path, round_ids: Sequence[str]) -> list[dict[str, Any]]:
    """Every round's score rows."""
    rows: list[dict[str, Any]] = []
    for round_id in round_ids:
        for name in (SCORES_FILE, TASK_SCORES_FILE):
            path = round_dir(ledger, round_id) / name
            if path.is_file():
                rows.extend(iter_jsonl(path))
    return rows
