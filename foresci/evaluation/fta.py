"""Reference-guided FTA (ForeSci eq. 6-7) and the slots of a hidden target."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from foresci.tasks.hidden import HiddenTarget, Slot
from foresci.tasks.models import Task


class TextEncoder(Protocol):
    """Anything that turns texts into L2-normalised row vectors (e.g. foresci.embedders.embedder.Embedder)."""

    def encode(self, texts: Sequence[str], show_progress: bool = False) -> np.ndarray:
        """Return an (n, d) array of normalised embeddings."""
        ...


@dataclass(frozen=True)
class SlotAlignment:
    """FTA_RG with its per-slot best matches."""

    value: float
    slot_scores: list[float]
    best_claims: list[str | None]


def clipped_cosine_matrix(encoder: TextEncoder, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
    """s(c, t) = max(0, cos(e(c), e(t))) for every pair; shape (len(left), len(right))."""
    if not left or not right:
        return np.zeros((len(left), len(right)), dtype=np.float32)
    vectors = encoder.encode(list(left) + list(right))
    first, second = vectors[: len(left)], vectors[len(left) :]
    first = first / np.maximum(np.linalg.norm(first, axis=1, keepdims=True), 1e-12)
    second = second / np.maximum(np.linalg.norm(second, axis=1, keepdims=True), 1e-12)
    return np.clip(first @ second.T, 0.0, 1.0)


def reference_guided_fta(claims: Sequence[str], slots: Sequence[Slot], encoder: TextEncoder) -> SlotAlignment:
    """FTA_RG = mean over slots of the best clipped cosine between any claim and any variant of the slot."""
    if not slots:
        raise ValueError("reference-guided FTA needs at least one slot")
    variants = [variant for slot in slots for variant in slot.variants]
    similarity = clipped_cosine_matrix(encoder, list(claims), variants)
    scores: list[float] = []
    best: list[str | None] = []
    start = 0
    for slot in slots:
        block = similarity[:, start : start + len(slot.variants)]
        start += len(slot.variants)
        if block.size == 0:
            scores.append(0.0)
            best.append(None)
            continue
        scores.append(float(block.max()))
        best.append(claims[int(np.unravel_index(int(block.argmax()), block.shape)[0])])
    return SlotAlignment(value=float(np.mean(scores)), slot_scores=scores, best_claims=best)


def target_slots(task: Task, hidden: HiddenTarget) -> tuple[list[Slot], str]:
    """The FTA slots of a target: hidden.slots, else those its family derives from its fields
    (source 'derived', :meth:`foresci.tasks.families.TaskFamily.derived_slots`; none for most families)."""
    if hidden.slots:
        return list(hidden.slots), "hidden"
    from foresci.tasks.families import UnknownFamilyError, get_family

    try:
        family = get_family(task.family)
    except UnknownFamilyError:  # a row of a family no longer registered: nothing to derive from
        return [], "derived"
    return family.derived_slots(task, hidden), "derived"


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def split_sentences(text: str, limit: int | None = None) -> list[str]:
    """Split an answer into sentence-like claims (bullets and headings stripped, short bits dropped)."""
    sentences: list[str] = []
    for piece in _SENTENCE_END.split(text):
        cleaned = re.sub(r"^\s*(?:[-*•#>]+|\d+[.)])\s*", "", piece).strip().strip("*_ ")
        if len(cleaned.split()) >= 3:
            sentences.append(cleaned)
    return sentences[:limit] if limit else sentences
