"""``ScoringContext``: everything a metric may read to score one answer row, expensive parts built lazily.

One context per answer row: the answer, its public task and hidden target (or forecast question and
resolution), the evaluation settings, the embedder, the judge client (judge phase) or what the judge
phase returned (:class:`JudgedParts`, score phase), the KB's dates of the cited ids and a cutoff-bounded
KB view. The answer text, citation checks, judge-extracted claims, sentence splits, the parsed forecast
and its numeric scores are computed once per row, on first use, and shared by the metrics.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from foresci.contracts import Answer, ForecastAnswer
from foresci.evaluation.config import EvaluationSettings
from foresci.evaluation.metrics.rows import FORECAST_FAMILY
from foresci.evaluation.models import MetricResult
from foresci.tasks.hidden import HiddenTarget, Resolution
from foresci.tasks.models import ForecastQuestion, Task

if TYPE_CHECKING:
    from foresci.core.settings import Settings
    from foresci.evaluation.fta import TextEncoder
    from foresci.evaluation.judges import JudgeClient
    from foresci.evaluation.trace import PaperDates
    from foresci.kb.retrieve import KBView
    from foresci.kb.store import KnowledgeBase


def answer_text(answer: Answer) -> str:
    """The text that is scored: the rendered answer, or its payload as sentences when the text is empty.

    (Non-LLM baselines may return only a structured payload.) Ranking parsing reads the payload itself.
    """
    if answer.text.strip():
        return answer.text
    parts = []
    for key, value in answer.payload.items():
        if isinstance(value, str) and value.strip():
            parts.append(f"{key.replace('_', ' ').capitalize()}: {value.strip().rstrip('.')}.")
        elif isinstance(value, list) and value and all(isinstance(item, str) for item in value):
            parts.append(f"{key.replace('_', ' ').capitalize()}: {'; '.join(value)}.")
    return "\n".join(parts)


@dataclass
class JudgedParts:
    """What the judge phase returned for one answer: the extracted claims (or why not) and each
    judge-phase metric's result."""

    claims: list[str] | None = None
    claims_error: str | None = None
    claims_error_kind: str | None = None
    metrics: dict[str, MetricResult] = field(default_factory=dict)


def judge_failed(name: str, error: str | None, kind: str | None) -> MetricResult:
    """A metric left unavailable by a judge failure (recorded with its kind, never a zero)."""
    return MetricResult(
        name=name, value=None, available=False, reason="judge failed", error=error, error_kind=kind
    )


class KBSource:
    """The KB an evaluation checks against, opened on first use and shared by the rows' contexts."""

    def __init__(self, path: Path, settings: Settings | None = None) -> None:
        self.path = Path(path)
        self.settings = settings
        self._kb: KnowledgeBase | None = None
        self._lock = threading.Lock()

    def view(self, cutoff: date) -> KBView:
        """A view of the KB bounded at ``cutoff`` (the KB is opened once)."""
        from foresci.kb.retrieve import KBView
        from foresci.kb.store import KnowledgeBase

        with self._lock:
            if self._kb is None:
                self._kb = KnowledgeBase.open(self.path, self.settings)
            return KBView(self._kb, cutoff)

    def close(self) -> None:
        """Close the KB if it was opened."""
        with self._lock:
            if self._kb is not None:
                self._kb.close()
                self._kb = None


