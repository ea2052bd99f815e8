"""kept_pool: re-reading kept worlds of a seed set, as the benchmarks' --rescore does, without running any."""

from __future__ import annotations

from pathlib import Path

import pytest

from foresci.app import signal
from foresci.app.signal import SPARE_SEEDS, WorldOutcome, kept_pool


def test_the_first_kept_worlds_from_the_start_within_the_spares(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seeds without a kept world are passed over (at most SPARE_SEEDS past the count); of several folders
    the first that holds a world is read; reading stops at ``count`` worlds."""
    kept = {Path("a/s3"), Path("b/s3"), Path("b/s4"), Path("a/s6"), Path("a/s7"), Path("a/s20")}
    read: list[Path] = []

    def fake_kept_world(folder: Path, difficulty: float, seed: int) -> WorldOutcome | None:
        read.append(folder)
        return WorldOutcome(difficulty, seed, {}, 0.0, 0) if folder in kept else None

    monkeypatch.setattr(signal, "kept_world", fake_kept_world)
    pool = kept_pool(0.6, 3, 3, lambda seed: [Path(f"a/s{seed}"), Path(f"b/s{seed}")])
    assert [world.seed for world in pool.worlds] == [3, 4, 6]
    assert Path("b/s3") not in read  # a/s3 held it
    assert Path("a/s7") not in read  # three worlds found: no further reads
    far = kept_pool(0.6, 3, 4, lambda seed: [Path(f"a/s{seed}"), Path(f"b/s{seed}")])
    assert [world.seed for world in far.worlds] == [3, 4, 6, 7]
    assert 3 + 4 + SPARE_SEEDS <= 20  # seed 20 lies past the spares, so a fifth world is never found
    assert len(kept_pool(0.6, 3, 5, lambda seed: [Path(f"a/s{seed}")]).worlds) == 3
