"""The goals of ``benchmarks/demo_claim.py`` (trend > persistence >= chance, per seed set), on pools of
made-up worlds whose answers are known: each goal is missed exactly when its part of the claim is false."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from foresci.app.signal import DIRECTION, DifficultyPool, WorldOutcome
from foresci.evaluation.quality import CHANCE, FamilyQuality

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "demo_claim.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("demo_claim", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pool(trend_right: int, persistence_right: int, worlds: int = 20, tasks: int = 10) -> DifficultyPool:
    """``worlds`` worlds of ``tasks`` 4-option direction tasks; in each, trend is right on the first
    ``trend_right`` tasks and persistence on the last ``persistence_right``."""
    pool = DifficultyPool(0.6)
    for seed in range(worlds):
        keys = [f"s{seed}:t{index}" for index in range(tasks)]
        quality = FamilyQuality(DIRECTION)
        quality.top1["trend"] = {key: float(index < trend_right) for index, key in enumerate(keys)}
        quality.top1["persistence"] = {key: float(index >= tasks - persistence_right)
                                       for index, key in enumerate(keys)}
        quality.top1[CHANCE] = {key: 0.25 for key in keys}
        pool.worlds.append(WorldOutcome(0.6, seed, {DIRECTION: quality}, 0.0, 0))
    return pool


def test_the_claim_holds_when_trend_leads_and_persistence_is_at_or_above_chance() -> None:
    claim_failures = _script().claim_failures
    for persistence_right in (2, 3, 4):  # 0.2 in every world (below chance), 0.3, 0.4
        lines, failures = claim_failures(_pool(6, persistence_right))
        if persistence_right == 2:
            assert failures == ["persistence's upper bound 0.200 is below chance 0.250"], failures
        else:
            assert failures == [], failures
        assert any("chance is" in line for line in lines)


def test_each_part_of_the_claim_is_checked() -> None:
    claim_failures = _script().claim_failures
    _, failures = claim_failures(_pool(3, 3))  # trend no better than persistence
    assert len(failures) == 1 and failures[0].startswith("trend - persistence lower bound"), failures
    _, failures = claim_failures(_pool(2, 1))  # trend at chance, persistence below it
    assert any(failure.startswith("trend lower bound") for failure in failures), failures
    assert any(failure.startswith("persistence's upper bound") for failure in failures), failures