@dataclass
class ScoringContext:
    """One answer row and everything its metrics may read (see the module docstring)."""

    answer: Answer
    settings: EvaluationSettings
    encoder: TextEncoder | None = None
    task: Task | None = None
    hidden: HiddenTarget | None = None
    question: ForecastQuestion | None = None
    resolution: Resolution | None = None
    judge: JudgeClient | None = None
    """The judge client, in the judge phase."""
    judged: JudgedParts | None = None
    """What the judge phase returned, in the score phase of a judged evaluation (None offline)."""
    kb_dates: PaperDates | None = None
    """The KB's announcement dates of the cited ids (None: no KB, citations are not checked and the
    citation-based metrics are not computed)."""
    kb: KBSource | None = None

    @property
    def family(self) -> str:
        """The row's family: its task's, or ``forecast``."""
        return self.task.family if self.task is not None else FORECAST_FAMILY

    @property
    def judging(self) -> bool:
        """True in a judged evaluation (judge phase or the score phase after it)."""
        return self.judge is not None or self.judged is not None

    @property
    def public_task(self) -> Task:
        """The row's public task (an error for forecast rows)."""
        if self.task is None:
            raise ValueError(f"{self.answer.task_id}: a forecast row has no public task")
        return self.task

    @property
    def target(self) -> HiddenTarget:
        """The row's hidden target (an error for forecast rows)."""
        if self.hidden is None:
            raise ValueError(f"{self.answer.task_id}: a forecast row has no hidden target")
        return self.hidden

    @property
    def embedder(self) -> TextEncoder:
        """The text encoder of embedding metrics (an error where none was given)."""
        if self.encoder is None:
            raise ValueError(f"{self.answer.task_id}: no embedder in this scoring context")
        return self.encoder

    @cached_property
    def text(self) -> str:
        """The scored text of the answer (:func:`answer_text`)."""
        return answer_text(self.answer)

    @cached_property
    def citation_checks(self) -> dict[str, Any]:
        """Which cited ids exist, precede the cutoff and were retrieved (see ``trace.citation_checks``)."""
        from foresci.evaluation.trace import citation_checks

        return citation_checks(self.answer, self.public_task.cutoff, self.kb_dates)

    @cached_property
    def claim_extraction(self) -> tuple[list[str] | None, str | None, str | None]:
        """(claims, error, error kind): the judge's atomic claims of the answer, extracted once.

        In the score phase they come from :attr:`judged`; offline there are none.
        """
        if self.judged is not None:
            return self.judged.claims, self.judged.claims_error, self.judged.claims_error_kind
        if self.judge is None:
            return None, "offline evaluation: no judge", None
        from foresci.evaluation.fact import extract_claims
        from foresci.evaluation.judges import JudgeError

        try:
            claims = extract_claims(self.judge, self.public_task, self.text, self.settings.max_claims)
        except JudgeError as error:
            return None, str(error), error.kind
        return claims, None, None

    @cached_property
    def claim_sentences(self) -> list[str]:
        """The answer's sentences as claims (at most ``max_claims``): what offline metrics compare."""
        from foresci.evaluation.fta import split_sentences

        return split_sentences(self.text, limit=self.settings.max_claims)

    @cached_property
    def kb_view(self) -> KBView | None:
        """The KB bounded at the task's cutoff (opened on first use; None without a KB)."""
        return None if self.kb is None else self.kb.view(self.public_task.cutoff)

    @cached_property
    def forecast(self) -> ForecastAnswer:
        """The answer's payload as a forecast (a ValueError when it is not one)."""
        return ForecastAnswer.model_validate(self.answer.payload)

    @cached_property
    def numeric_scores(self) -> dict[str, float | bool | None]:
        """CRPS, z, coverage and within-xk of a numeric forecast (``forecast.numeric_scores``)."""
        from foresci.evaluation.forecast import numeric_scores

        question, forecast = self.forecast_question, self.forecast
        if forecast.p10 is None or forecast.p50 is None or forecast.p90 is None:
            raise ValueError(f"forecast answer to {question.question_id} lacks p10/p50/p90")
        return numeric_scores(forecast.p10, forecast.p50, forecast.p90, self.outcome, question.baseline)

    @property
    def forecast_question(self) -> ForecastQuestion:
        """The row's forecast question (an error for task rows)."""
        if self.question is None:
            raise ValueError(f"{self.answer.task_id}: a task row has no forecast question")
        return self.question

    @property
    def outcome(self) -> float:
        """The resolved outcome of the row's forecast question."""
        if self.resolution is None:
            raise ValueError(f"{self.answer.task_id}: no resolution")
        return self.resolution.outcome
