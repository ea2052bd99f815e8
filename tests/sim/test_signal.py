"""Regression: on worlds whose planted trends show before the cutoff, the whole pipeline with the real
packaged MiniLM gives a trend forecaster that beats persistence and chance on direction forecasting.

The worlds are those of ``benchmarks/foresight_signal.py`` (difficulty 0: the planted trends are under
way before the cutoff), three of them. The benchmark holds the full goal over ten worlds per difficulty,
with intervals that resample worlds; three worlds are too few for that, so this test asks for less, on the
tasks pooled over the three: trend's top-1 at least 10 points above chance (25 %) and its lead over
persistence, task by task, above zero with 95 % confidence. Before issue #13's fixes trend was right on 2
of 12 of these tasks (the hidden target then penalised whatever rose before the cutoff); on the neutral
world (a direction's pre-cutoff size independent of its label) at 40 papers a month the benchmark measured
trend right on 20 of 29, persistence on 2.
Hashed word vectors (what the other tests use) hid that regression, so this test embeds with the real
model; vectors go to the configured cache directory (FORESCI_CACHE_DIR; empty in CI, so embedding the
worlds' abstracts is part of the budget).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from foresci.app.signal import DIRECTION, DifficultyPool, run_world, small_world
from foresci.evaluation.quality import CHANCE

SEEDS = (0, 1, 2)
PAPERS_PER_MONTH = 40.0  # the benchmark's worlds until #29 (80 since: purer nodes, but more to embed here)


@pytest.mark.slow
def test_trend_beats_persistence_and_chance_where_trends_are_visible(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FORESCI_LLM__BASE_URL", raising=False)
    pool = DifficultyPool(0.0)
    for seed in SEEDS:
        config = small_world(seed, 0.0, PAPERS_PER_MONTH)
        pool.worlds.append(run_world(config, tmp_path / f"s{seed}"))
    quality = pool.family(DIRECTION)
    trend = quality.interval("top1", "trend")
    chance = quality.interval("top1", CHANCE)
    lead = quality.paired_difference("top1", "trend", "persistence")
    assert trend is not None and chance is not None and lead is not None
    assert trend.n >= 10, f"too few direction tasks ({trend.n}) for the check"
    assert trend.mean > chance.mean + 0.1, f"trend top-1 {trend.mean:.3f} (chance {chance.mean:.3f})"
    assert lead.low > 0, f"trend - persistence top-1 {lead.mean:+.3f} [{lead.low:+.3f}, {lead.high:+.3f}]"
