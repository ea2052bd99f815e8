"""Per-item scores of every submission version, and the leaderboard boards over all resolved items.

Per item: Brier for binary questions, CRPS (log10(y+1) space) for numeric ones, from
:mod:`foresci.evaluation.forecast`. A question a submission left unanswered (or answered with an error
row) is imputed, so that skipping hard items does not pay: 0.5 on binary questions, the question's
pre-cutoff baseline as a point forecast on numeric ones (``imputed: true`` on the row).

A board takes each method's latest version per round (the last one before the deadline: later ones are
refused). Boards: ``brier`` (reference ``always-0.5`` reads 0.25, ForecastBench's scale), ``crps``
(reference ``base-rate`` at its own mean CRPS), and the family-task boards ``top1``, ``fta_ranking``
(planning, venue, emergence) and ``fta_slot`` (direction, bottleneck; reference persistence at its mean).

No gain from skipping: every item of a board since a method entered the ledger (its first scored round)
counts for it; an item it has no row on (a skipped round, a family it answered no task of) reads the
imputed score (Brier 0.25, task 0), and a method is ranked only when it answered >= 95 % of those items
(and at least ``min_items``, and, when ``entry_se`` names the board, its difference from the reference has
a bootstrap SE at most that); others are listed unranked with their coverage.

Inference (:mod:`foresci.rounds.fixed_effects`): a seeded bootstrap of ``config.bootstrap`` resamples of
items, or of whole rounds once the board holds 8 rounds; where the rows name a taxonomy node (``node``:
the forecast questions about one node of T(d, t)) the nodes are drawn too, crossed with the rounds (an
item weighs its round's draws times its node's); the reference's own mean is recomputed in each
resample. Ranks: the leader and the methods right after it whose difference from it is not significant
(two-sided bootstrap p-value, Holm-corrected, alpha 0.05) share rank 1, up to the first that is; the rest
are ranked the same way from there (ranks stay monotone in the board's order; each row's p-value against
the leader is shown as well). Each method's ``order_prob`` is the share of resamples in which it stays
ahead of the next one on the board (a tie counts half). ``reliability``: split-half reliability of the
ranked methods' effects (Spearman-Brown).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from foresci.contracts import ForecastAnswer
from foresci.core.io import iter_jsonl
from foresci.evaluation.forecast import brier, numeric_scores
from foresci.rounds.baselines import BASE_RATE, CHANCE
from foresci.rounds.fixed_effects import (
    ScoreRow,
    adjusted_scores,
    bootstrap_draws,
    split_half_reliability,
)
from foresci.rounds.ledger import (
    RESOLUTIONS_DIR,
    SCORES_FILE,
    TASK_SCORES_FILE,
    LedgerConfig,
    RoundManifest,
    round_dir,
)
from foresci.rounds.slot_fta import SLOT_FTA_FAMILIES
from foresci.rounds.submit import ANSWERS_FILE, all_submissions
from foresci.tasks.models import ForecastQuestion

BOARDS = {"brier": (CHANCE, 0.25), "crps": (BASE_RATE, None)}
PERSISTENCE = "persistence"
FAMILY_BOARDS = {
    "top1": (PERSISTENCE, None), "fta": (PERSISTENCE, None), "mbrier": (PERSISTENCE, None),
}  # keyed by the rows' metric
"""Family-task boards: reference persistence at its raw mean (the first method by name where persistence
did not answer); naive line: persistence; chance line (top-1): the mean of 1/options."""
LOWER_IS_BETTER = frozenset({"brier", "crps", "mbrier"})
"""Score rows' metrics whose boards rank the lowest first; every other board ranks the highest first."""


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
                    "node": f"{question.domain}/{question.node_id}" if question.node_id else None,
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


IMPUTED = {"brier": 0.25, "top1": 0.0, "fta": 0.0}
"""The score an item a method skipped reads (rows the scorer did not write: a round the method skipped, a
family it answered no task of): 0.5 on a binary question (Brier 0.25), 0 on a task. CRPS rows are always
written (the scorer imputes the base rate)."""
COVERAGE = 0.95
ROUND_CLUSTERS = 8
"""Whole rounds are resampled once a board holds this many rounds; before that, items."""
ALPHA = 0.05


def _in_families(row: dict[str, Any], families: Sequence[str] | None) -> bool:
    """Whether a row's family is on a board of ``families`` (None: all; ``!name`` entries: all but those)."""
    if families is None:
        return True
    excluded = [family[1:] for family in families if family.startswith("!")]
    if excluded:
        return row.get("family") not in excluded
    return row.get("family") in families


