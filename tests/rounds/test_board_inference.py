"""What a board can say, on generated score rows: no gain from skipping (coverage rule), agreement of the
adjusted and the direct paired differences, shared ranks and order probabilities, the reference's own
uncertainty, split-half reliability without imputed-only phantoms, one FTA board per kind, the top-1
chance line with neighbour credit, and an independent least-squares recomputation of a whole board."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from foresci.rounds.ledger import LedgerConfig
from foresci.rounds.scores import board, board_sections

CONFIG = LedgerConfig(min_items=5, bootstrap=2000, seed=3)


def _rows(
    skills: dict[str, float],
    *,
    metric: str = "brier",
    rounds: int = 6,
    items: int = 40,
    seed: int = 0,
    noise: float = 0.2,
    families: tuple[str, ...] = ("f1",),
    skip: dict[str, set[str]] | None = None,
    enters: dict[str, int] | None = None,
) -> list[dict[str, Any]]:
    """Score rows of methods with planted skill (added to the score; lower is better on Brier), item
    difficulties shared by all, per-item noise; ``skip``: families a method never answers (no rows);
    ``enters``: the round a method's rows start at."""
    rng = np.random.default_rng(seed)
    rows = []
    for round_index in range(rounds):
        round_id = f"r-2025-{round_index + 1:02d}-28"
        for number in range(items):
            family = families[number % len(families)]
            item = f"{round_id}/q{number}"
            hardness = rng.uniform(0.1, 0.4)
            for method, skill in skills.items():
                if family in (skip or {}).get(method, set()) or round_index < (enters or {}).get(method, 0):
                    continue
                rows.append({"round_id": round_id, "item": item, "method": method, "version": 1,
                             "metric": metric, "family": family, "imputed": False, "options": 4,
                             "score": float(hardness + skill + rng.normal(0, noise))})
    return rows


def _direct(rows: list[dict[str, Any]], first: str, second: str) -> float:
    """The paired mean difference on the items both methods have a row on."""
    scores: dict[str, dict[str, float]] = {}
    for row in rows:
        scores.setdefault(row["method"], {})[row["item"]] = row["score"]
    shared = sorted(set(scores[first]) & set(scores[second]))
    return float(np.mean([scores[first][item] - scores[second][item] for item in shared]))


def _entries(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["method"]: entry for entry in result["methods"]}


def test_skipping_a_family_does_not_rank_above_answering_everything() -> None:
    """The recency case: a method answers only the family where everyone does well and scores well there;
    it is unranked (coverage < 95 %), and its board score does not beat the method that answered all."""
    rows = _rows({"persistence": 0.0, "everything": 0.1, "recency": 0.05}, metric="top1",
                 families=("easy", "hard", "harder"), skip={"recency": {"hard", "harder"}}, noise=0.05)
    for row in rows:  # top-1 is higher-is-better: the easy family scores high for everyone
        row["score"] = row["score"] + (0.6 if row["family"] == "easy" else 0.0)
    entries = _entries(board(rows, "top1", CONFIG))
    easy = sum(1 for number in range(40) if number % 3 == 0)
    assert entries["recency"]["coverage"] == pytest.approx(easy / 40, abs=1e-4)
    assert not entries["recency"]["ranked"] and entries["recency"]["rank"] is None
    assert entries["everything"]["ranked"] and entries["everything"]["rank"] == 1
    assert entries["recency"]["score"] < entries["everything"]["score"]


