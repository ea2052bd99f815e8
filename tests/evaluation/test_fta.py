"""Reference-guided FTA (eq. 6-7): slot-max-mean of clipped cosine, several variants per slot."""

from __future__ import annotations

import math

import pytest

from foresci.evaluation.fta import reference_guided_fta, split_sentences, target_slots
from foresci.tasks.hidden import Slot, make_hidden_target
from tests.evaluation.conftest import TableEncoder
from tests.evaluation.fixtures import release_rows

VECTORS = {
    "c1": (1, 0),
    "c2": (0, 1),
    "t1a": (1, 1),
    "t1b": (1, 0.1),
    "t2a": (-1, 0),
    "t2b": (-1, 1),
    "t3": (-1, -1),
}


def test_slot_max_over_claims_and_variants_then_mean() -> None:
    slots = [
        Slot(name="s1", variants=["t1a", "t1b"]),
        Slot(name="s2", variants=["t2a", "t2b"]),
        Slot(name="s3", variants=["t3"]),
    ]
    result = reference_guided_fta(["c1", "c2"], slots, TableEncoder(VECTORS))
    s1 = 1 / math.sqrt(1.01)  # c1 vs t1b beats every pair with t1a (1/sqrt 2)
    s2 = 1 / math.sqrt(2)  # c2 vs t2b; t2a is anti-parallel to c1 and clipped to 0
    assert result.slot_scores == pytest.approx([s1, s2, 0.0], abs=1e-6)
    assert result.value == pytest.approx((s1 + s2 + 0.0) / 3, abs=1e-6)
    assert result.best_claims[:2] == ["c1", "c2"]


def test_variants_are_alternatives_not_extra_targets() -> None:
    one = reference_guided_fta(["c1"], [Slot(name="s", variants=["t1b"])], TableEncoder(VECTORS))
    more = reference_guided_fta(
        ["c1"], [Slot(name="s", variants=["t1b", "t2a", "t3"])], TableEncoder(VECTORS)
    )
    assert more.value == pytest.approx(one.value)


def test_no_claims_scores_zero_and_no_slots_is_an_error() -> None:
    assert reference_guided_fta([], [Slot(name="s", variants=["t1a"])], TableEncoder(VECTORS)).value == 0.0
    with pytest.raises(ValueError):
        reference_guided_fta(["c1"], [], TableEncoder(VECTORS))


def test_derived_slots_of_direction_and_bottleneck_targets() -> None:
    tasks, hidden, _, _ = release_rows()
    direction_slots, source = target_slots(tasks[0], hidden[0])
    assert source == "derived"
    assert [slot.name for slot in direction_slots] == ["direction", "trajectory"]
    assert "memory-augmented agents" in direction_slots[0].variants
    assert "tool-use benchmarks" in direction_slots[0].variants  # the acceptable neighbour B
    bottleneck_slots, _ = target_slots(tasks[1], hidden[1])
    assert [slot.name for slot in bottleneck_slots] == ["bottleneck", "opportunity", "mechanism"]
    assert len(bottleneck_slots[0].variants) == 2
    explicit = make_hidden_target(
        task_id="D1", family="direction_forecasting", slots=[Slot(name="x", variants=["y"])]
    )
    assert target_slots(tasks[0], explicit) == ([Slot(name="x", variants=["y"])], "hidden")


def test_split_sentences_strips_bullets_and_drops_fragments() -> None:
    text = "# Plan\n- First, scale memory retrieval.\n2. Then test on long tasks! Ok.\n"
    assert split_sentences(text) == ["First, scale memory retrieval.", "Then test on long tasks!"]
    assert split_sentences(text, limit=1) == ["First, scale memory retrieval."]
