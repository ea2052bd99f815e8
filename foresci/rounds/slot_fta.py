"""Deterministic FTA of the open-answer families in rounds (those scored by ``fta_offline_claims``).

A release scores these families' FTA two ways: ``fta`` over judge-extracted claims (judged evaluations),
and its offline stand-in ``fta_offline_claims``, the same reference-guided slot alignment over the answer's
own sentences (:func:`foresci.evaluation.metrics.fta.slot_result`: per slot of the hidden target, the best
clipped cosine between any answer sentence and any variant of the slot; their mean). Rounds use the offline
form: no judge LLM at tick, and the same answer, target and embedder always give the same number. The
embedder is the KB's own model (``kb.meta['embed_model']``, the one its vectors were made with), so a
ledger's FTA does not move with a settings change; a KB that names no model gives no slot FTA (top-1
only). Planning and venue keep their ranking FTA (:mod:`foresci.rounds.task_scores`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from foresci.contracts import Answer
from foresci.evaluation.fta import TextEncoder
from foresci.tasks.hidden import HiddenTarget
from foresci.tasks.models import Task

SLOT_METRIC = "fta_offline_claims"


def slot_fta_families() -> tuple[str, ...]:
    """The families whose round tasks get slot FTA: those scored by the offline slot alignment in a release
    (:data:`SLOT_METRIC` among their metrics), in registry order."""
    from foresci.tasks.families import all_families

    return tuple(family.name for family in all_families() if SLOT_METRIC in family.metrics)


def __getattr__(name: str) -> Any:
    if name == "SLOT_FTA_FAMILIES":  # the registered families' now (read when imported by name)
        return slot_fta_families()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def round_encoder(kb: Any, settings: Any) -> TextEncoder | None:
    """The KB's own embedder (cached under ``settings.cache_dir``), or None when the KB names no model."""
    meta = getattr(kb, "meta", None)
    model = meta.get("embed_model") if isinstance(meta, dict) else None
    if not model:
        return None
    from foresci.embedders.embedder import Embedder

    cache_dir = getattr(settings, "cache_dir", None)
    return Embedder(model=str(model), cache_dir=Path(cache_dir) if cache_dir else None)


def encoder_name(encoder: TextEncoder | None) -> str | None:
    """What names an encoder in the scores' input fingerprint (its model, else its class)."""
    if encoder is None:
        return None
    return str(getattr(encoder, "model_name", type(encoder).__name__))


def slot_fta(task: Task, hidden: HiddenTarget, answer: Answer, encoder: TextEncoder) -> float:
    """The offline reference-guided FTA of one answer (0 when the target has no slots)."""
    from foresci.evaluation.config import EvaluationSettings
    from foresci.evaluation.loading import ReleaseData
    from foresci.evaluation.metrics.fta import slot_result
    from foresci.evaluation.session import row_context

    release = ReleaseData(path=Path("."), tasks={task.task_id: task}, hidden={task.task_id: hidden})
    context = row_context(answer, release, EvaluationSettings(), encoder=encoder)
    result = slot_result("fta_offline_claims", context.claim_sentences, context)
    return float(result.value or 0.0)