def test_adjusted_and_direct_differences_agree_and_a_third_submitter_moves_no_one() -> None:
    """The issue's goals on generated rows with a late entrant and a submitter that skips a family: the
    adjusted difference of two ranked methods equals their direct paired difference within 0.01, and
    removing a third submitter (either one) moves no one's adjusted score by more than 0.005."""
    skills = {"always-0.5": 0.0, "base-rate": -0.02, "good": -0.05, "late": -0.03, "third": 0.01,
              "skipper": -0.1}
    rows = _rows(skills, enters={"late": 2}, rounds=8, items=50, families=("f1", "f2"),
                 skip={"skipper": {"f2"}})
    full = _entries(board(rows, "brier", CONFIG))
    assert not full["skipper"]["ranked"] and full["skipper"]["coverage"] == 0.5
    for first, second in (("good", "base-rate"), ("late", "good"), ("third", "always-0.5")):
        adjusted = full[first]["score"] - full[second]["score"]
        assert adjusted == pytest.approx(_direct(rows, first, second), abs=0.01)
    for removed in ("third", "skipper"):
        without = _entries(board([row for row in rows if row["method"] != removed], "brier", CONFIG))
        for method, entry in without.items():
            assert abs(entry["score"] - full[method]["score"]) <= 0.005, (removed, method)


def test_shared_ranks_order_probabilities_and_pvalues() -> None:
    rows = _rows({"always-0.5": 0.0, "twin-a": -0.08, "twin-b": -0.0805, "bad": 0.1}, rounds=4, items=60)
    result = board(rows, "brier", CONFIG)
    entries = _entries(result)
    assert entries["twin-a"]["rank"] == entries["twin-b"]["rank"] == 1  # not separated: one rank
    assert entries["always-0.5"]["rank"] == 3 and entries["bad"]["rank"] == 4
    order = [entry["method"] for entry in result["methods"]]
    assert sorted(order[:2]) == ["twin-a", "twin-b"] and order[2:] == ["always-0.5", "bad"]
    assert entries[order[0]]["p_vs_leader"] == 0.0
    assert entries["always-0.5"]["p_vs_leader"] <= 0.05 < entries[order[1]]["p_vs_leader"]
    assert entries["always-0.5"]["separated_from_leader"] and not entries[order[1]]["separated_from_leader"]
    probabilities = [entry["order_prob"] for entry in result["methods"]]
    assert 0.5 <= probabilities[0] < 0.95 and probabilities[1] > 0.99 and probabilities[2] > 0.99
    assert probabilities[-1] is None
    assert result["resamples"] == 2000 and result["resampling"] == "items"


def test_equal_methods_tie_and_ranks_follow_the_board_order() -> None:
    """A copy of the reference ties with it (one rank, order probability 0.5, not float noise); a method
    with a wide interval below a separated one does not get a better rank than it."""
    rows = _rows({"always-0.5": 0.0, "good": -0.1, "noisy": 0.01}, rounds=4, items=60, noise=0.05)
    rng = np.random.default_rng(5)
    for row in rows:
        if row["method"] == "noisy":
            row["score"] += float(rng.normal(0, 0.6))
    rows += [{**row, "method": "copy"} for row in rows if row["method"] == "always-0.5"]
    result = board(rows, "brier", CONFIG)
    entries = _entries(result)
    assert entries["copy"]["rank"] == entries["always-0.5"]["rank"] and entries["copy"]["score"] == 0.25
    first = min(("copy", "always-0.5"), key=[entry["method"] for entry in result["methods"]].index)
    assert entries[first]["order_prob"] == 0.5
    ranks = [entry["rank"] for entry in result["methods"]]
    assert ranks == sorted(ranks) and ranks[0] == 1 and entries["good"]["rank"] == 1


def test_whole_rounds_are_resampled_once_there_are_enough() -> None:
    few = board(_rows({"always-0.5": 0.0, "m": -0.05}, rounds=7, items=10), "brier", CONFIG)
    many = board(_rows({"always-0.5": 0.0, "m": -0.05}, rounds=8, items=10), "brier", CONFIG)
    assert few["resampling"] == "items" and many["resampling"] == "rounds"
    assert "8 rounds" in many["resampling_rule"]


