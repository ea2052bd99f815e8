"""The release build's quieter garbage collector leaves the collector as it found it."""

from __future__ import annotations

import gc

import pytest

from foresci.tasks.collector import YOUNG_THRESHOLD, freeze_loaded, quiet_collector, with_quiet_collector


def test_thresholds_and_frozen_objects_are_restored() -> None:
    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    assert frozen == 0
    freeze_loaded()  # outside a build: nothing frozen
    assert gc.get_freeze_count() == 0
    kept = [[index] for index in range(1000)]
    with quiet_collector():
        assert gc.get_threshold()[0] == max(before[0], YOUNG_THRESHOLD)
        with quiet_collector():  # nested: the outer block restores
            freeze_loaded()
        assert gc.get_freeze_count() >= len(kept)  # still frozen until the outer block ends
        assert gc.get_threshold()[0] == max(before[0], YOUNG_THRESHOLD)
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_a_failing_build_restores_the_collector() -> None:
    before = gc.get_threshold()

    @with_quiet_collector
    def build() -> None:
        freeze_loaded()
        raise RuntimeError("build failed")

    with pytest.raises(RuntimeError, match="build failed"):
        build()
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