def entry_rounds(rows: Sequence[dict[str, Any]]) -> dict[str, str]:
    """method -> the first round it has any score row in (rounds sort by cutoff)."""
    entered: dict[str, str] = {}
    for row in rows:
        method, round_id = row["method"], row["round_id"]
        if method not in entered or round_id < entered[method]:
            entered[method] = round_id
    return entered


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values (step-down, monotone), in the given order."""
    order = sorted(range(len(pvalues)), key=lambda index: pvalues[index])
    adjusted = [1.0] * len(pvalues)
    running = 0.0
    for position, index in enumerate(order):
        running = max(running, min(1.0, (len(pvalues) - position) * pvalues[index]))
        adjusted[index] = running
    return adjusted


def _pvalue(worse: np.ndarray) -> float:
    """Two-sided bootstrap p-value of 'no difference' from draws of a difference (NaNs dropped)."""
    values = np.round(worse[np.isfinite(worse)], 12)  # equal methods: exact ties, not float noise
    if not len(values):
        return 1.0
    tail = min(float((values <= 0).sum()), float((values >= 0).sum()))
    return min(1.0, 2 * (tail + 1) / (len(values) + 1))


def shared_ranks(order: Sequence[int], draws: np.ndarray, sign: float) -> tuple[list[int], list[float]]:
    """Ranks with ties for methods not separated, monotone in the board's order: the best remaining method
    leads a group with the methods right after it whose bootstrap difference from it is not significant
    (Holm over every remaining method, alpha 0.05), up to the first that is; the group shares the leader's
    rank; repeat from there. Returns (rank per position of ``order``, Holm-adjusted p-value against the
    board's leader per position; 0 for the leader)."""
    ranks = [0] * len(order)
    p_leader = [0.0] * len(order)
    start = 0
    while start < len(order):
        others = list(range(start + 1, len(order)))
        raw = [_pvalue(sign * (draws[:, order[other]] - draws[:, order[start]])) for other in others]
        adjusted = holm(raw)
        if start == 0:
            for other, value in zip(others, adjusted, strict=True):
                p_leader[other] = round(value, 6)
        end = start + 1
        for value in adjusted:
            if value <= ALPHA:
                break
            end += 1
        for member in range(start, end):
            ranks[member] = start + 1
        start = end
    return ranks, p_leader


def _complete(
    picked: list[dict[str, Any]], metric: str, entered: dict[str, str]
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The board's rows plus an imputed row for every item since a method entered that it has no row on;
    and per method the items since it entered."""
    items = {row["item"]: row["round_id"] for row in picked}
    have = {(row["item"], row["method"]) for row in picked}
    methods = sorted({row["method"] for row in picked})
    fill = IMPUTED.get(metric)
    rows = list(picked)
    due: dict[str, int] = {}
    for method in methods:
        since = [item for item, round_id in items.items() if round_id >= entered.get(method, "")]
        due[method] = len(since)
        if fill is None:
            continue
        rows.extend(
            {"item": item, "round_id": items[item], "method": method, "score": fill, "imputed": True,
             "filled": True}
            for item in since
            if (item, method) not in have
        )
    return rows, due


def resampling(rounds: bool, nodes: bool) -> str:
    """What a board's bootstrap draws: ``items``, ``rounds``, ``nodes`` or ``rounds x nodes``."""
    if nodes:
        return "rounds x nodes" if rounds else "nodes"
    return "rounds" if rounds else "items"


def board(
    rows: Sequence[dict[str, Any]],
    metric: str,
    config: LedgerConfig,
    *,
    entered: dict[str, str] | None = None,
    families: Sequence[str] | None = None,
    chance_credit: dict[str, float] | None = None,
    name: str | None = None,
) -> dict[str, Any]:
    """One board: adjusted score, interval, raw mean, coverage, shared rank, the Holm-adjusted p-value
    against the leader, the probability that each method's order over the next holds, and the split-half
    reliability of the method effects.

    ``metric``: the score rows' metric; ``families``: only these task families (the FTA kinds);
    ``entered``: method -> first round (default: from ``rows``); ``chance_credit``: item -> a uniform
    pick's expected top-1 (counting neighbour credit)."""
    family_board = metric in FAMILY_BOARDS
    reference, value = FAMILY_BOARDS[metric] if family_board else BOARDS[metric]
    entered = entered if entered is not None else entry_rounds(rows)
    picked = [
        row for row in latest_rows(rows) if row["metric"] == metric and _in_families(row, families)
    ]
    taking_part = {row["method"] for row in picked if not row["imputed"]}
    picked = [row for row in picked if row["method"] in taking_part]  # imputed-only methods sit out
    methods = sorted(taking_part)
    if family_board and methods and reference not in methods:
        reference = methods[0]
    completed, due = _complete(picked, metric, entered)
    rounds = sorted({row["round_id"] for row in picked})
    clustered = len(rounds) >= ROUND_CLUSTERS
    nodes = {row["item"]: str(row["node"]) for row in picked if row.get("node")}
    result: dict[str, Any] = {
        "metric": name or metric,
        "scored_metric": metric,
        "families": list(families) if families is not None else None,
        "reference": reference,
        "reference_value": value,
        "min_items": config.min_items,
        "coverage_rule": COVERAGE,
        "entry_se": config.entry_se.get(name or metric),
        "items": len({row["item"] for row in picked}),
        "rounds": len(rounds),
        "resamples": config.bootstrap,
        "resampling": resampling(clustered, bool(nodes)),
        "resampling_rule": f"whole rounds once the board holds >= {ROUND_CLUSTERS} rounds, else items"
        + ("; taxonomy nodes too (the items about one node drawn together; crossed with the rounds: "
           "an item weighs its round's draws times its node's)" if nodes else ""),
        "reliability": None,
        "naive": None,
        "chance": None,
        "methods": [],
    }
    higher = metric not in LOWER_IS_BETTER
    if family_board:
        result["higher_is_better"] = higher
    if not picked or reference not in methods:
        return result
    raw = {method: [row["score"] for row in picked if row["method"] == method] for method in methods}
    triples: list[ScoreRow] = [(row["item"], row["method"], float(row["score"])) for row in completed]
    clusters = {row["item"]: row["round_id"] for row in completed} if clustered else None
    adjusted = adjusted_scores(triples, reference, value)
    order_methods, draws = bootstrap_draws(triples, reference, value, config.bootstrap, config.seed, clusters,
                                           nodes or None)
    column = {method: index for index, method in enumerate(order_methods)}
    if value is None:
        result["reference_value"] = round(adjusted[reference], 10)
    entries = []
    for method in methods:
        answered = sum(1 for row in picked if row["method"] == method and not row["imputed"])
        samples = draws[:, column[method]]
        finite = samples[np.isfinite(samples)]
        low, high = (
            (float(np.percentile(finite, 2.5)), float(np.percentile(finite, 97.5)))
            if len(finite) else (adjusted[method], adjusted[method])
        )
        coverage = answered / due[method] if due[method] else 0.0
        difference = samples - draws[:, column[reference]]
        spread = difference[np.isfinite(difference)]
        entries.append(
            {
                "method": method,
                "score": round(adjusted[method], 6) + 0.0,  # + 0.0: never -0.0
                "low": round(low, 6) + 0.0,
                "high": round(high, 6) + 0.0,
                "raw_mean": round(sum(raw[method]) / len(raw[method]), 6),
                "items": len(raw[method]),
                "answered_items": answered,
                "items_since_entry": due[method],
                "entered": entered.get(method),
                "coverage": round(coverage, 4),
                "se_vs_reference": round(float(np.std(spread)), 6) if len(spread) else None,
                "ranked": answered >= config.min_items and coverage >= COVERAGE,
            }
        )
        precision = config.entry_se.get(name or metric)
        se = entries[-1]["se_vs_reference"]
        if precision is not None and method != reference and (se is None or se > precision):
            entries[-1]["ranked"] = False  # entry by precision: not yet measured closely enough
    sign = -1.0 if higher else 1.0
    entries.sort(key=lambda entry: (sign * entry["score"], entry["method"]))
    ranked = [entry for entry in entries if entry["ranked"]]
    ranks, p_leader = shared_ranks([column[entry["method"]] for entry in ranked], draws, sign)
    for position, (entry, rank, pvalue) in enumerate(zip(ranked, ranks, p_leader, strict=True)):
        entry["rank"] = rank
        entry["p_vs_leader"] = pvalue
        entry["separated_from_leader"] = position > 0 and pvalue <= ALPHA
    for entry in entries:
        entry.setdefault("rank", None)
        entry.setdefault("p_vs_leader", None)
        entry.setdefault("separated_from_leader", None)
    for upper, lower in zip(entries, entries[1:], strict=False):
        holds = sign * (draws[:, column[lower["method"]]] - draws[:, column[upper["method"]]])
        valid = np.round(holds[np.isfinite(holds)], 12)  # a tie counts half
        upper["order_prob"] = (
            round(float((valid > 0).mean() + 0.5 * (valid == 0).mean()), 4) if len(valid) else None
        )
    if entries:
        entries[-1]["order_prob"] = None
    result["methods"] = entries
    steady = [
        (item, method, score) for item, method, score in triples
        if method in {entry["method"] for entry in ranked} or method == reference
    ]
    strata = {row["item"]: row["round_id"] for row in completed}
    reliability = split_half_reliability(steady, reference, config.seed, strata)
    result["reliability"] = None if reliability is None else round(reliability, 4)
    if family_board:
        result["naive"] = next((entry["score"] for entry in entries if entry["method"] == PERSISTENCE), None)
        result["chance"] = None
        if metric == "top1":
            items = {row["item"]: int(row.get("options") or 0) for row in picked}
            credits = [
                (chance_credit or {}).get(item, 1 / count if count else None) for item, count in items.items()
            ]
            if credits and None not in credits:
                result["chance"] = round(sum(float(value or 0) for value in credits) / len(credits), 6)
        return result
    result["naive"] = next((entry["score"] for entry in entries if entry["method"] == BASE_RATE), None)
    result["chance"] = next((entry["score"] for entry in entries if entry["method"] == CHANCE), None)
    return result


BOARD_SPECS: dict[str, tuple[str, tuple[str, ...] | None]] = {
    "brier": ("brier", None),
    "crps": ("crps", None),
    "top1": ("top1", None),
    "fta_ranking": ("fta", tuple(f"!{family}" for family in SLOT_FTA_FAMILIES)),
    "fta_slot": ("fta", SLOT_FTA_FAMILIES),
    "mbrier": ("mbrier", None),
}
"""Board name -> (score rows' metric, its task families or all; ``!family``: every family but these): one
FTA board per FTA kind (the ranking FTA of planning, venue and emergence; the slot FTA of direction and
bottleneck), since their scales differ."""
FORECAST_BOARDS = ("brier", "crps")
FAMILY_BOARD_NAMES = ("top1", "fta_ranking", "fta_slot", "mbrier")


def board_sections(
    rows: Sequence[dict[str, Any]], config: LedgerConfig, chance_credit: dict[str, float] | None = None
) -> dict[str, Any]:
    """The summary's board sections: forecast boards, family boards (one per FTA kind) and, per board,
    its split-half reliability."""
    entered = entry_rounds(rows)

    def make(name: str) -> dict[str, Any]:
        metric, families = BOARD_SPECS[name]
        return board(rows, metric, config, entered=entered, families=families,
                     chance_credit=chance_credit, name=name)

    boards = {name: make(name) for name in FORECAST_BOARDS}
    family_boards = {name: make(name) for name in FAMILY_BOARD_NAMES}
    return {
        "boards": boards,
        "family_boards": family_boards,
        "reliability": {name: entry["reliability"] for name, entry in {**boards, **family_boards}.items()},
    }


def top1_chance(ledger: Path, round_ids: Sequence[str]) -> dict[str, float]:
    """item -> the expected top-1 of a uniform pick among a resolved task's options, counting the 0.5
    credit of each acceptable neighbour (direction tasks)."""
    from foresci.rounds.ledger import load_round
    from foresci.rounds.submit import round_tasks
    from foresci.rounds.task_scores import resolved_tasks

    credit: dict[str, float] = {}
    for round_id in round_ids:
        folder = round_dir(ledger, round_id)
        resolutions = resolved_tasks(folder, load_round(ledger, round_id))
        if not resolutions:
            continue
        for task in round_tasks(folder):
            resolution = resolutions.get(task.task_id)
            if not resolution or resolution.get("status") != "resolved" or not task.candidates:
                continue
            options = {candidate.option_id for candidate in task.candidates}
            hidden = resolution["hidden"]
            neighbours = set(getattr(hidden, "acceptable_directions", None) or []) & options
            credit[f"{round_id}/{task.task_id}"] = (1 + 0.5 * len(neighbours)) / len(options)
    return credit


def read_scores(ledger: Path, round_ids: Sequence[str]) -> list[dict[str, Any]]:
    """Every round's score rows."""
    rows: list[dict[str, Any]] = []
    for round_id in round_ids:
        for name in (SCORES_FILE, TASK_SCORES_FILE):
            path = round_dir(ledger, round_id) / name
            if path.is_file():
                rows.extend(iter_jsonl(path))
    return rows
