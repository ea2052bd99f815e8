"""``EvaluationSession``: what one evaluation shares (release, settings, embedder, judge client, KB), and the
:class:`ScoringContext` of each answer row built from it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from foresci.contracts import Answer
from foresci.evaluation.config import EvaluationSettings
from foresci.evaluation.loading import ReleaseData
from foresci.evaluation.metrics import JudgedParts, ScoringContext
from foresci.evaluation.metrics.context import KBSource

if TYPE_CHECKING:
    from foresci.core.settings import Settings
    from foresci.evaluation.fta import TextEncoder
    from foresci.evaluation.judges import JudgeClient
    from foresci.evaluation.trace import PaperDates


def row_context(
    answer: Answer,
    release: ReleaseData,
    settings: EvaluationSettings,
    *,
    encoder: TextEncoder | None = None,
    judge: JudgeClient | None = None,
    judged: JudgedParts | None = None,
    kb_dates: PaperDates | None = None,
    kb: KBSource | None = None,
) -> ScoringContext:
    """The scoring context of one answer of ``release`` (task and target, or question and resolution)."""
    return ScoringContext(
        answer=answer,
        settings=settings,
        encoder=encoder,
        task=release.tasks.get(answer.task_id),
        hidden=release.hidden.get(answer.task_id),
        question=release.questions.get(answer.task_id),
        resolution=release.resolutions.get(answer.task_id),
        judge=judge,
        judged=judged,
        kb_dates=kb_dates,
        kb=kb,
    )


@dataclass
class EvaluationSession:
    """One evaluation's shared inputs (``settings``: the whole settings; a row's context gets their
    ``evaluation`` section). ``client`` is None in an offline evaluation; ``kb`` is the KB that
    citations are checked against (its dates of the cited ids in ``kb_dates``), opened only if a metric
    asks for a KB view."""

    release: ReleaseData
    settings: Settings
    encoder: TextEncoder
    client: JudgeClient | None = None
    kb_dates: PaperDates | None = None
    kb: KBSource | None = None

    def context(self, answer: Answer, judged: JudgedParts | None = None) -> ScoringContext:
        """The score-phase context of ``answer`` (``judged``: what its judge phase returned)."""
        return row_context(
            answer, self.release, self.settings.evaluation, encoder=self.encoder, judged=judged,
            kb_dates=self.kb_dates, kb=self.kb,
        )

    def judge_context(self, answer: Answer, client: JudgeClient) -> ScoringContext:
        """The judge-phase context of ``answer`` (no embedder: judge phases run concurrently)."""
        return row_context(
            answer, self.release, self.settings.evaluation, judge=client, kb_dates=self.kb_dates, kb=self.kb
        )

    def close(self) -> None:
        """Close the KB if a metric opened it."""
        if self.kb is not None:
            self.kb.close()
