"""benchmarks/rounds_power.py: the paired and round-clustered standard errors its minimum detectable
differences are made of, on generated paired differences."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "rounds_power.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rounds_power", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows(round_shift: float, seed: int) -> list[dict]:
    """Two methods on 10 rounds x 30 items; method b's difference from a shifts by round (``round_shift``
    SD), so the items of a round are correlated."""
    rng = np.random.default_rng(seed)
    rows = []
    for number in range(10):
        shift = rng.normal(0, round_shift)
        for item in range(30):
            base = rng.uniform(0, 0.5)
            rows.append({"round_id": f"r-{number}", "item": f"{number}/{item}", "method": "a", "score": base})
            rows.append({"round_id": f"r-{number}", "item": f"{number}/{item}", "method": "b",
                         "score": base + 0.05 + shift + rng.normal(0, 0.2)})
    return rows


def test_paired_and_clustered_standard_errors() -> None:
    power = _script().pair_power
    plain = power(_rows(0.0, 1), "b", "a")
    assert plain["n"] == 300 and plain["rounds"] == 10
    assert plain["se"] == pytest.approx(plain["sd"] / np.sqrt(300))
    assert plain["difference"] == pytest.approx(0.05, abs=0.03)
    assert 0.5 < plain["design_effect"] < 2.0  # no round effect: clustering changes little
    clustered = power(_rows(0.1, 1), "b", "a")
    assert clustered["design_effect"] > 3 and clustered["se_clustered"] > 1.7 * clustered["se"]
    assert power(_rows(0.0, 1)[:4], "b", "a") is None  # too few shared items


def _dated_rows(days_apart: int, seed: int) -> list[dict]:
    """Two methods on 40 dated rounds x 30 items with 3-month windows; a round's shift in b - a is the sum of
    the shocks of the fortnights its window spans, so rounds whose windows overlap share shocks."""
    from datetime import date, timedelta

    rng = np.random.default_rng(seed)
    shocks = rng.normal(0, 0.05, size=400)
    rows = []
    for number in range(40):
        day = date(2025, 1, 1) + timedelta(days=days_apart * number)
        start = number * days_apart // 14
        shift = float(shocks[start:start + 6].sum())  # the window's 6 fortnights
        for item in range(30):
            base = rng.uniform(0, 0.5)
            common = {"round_id": f"r-{day.isoformat()}", "item": f"{number}/{item}", "window": "3m"}
            rows.append({**common, "method": "a", "score": base})
            rows.append({**common, "method": "b", "score": base + shift + rng.normal(0, 0.2)})
    return rows


def test_rounds_whose_windows_overlap_are_not_counted_as_independent() -> None:
    power = _script().pair_power
    biweekly = power(_dated_rows(14, 2), "b", "a")
    assert biweekly["se_overlap"] > 1.3 * biweekly["se_clustered"]  # about 2 expected: 6 shared fortnights
    apart = power(_dated_rows(120, 2), "b", "a")  # windows 91 days long, rounds 120 days apart
    assert apart["se_overlap"] == pytest.approx(apart["se_clustered"])
    undated = power(_rows(0.1, 1), "b", "a")  # round ids without dates: the round-clustered SE
    assert undated["se_overlap"] == undated["se_clustered"]
