"""Power report of a rounds ledger: can its boards tell methods apart, and when will they?

    python benchmarks/rounds_power.py LEDGER [--ladder]

Prints, from the ledger's score rows (latest versions, refused versions left out, skipped items imputed
as the board does):

- items resolved per round and per board; the void share of the family tasks (and of the forecast
  questions, when a resolution marks any void), with the void reasons counted;
- per board, over every pair of ranked methods (the ladder left out): the SD of the paired per-item
  difference, the minimum detectable difference at 80 % power (two-sided alpha 0.05: 2.80 x SE),
  paired by item, and with round clustering (the cluster-robust SE of the paired mean over rounds), the
  design effect, the split-half reliability (from the board);
- the issue's agreement goals per board: adjusted vs direct paired difference of ranked pairs, and the
  largest move when one submitter is removed;
- the same MDD clustered over rounds whose windows overlap (:func:`overlap_variance`: adjacent monthly
  rounds with 3-month windows share 2 months, biweekly ones 2.5; the product of two rounds' totals counts
  with the share of their windows that overlap);
- months until a difference of 0.02 Brier and 0.10 top-1 separates at the ledger's rate of items per round
  (the median pair's SD and design effect; rounds per month from the cutoffs);
- where the Brier board's round clustering comes from (:func:`strata`): per question type (supply rule)
  and per domain, the items per round, the SD of the paired difference, the intra-round correlation (ICC)
  and design effect, and the pooled clustered MDD without each type.

``--ladder`` reads the known-skill ladder (methods named ``ladder-p<p>``, planted by
``rounds_replay.py --ladder``): the board must order them by p, and for each adjacent pair it prints
whether the board separates them (bootstrap p <= 0.05) and whether the report predicts it (the pair's
paired difference beyond 1.96 of the report's standard errors). Exit 1 when the ladder is out of order on the
Brier board (the others hold too few items at today's supply to be held to it).

The ladder is a benchmark fixture (each submitter answers from the resolved outcome with probability p,
otherwise like always-0.5 / a uniform ranking), planted into a replay's ledger after resolution; it is
never a shipped method.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

Z = 1.959964 + 0.841621  # two-sided alpha 0.05, power 0.80
GOALS = {"brier": 0.02, "top1": 0.10}
LADDER = (0.0, 0.1, 0.2, 0.4)
LADDER_PREFIX = "ladder-p"


def _board_rows(rows: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    """The rows a board is fitted on (latest versions, its families, skipped items imputed)."""
    from foresci.rounds.scores import BOARD_SPECS, _complete, _in_families, entry_rounds, latest_rows

    metric, families = BOARD_SPECS[name]
    picked = [row for row in latest_rows(rows) if row["metric"] == metric and _in_families(row, families)]
    taking_part = {row["method"] for row in picked if not row["imputed"]}
    picked = [row for row in picked if row["method"] in taking_part]
    completed, _ = _complete(picked, metric, entry_rounds(rows))
    return completed


def _window_days(rows: list[dict[str, Any]]) -> float | None:
    """The length in days of the rows' window (``3m``: 3 x 30.44; ``14d``, ``2w``); None when unknown or
    when the rows hold several."""
    names = {str(row.get("window")) for row in rows}
    if len(names) != 1:
        return None
    match = re.fullmatch(r"(\d+)([mwd])", names.pop())
    if match is None:
        return None
    return int(match.group(1)) * {"m": 30.44, "w": 7.0, "d": 1.0}[match.group(2)]


def _round_day(round_id: str) -> date | None:
    try:
        return date.fromisoformat(round_id[2:])
    except ValueError:
        return None


def overlap_variance(totals: dict[str, float], window_days: float | None) -> float | None:
    """Variance of a sum of round totals whose windows overlap: sum over round pairs of the product of their
    centred totals weighted by the share of their windows that overlap (1 - days apart / window length,
    0 beyond; 1 for a round with itself: the cluster-robust sum of squares when no windows overlap), with
    the clusters' small-sample factor. Adjacent monthly rounds with 3-month windows share 2 of their 3
    months, biweekly ones 2.5: clustering by round alone treats them as independent. None without dated
    round ids or a known window."""
    days = {round_id: _round_day(round_id) for round_id in totals}
    if window_days is None or any(day is None for day in days.values()):
        return None
    variance = 0.0
    for first, first_total in totals.items():
        for second, second_total in totals.items():
            apart = abs((days[first] - days[second]).days)  # type: ignore[operator]
            weight = max(0.0, 1.0 - apart / window_days)
            variance += weight * first_total * second_total
    clusters = len(totals)
    return max(variance, 0.0) * clusters / max(clusters - 1, 1)


def pair_power(rows: list[dict[str, Any]], first: str, second: str) -> dict[str, float] | None:
    """SD of the paired per-item difference, SE paired by item, cluster-robust over rounds, and over rounds
    whose windows overlap (:func:`overlap_variance`; the round-clustered SE when the rounds are not dated),
    n."""
    scores: dict[str, dict[str, tuple[str, float]]] = {}
    for row in rows:
        scores.setdefault(row["method"], {})[row["item"]] = (row["round_id"], float(row["score"]))
    shared = sorted(set(scores.get(first, {})) & set(scores.get(second, {})))
    if len(shared) < 4:
        return None
    differences = np.array([scores[first][item][1] - scores[second][item][1] for item in shared])
    rounds = [scores[first][item][0] for item in shared]
    n = len(differences)
    sd = float(differences.std(ddof=1))
    centred = differences - differences.mean()
    totals: dict[str, float] = {}
    for round_id, value in zip(rounds, centred, strict=True):
        totals[round_id] = totals.get(round_id, 0.0) + float(value)
    clusters = len(totals)
    robust = float(np.sqrt(sum(total**2 for total in totals.values()) * clusters / max(clusters - 1, 1))) / n
    shared_items = set(shared)
    overlapping = overlap_variance(totals, _window_days([row for row in rows if row["item"] in shared_items]))
    iid = sd / np.sqrt(n)
    return {
        "se_overlap": float(np.sqrt(overlapping)) / n if overlapping is not None else robust,
        "n": n,
        "rounds": clusters,
        "difference": float(differences.mean()),
        "sd": sd,
        "se": float(iid),
        "se_clustered": robust,
        "design_effect": (robust / iid) ** 2 if iid > 0 else float("nan"),
    }


def _question_voids(ledger: Path, ids: list[str]) -> tuple[Counter[str], int]:
    """Void forecast-question resolutions (rows with ``status: void``) by reason, and the rows read."""
    from foresci.core.io import iter_jsonl
    from foresci.rounds.ledger import RESOLUTIONS_DIR, round_dir

    reasons: Counter[str] = Counter()
    total = 0
    for round_id in ids:
        for path in sorted((round_dir(ledger, round_id) / RESOLUTIONS_DIR).glob("*.jsonl")):
            if path.name.startswith("tasks-"):
                continue
            for row in iter_jsonl(path):
                total += 1
                if row.get("status") == "void":
                    reasons[str(row.get("reason") or "no reason given")] += 1
    return reasons, total


def months_between(round_ids: list[str]) -> float:
    """Mean months between consecutive rounds (from the ids' cutoff dates; 1 when there is one round)."""
    days = sorted(date.fromisoformat(round_id[2:]) for round_id in round_ids)
    if len(days) < 2:
        return 1.0
    return (days[-1] - days[0]).days / 30.44 / (len(days) - 1)


def report(ledger: Path) -> dict[str, Any]:
    """Print the power report; returns its figures (per board)."""
    from foresci.rounds.integrity import usable_rows, verify
    from foresci.rounds.ledger import round_ids
    from foresci.rounds.tick import summary

    board_summary = summary(ledger)
    ids = round_ids(ledger)
    from foresci.rounds.scores import read_scores

    rows = usable_rows(read_scores(ledger, ids), verify(ledger))
    boards = {**board_summary["boards"], **board_summary["family_boards"]}
    spacing = months_between(ids)
    print(f"ledger {ledger}: {len(ids)} rounds, {spacing:.2f} months apart on average")
    print("\nitems resolved per round and board (latest versions):")
    names = list(boards)
    print(f"  {'round':14} " + " ".join(f"{name:>11}" for name in names))
    per_board: dict[str, list[dict[str, Any]]] = {name: _board_rows(rows, name) for name in names}
    for round_id in ids:
        counts = [len({row["item"] for row in per_board[name] if row["round_id"] == round_id})
                  for name in names]
        print(f"  {round_id:14} " + " ".join(f"{count:>11}" for count in counts))
    frozen = sum(int(entry["tasks"]["frozen"]) for entry in board_summary["rounds"])
    void = sum(int(entry["tasks"]["void"]) for entry in board_summary["rounds"])
    resolved = sum(int(entry["tasks"]["resolved"]) for entry in board_summary["rounds"])
    reasons: Counter[str] = Counter()
    for entry in board_summary["rounds"]:
        reasons.update(entry["tasks"]["void_reasons"])
    share = void / (void + resolved) if void + resolved else 0.0
    question_void, question_rows = _question_voids(ledger, ids)
    print(f"\nfamily tasks: {frozen} frozen, {resolved} resolved, {void} void ({100 * share:.1f} % of those "
          "resolved or void)")
    for reason, count in reasons.most_common(12):
        print(f"  void {count:4}  {reason}")
    print(f"forecast questions: {question_rows} resolved rows, {sum(question_void.values())} void")
    for reason, count in question_void.most_common(12):
        print(f"  void {count:4}  {reason}")
    print("\nper board: pairs of ranked methods; minimum detectable difference (MDD) at 80 % power:")
    figures: dict[str, Any] = {}
    for name, board in boards.items():
        ranked = [entry["method"] for entry in board["methods"]
                  if entry["ranked"] and not entry["method"].startswith(LADDER_PREFIX)]
        pairs = [pair_power(per_board[name], first, second)
                 for index, first in enumerate(ranked) for second in ranked[index + 1:]]
        usable = [pair for pair in pairs if pair is not None]
        if not usable:
            print(f"  {name}: fewer than 2 ranked methods with shared items")
            continue
        n = statistics.median(pair["n"] for pair in usable)
        sd = statistics.median(pair["sd"] for pair in usable)
        effect = statistics.median(pair["design_effect"] for pair in usable)
        mdd = statistics.median(Z * pair["se"] for pair in usable)
        mdd_clustered = statistics.median(Z * pair["se_clustered"] for pair in usable)
        mdd_overlap = statistics.median(Z * pair["se_overlap"] for pair in usable)
        overlap_effect = statistics.median((pair["se_overlap"] / pair["se"]) ** 2 for pair in usable
                                           if pair["se"] > 0)
        rate = n / max(len({row["round_id"] for row in per_board[name]}), 1)
        figures[name] = {"n": n, "sd": sd, "design_effect": effect, "mdd": mdd,
                         "mdd_clustered": mdd_clustered, "mdd_overlap": mdd_overlap,
                         "overlap_design_effect": overlap_effect, "items_per_round": rate,
                         "reliability": board["reliability"]}
        print(f"  {name:11} {len(usable):3} pairs, items {n:.0f} ({rate:.0f}/round), SD of paired difference "
              f"{sd:.3f} (range {min(p['sd'] for p in usable):.3f}-{max(p['sd'] for p in usable):.3f}); "
              f"MDD paired {mdd:.4f}, with round clustering {mdd_clustered:.4f} "
              f"(design effect {effect:.2f}), with overlapping windows {mdd_overlap:.4f} "
              f"(design effect {overlap_effect:.2f}); "
              f"split-half reliability {board['reliability']}")
        goal = GOALS.get(name)
        if goal is not None:
            needed = (Z * sd / goal) ** 2 * max(effect, 1.0)
            months = needed / max(rate, 1e-9) * spacing
            print(f"    Δ = {goal} separates at ~{needed:.0f} items: {months:.1f} months at {rate:.0f} items "
                  f"per round (design effect {max(effect, 1.0):.2f})")
            figures[name]["months_to_goal"] = months
            overlap_months = (Z * sd / goal) ** 2 * max(overlap_effect, 1.0) / max(rate, 1e-9) * spacing
            print(f"      with overlapping windows (design effect {max(overlap_effect, 1.0):.2f}): "
                  f"{overlap_months:.1f} months")
            figures[name]["months_to_goal_overlap"] = overlap_months
        if name == "brier":
            figures["brier_strata"] = strata(ledger, per_board[name], ranked, ids)
    return figures


def _icc(effect: float, per_round: float) -> float:
    """The intra-round correlation a design effect implies at ``per_round`` items a round (1 + (m-1) ICC)."""
    return (effect - 1.0) / (per_round - 1.0) if per_round > 1 else float("nan")


def _pooled(rows: list[dict[str, Any]], ranked: list[str]) -> list[dict[str, float]]:
    pairs = [pair_power(rows, first, second)
             for index, first in enumerate(ranked) for second in ranked[index + 1:]]
    return [pair for pair in pairs if pair is not None and pair["sd"] > 0]


def item_types(ledger: Path, ids: list[str]) -> dict[str, str]:
    """Board item id (``round/question``) -> the question's supply rule (``pair_emergence`` for ceq-)."""
    from foresci.rounds.ledger import load_round, round_dir
    from foresci.rounds.submit import round_questions
    from foresci.tasks.forecast import question_rule

    found: dict[str, str] = {}
    for round_id in ids:
        for question in round_questions(round_dir(ledger, round_id), load_round(ledger, round_id)):
            found[f"{round_id}/{question.question_id}"] = question_rule(question)
    return found


def strata(ledger: Path, rows: list[dict[str, Any]], ranked: list[str], ids: list[str]) -> dict[str, Any]:
    """Print the Brier board's per-type and per-domain table of the round clustering (median over pairs of
    ranked methods); returns it ({stratum: figures})."""
    types = item_types(ledger, ids)
    domains = {row["item"]: str(row.get("domain")) for row in rows}
    table: dict[str, Any] = {}
    print("\nbrier: where the round clustering comes from (median over ranked pairs; ICC = intra-round "
          "correlation of the paired difference, design effect 1 + (m-1) ICC at m items a round):")
    print(f"  {'stratum':44} {'items/round':>11} {'SD':>6} {'ICC':>7} {'deff':>6} {'MDD clustered':>13}")
    strata_of = [("type " + name, lambda item, name=name: types.get(item) == name)
                 for name in sorted(set(types.values()))]
    strata_of += [("domain " + name, lambda item, name=name: domains.get(item) == name)
                  for name in sorted(set(domains.values()))]
    strata_of += [("all but type " + name, lambda item, name=name: types.get(item) != name)
                  for name in sorted(set(types.values()))]
    strata_of.insert(0, ("all", lambda item: True))
    for label, keep in strata_of:
        usable = _pooled([row for row in rows if keep(row["item"])], ranked)
        if not usable:
            continue
        per_round = statistics.median(pair["n"] / pair["rounds"] for pair in usable)
        effect = statistics.median(pair["design_effect"] for pair in usable)
        figures = {"items_per_round": per_round, "sd": statistics.median(pair["sd"] for pair in usable),
                   "design_effect": effect, "icc": _icc(effect, per_round),
                   "mdd_clustered": statistics.median(Z * pair["se_clustered"] for pair in usable)}
        table[label] = figures
        print(f"  {label:44} {per_round:11.1f} {figures['sd']:6.3f} {figures['icc']:7.4f} {effect:6.2f} "
              f"{figures['mdd_clustered']:13.4f}")
    return table


def _pair_pvalue(rows: list[dict[str, Any]], board: dict[str, Any], first: str, second: str,
                 config: Any) -> float:
    """Two-sided bootstrap p-value of the pair's adjusted difference, with the board's own resampling."""
    from foresci.rounds.fixed_effects import bootstrap_draws
    from foresci.rounds.scores import _pvalue

    triples = [(row["item"], row["method"], float(row["score"])) for row in rows]
    clusters = {row["item"]: row["round_id"] for row in rows} if "rounds" in board["resampling"] else None
    nodes = ({row["item"]: str(row["node"]) for row in rows if row.get("node")}
             if "nodes" in board["resampling"] else None)
    value = board["reference_value"] if board["metric"] == "brier" else None
    methods, draws = bootstrap_draws(triples, board["reference"], value, config.bootstrap, config.seed,
                                     clusters, nodes)
    return _pvalue(draws[:, methods.index(first)] - draws[:, methods.index(second)])


def agreement(rows: list[dict[str, Any]], config: Any) -> None:
    """The issue's goals on this ledger, per board: the largest gap between two ranked methods' adjusted
    difference and their direct paired difference on common items (goal <= 0.01), and the largest move of
    anyone's adjusted score when one other submitter is removed (goal <= 0.005)."""
    from foresci.rounds.scores import BOARD_SPECS, board, entry_rounds

    quick = config.model_copy(update={"bootstrap": 10})
    entered = entry_rounds(rows)
    print("\nagreement goals (adjusted vs direct paired difference <= 0.01; removing one submitter moves "
          "no one by > 0.005):")
    for name, (metric, families) in BOARD_SPECS.items():
        full = board(rows, metric, quick, entered=entered, families=families, name=name)
        scores = {entry["method"]: entry["score"] for entry in full["methods"]}
        ranked = [entry["method"] for entry in full["methods"] if entry["ranked"]]
        if len(ranked) < 2:
            continue
        completed = _board_rows(rows, name)
        gaps = []
        for index, first in enumerate(ranked):
            for second in ranked[index + 1:]:
                power = pair_power(completed, first, second)
                if power is not None:
                    gaps.append(abs(scores[first] - scores[second] - power["difference"]))
        moves = []
        for removed in scores:
            if removed == full["reference"]:
                continue
            rest = board([row for row in rows if row["method"] != removed], metric, quick, entered=entered,
                         families=families, name=name)
            moves.extend((abs(entry["score"] - scores[entry["method"]]), removed, entry["method"])
                         for entry in rest["methods"])
        worst = max(moves) if moves else (0.0, "", "")
        print(f"  {name:11} max |adjusted - direct| {max(gaps):.4f} over {len(gaps)} ranked pairs; "
              f"max move {worst[0]:.4f} ({worst[2]} when {worst[1]} is removed)")


def ladder_check(ledger: Path, figures: dict[str, Any]) -> int:
    """The ladder's order on every board, and for each adjacent pair whether the board separates it (its
    bootstrap p-value <= 0.05) against what the power report predicts (the pair's direct paired difference
    beyond 1.96 of its standard errors, round-clustered when the board resamples rounds; its minimum
    detectable difference at 80 % power is printed beside). Returns 1 when
    the ladder is out of order on the Brier board."""
    from foresci.rounds.integrity import usable_rows, verify
    from foresci.rounds.ledger import load_config, round_ids
    from foresci.rounds.scores import read_scores
    from foresci.rounds.tick import summary

    board_summary = summary(ledger)
    config = load_config(ledger)
    rows = usable_rows(read_scores(ledger, round_ids(ledger)), verify(ledger))
    failed = 0
    agree = total = 0
    print("\nknown-skill ladder (answers from the outcome with probability p; not defined on the slot FTA "
          "board, whose answers are open text):")
    for name, board in {**board_summary["boards"], **board_summary["family_boards"]}.items():
        entries = {entry["method"]: entry for entry in board["methods"]
                   if entry["method"].startswith(LADDER_PREFIX)}
        if len(entries) < 2 or name == "fta_slot":
            continue
        board_rows = _board_rows(rows, name)
        ladder = sorted(entries, key=lambda method: float(method[len(LADDER_PREFIX):]))
        better = -1.0 if board.get("higher_is_better") else 1.0
        scores = [entries[method]["score"] for method in ladder]
        ordered = all(better * (scores[index + 1] - scores[index]) < 0 for index in range(len(scores) - 1))
        print(f"  {name}: " + ", ".join(
            f"{method} {entries[method]['score']:.4f} (rank {entries[method]['rank']})" for method in ladder)
              + f"; ordered by p: {ordered}")
        for low, high in zip(ladder, ladder[1:], strict=False):
            power = pair_power(board_rows, high, low)
            if power is None:
                continue
            se = power["se_clustered"] if "rounds" in board["resampling"] else power["se"]
            predicted = abs(power["difference"]) > 1.959964 * se  # significant at 0.05 by the report's SE
            pvalue = _pair_pvalue(board_rows, board, high, low, config)
            separated = pvalue <= 0.05
            agree += predicted == separated
            total += 1
            print(f"    {low} -> {high}: direct paired difference {power['difference']:+.4f} "
                  f"(n {power['n']}), MDD {Z * se:.4f}: report predicts separated {predicted}; "
                  f"board's bootstrap p {pvalue:.4f}: separated {separated}")
        if name == "brier" and not ordered:
            failed = 1
    print(f"  the board's separations match the report's predictions for {agree} of {total} adjacent pairs")
    return failed


def _task_payload(task: Any, order: list[str]) -> dict[str, Any]:
    if task.family == "direction_forecasting":
        return {"direction": order[0], "trajectory": "steady", "rationale": "ladder"}
    if task.family == "bottleneck_opportunity":
        named = next(candidate.name for candidate in task.candidates if candidate.option_id == order[0])
        return {"bottleneck": named, "opportunity": "ladder", "mechanism": "ladder"}
    return {"ranking": [{"option_id": option, "reason": "ladder"} for option in order]}


def plant_ladder(ledger: Path, ps: tuple[float, ...] = LADDER, seed: int = 0) -> int:
    """Benchmark only: store, in every resolved round, one version per p of a submitter that answers from
    the resolved outcome with probability p (binary: the outcome; numeric: the outcome as a point; a task:
    the right option first), otherwise like always-0.5 (numeric: the base rate; a task: a uniform
    ranking). Written with the ledger's own commit (logged; dated at the round's cutoff, past the
    deadline on purpose). Returns the versions stored."""
    from foresci.contracts import Answer, ForecastAnswer
    from foresci.core.locks import artifact_lock
    from foresci.rounds.ledger import load_round, round_dir, round_ids
    from foresci.rounds.scores import resolved_outcomes
    from foresci.rounds.submit import commit_version, round_questions, round_tasks
    from foresci.rounds.task_scores import resolved_tasks

    stored = 0
    with artifact_lock(ledger, timeout=None):
        for round_id in round_ids(ledger):
            folder, manifest = round_dir(ledger, round_id), load_round(ledger, round_id)
            outcomes = resolved_outcomes(folder, manifest)
            resolutions = resolved_tasks(folder, manifest)
            if not outcomes and not resolutions:
                continue
            questions = round_questions(folder, manifest)
            tasks = round_tasks(folder)
            for p in ps:
                name = f"{LADDER_PREFIX}{p:g}"
                rng = random.Random(f"{seed}:{round_id}:{p}")
                rows = []
                for question in questions:
                    known = question.question_id in outcomes and rng.random() < p
                    outcome = outcomes[question.question_id][1] if known else None
                    if question.kind == "binary":
                        rows.append(ForecastAnswer(question_id=question.question_id, method=name,
                                                   probability=outcome if outcome is not None else 0.5))
                    else:
                        point = outcome if outcome is not None else float(question.baseline or 0.0)
                        rows.append(ForecastAnswer(question_id=question.question_id, method=name,
                                                   p10=point, p50=point, p90=point))
                task_rows = []
                for task in tasks:
                    order = [candidate.option_id for candidate in task.candidates]
                    rng.shuffle(order)
                    resolution = resolutions.get(task.task_id) or {}
                    hidden = resolution.get("hidden")
                    top = None if hidden is None else hidden.top_option() or hidden.stats.get("option_id")
                    if top in order and rng.random() < p:
                        order.remove(top)
                        order.insert(0, top)
                    task_rows.append(Answer(task_id=task.task_id, family=task.family, method=name,
                                            payload=_task_payload(task, order), text=f"{order[0]} first"))
                commit_version(folder, name, rows, {"kind": "benchmark-ladder", "value": f"p={p}"},
                               manifest.cutoff, round_id, task_rows=task_rows)
                stored += 1
    return stored


def main(argv: list[str] | None = None) -> int:
    """Print the report (and the ladder check with ``--ladder``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ledger", type=Path)
    parser.add_argument("--ladder", action="store_true", help="check the planted known-skill ladder")
    args = parser.parse_args(argv)
    figures = report(args.ledger)
    from foresci.rounds.integrity import usable_rows, verify
    from foresci.rounds.ledger import load_config, round_ids
    from foresci.rounds.scores import read_scores

    ledger_rows = usable_rows(read_scores(args.ledger, round_ids(args.ledger)), verify(args.ledger))
    agreement(ledger_rows, load_config(args.ledger))
    return ladder_check(args.ledger, figures) if args.ladder else 0


if __name__ == "__main__":
    sys.exit(main())