def test_the_reference_carries_its_own_uncertainty() -> None:
    rows = _rows({"base-rate": 0.0, "m": -0.05}, metric="crps")
    entries = _entries(board(rows, "crps", CONFIG))
    assert entries["base-rate"]["high"] - entries["base-rate"]["low"] > 0.01  # its mean is resampled too
    direct = np.mean([row["score"] for row in rows if row["method"] == "base-rate"])
    assert entries["base-rate"]["score"] == pytest.approx(direct, abs=1e-6)
    rows = _rows({"persistence": 0.0, "m": 0.05}, metric="top1")
    entries = _entries(board(rows, "top1", CONFIG))
    assert entries["persistence"]["high"] > entries["persistence"]["low"]


def test_reliability_is_split_half_and_ignores_imputed_only_methods() -> None:
    skills = {"always-0.5": 0.0, "a": -0.06, "b": -0.03, "c": 0.03, "d": 0.06}
    rows = _rows(skills, rounds=6, items=60, noise=0.1)
    reliable = board_sections(rows, CONFIG)["reliability"]["brier"]
    assert reliable is not None and reliable > 0.9
    noise = board_sections(_rows(dict.fromkeys(skills, 0.0), rounds=6, items=60), CONFIG)
    assert noise["reliability"]["brier"] < 0.6
    phantom = [{**row, "method": "phantom", "imputed": True, "score": 0.25}
               for row in rows if row["method"] == "always-0.5"]
    with_phantom = board_sections(rows + phantom, CONFIG)
    assert with_phantom["reliability"]["brier"] == reliable
    assert "phantom" not in {entry["method"] for entry in with_phantom["boards"]["brier"]["methods"]}


def test_one_fta_board_per_kind_and_top1_chance_counts_neighbour_credit() -> None:
    ranking = _rows({"persistence": 0.0, "m": 0.1}, metric="fta", families=("strategic_planning",))
    slots = _rows({"persistence": 0.0, "m": 0.1}, metric="fta", families=("direction_forecasting",), seed=1)
    for row in slots:
        row["item"] += "-slot"
    sections = board_sections(ranking + slots, CONFIG)["family_boards"]
    assert sections["fta_ranking"]["items"] == sections["fta_slot"]["items"] == 240
    assert sections["fta_ranking"]["families"] == ["!direction_forecasting", "!bottleneck_opportunity"]
    top = _rows({"persistence": 0.0}, metric="top1", rounds=1, items=4)
    credit = {top[0]["item"]: (1 + 0.5 * 2) / 4}  # a direction task with two acceptable neighbours
    result = board(top, "top1", CONFIG, chance_credit=credit)
    assert result["chance"] == pytest.approx((0.5 + 3 * 0.25) / 4)


def _independent_board(rows: list[dict[str, Any]], reference: str, value: float) -> dict[str, float]:
    """The board's stated rule, recomputed without foresci: items a method skipped since its first round
    read 0.25; OLS on an intercept, item dummies and method dummies (numpy lstsq)."""
    first: dict[str, str] = {}
    for row in rows:
        first[row["method"]] = min(first.get(row["method"], row["round_id"]), row["round_id"])
    round_of = {row["item"]: row["round_id"] for row in rows}
    cells = {(row["item"], row["method"]): row["score"] for row in rows}
    for item, round_id in round_of.items():
        for method, start in first.items():
            if round_id >= start:
                cells.setdefault((item, method), 0.25)
    items = sorted(round_of)
    methods = [reference] + sorted(set(first) - {reference})
    design = np.zeros((len(cells), len(items) + len(methods) - 1))
    target = np.zeros(len(cells))
    for index, ((item, method), score) in enumerate(sorted(cells.items())):
        design[index, 0] = 1.0
        if items.index(item):
            design[index, items.index(item)] = 1.0
        if methods.index(method):
            design[index, len(items) - 1 + methods.index(method)] = 1.0
        target[index] = score
    solution = np.linalg.lstsq(design, target, rcond=None)[0]
    return {method: value + (float(solution[len(items) - 1 + index]) if index else 0.0)
            for index, method in enumerate(methods)}


