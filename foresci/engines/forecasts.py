"""One forecast job of a round submission answered the same way here and on a Ray worker.

:func:`forecast_row` is the per-question failure boundary of :mod:`foresci.methods.forecast_runner`
(an exception becomes a ``status="error"`` row naming the question) without its wall-clock note, so the
rows a submission stores depend only on the answers: the local threads and the Ray workers give the same
bytes, and the same ``sha256``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from foresci.contracts import ForecastAnswer
from foresci.core.settings import Settings
from foresci.core.transcripts import Transcript, recording
from foresci.llm import LLMClient, ModelInfo, contamination_risk
from foresci.methods.forecast_runner import ForecastJob, forecast_job


def forecast_row(
    job: ForecastJob,
    parent: LLMClient | None,
    view_for: Callable[[date], Any],
    settings: Settings,
    registry: dict[str, ModelInfo],
) -> tuple[ForecastAnswer, Transcript]:
    """The row of ``job`` (an error row when answering failed) and its transcript; ``parent`` is the
    backbone's client (a child counts this job's calls), ``view_for`` the KB view at a cutoff."""
    llm = parent.child() if parent is not None else None
    with recording() as transcript:
        try:
            view = view_for(job.question.cutoff) if job.reads_kb else None
            row = forecast_job(job, llm, view, settings)
        except Exception as error:  # the per-question boundary: an error row, the submission goes on
            message = " ".join(str(error).split())[:2000]
            row = ForecastAnswer(
                question_id=job.question.question_id,
                method=job.spec.name,
                model=job.model,
                mode=job.mode,
                status="error",
                error=f"question {job.question.question_id}: {type(error).__name__}: {message}",
            )
    row.contamination_risk = contamination_risk(job.model, job.question.cutoff, registry)
    if llm is not None:
        row.llm_calls = llm.usage.calls
        row.cache_hits = llm.usage.cache_hits
    return row, transcript