def test_an_independent_least_squares_fit_recomputes_the_board() -> None:
    rows = _rows({"always-0.5": 0.0, "a": -0.04, "late": -0.02, "gappy": 0.01}, enters={"late": 3},
                 rounds=5, items=20, families=("f1", "f2"), skip={"gappy": {"f2"}})
    independent = _independent_board(rows, "always-0.5", 0.25)
    entries = _entries(board(rows, "brier", CONFIG))
    assert set(entries) == set(independent)
    for method, value in independent.items():
        assert entries[method]["score"] == pytest.approx(value, abs=1e-6), method


def test_entry_by_precision() -> None:
    """With ``entry_se``, a method is ranked once the SE of its difference from the reference is small
    enough: not on 2 rounds of 10 items, yes on 6 rounds of 100."""
    strict = LedgerConfig(min_items=5, bootstrap=400, seed=3, entry_se={"brier": 0.01})
    skills = {"always-0.5": 0.0, "m": -0.05}
    short = _entries(board(_rows(skills, rounds=2, items=10, noise=0.1), "brier", strict))
    long = _entries(board(_rows(skills, rounds=6, items=100, noise=0.1), "brier", strict))
    assert short["m"]["se_vs_reference"] > 0.01 and not short["m"]["ranked"]
    assert long["m"]["se_vs_reference"] <= 0.01 and long["m"]["ranked"]
    assert short["always-0.5"]["ranked"]  # the reference itself is the scale


def test_items_of_one_node_are_resampled_together_and_crossed_with_rounds() -> None:
    """Items that share a taxonomy node (``node`` on the rows) move together: a node-level shock on one
    method's scores. The board draws the nodes too (two-way with the rounds once there are 8), and its
    interval's spread matches an independent recomputation: the paired mean under independently drawn
    round x node weights (every method answers every item, so the adjusted difference is that mean)."""
    rng = np.random.default_rng(11)
    rounds, per_round, node_count = 8, 30, 12
    shocks = rng.normal(0, 0.15, node_count)
    rows = []
    keys: list[tuple[int, int]] = []
    differences = []
    for round_index in range(rounds):
        round_id = f"r-2025-{round_index + 1:02d}-28"
        for number in range(per_round):
            node = int(rng.integers(node_count))
            item = f"{round_id}/q{number}"
            hardness = rng.uniform(0.1, 0.4)
            difference = -0.03 + shocks[node] + rng.normal(0, 0.05)
            keys.append((round_index, node))
            differences.append(difference)
            for method, extra in (("always-0.5", 0.0), ("m", difference)):
                rows.append({"round_id": round_id, "item": item, "method": method, "version": 1,
                             "metric": "brier", "family": "f1", "imputed": False,
                             "node": f"d/n{node}", "score": float(hardness + extra)})
    result = board(rows, "brier", CONFIG)
    assert result["resampling"] == "rounds x nodes" and "taxonomy nodes" in result["resampling_rule"]
    entry = _entries(result)["m"]
    width = entry["high"] - entry["low"]
    # independent: numpy Poisson(1) weights per round and per node (a different draw than the board's)
    check = np.random.default_rng(99)
    values = np.asarray(differences)
    round_of = np.array([key[0] for key in keys])
    node_of = np.array([key[1] for key in keys])
    means = []
    for _ in range(4000):
        weights = check.poisson(1.0, rounds)[round_of] * check.poisson(1.0, node_count)[node_of]
        if weights.sum() > 0:
            means.append(float((weights * values).sum() / weights.sum()))
    low, high = np.percentile(means, [2.5, 97.5])
    assert width == pytest.approx(high - low, rel=0.2)
    no_nodes = board([{**row, "node": None} for row in rows], "brier", CONFIG)
    items_only = _entries(no_nodes)["m"]
    assert no_nodes["resampling"] == "rounds"
    assert width > 1.5 * (items_only["high"] - items_only["low"])  # rounds alone miss the node shocks
