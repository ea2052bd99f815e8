"""The inspect scorer of a foresci release: foresci's offline metrics of each sample's answer.

The scorer reads the sample's final reply and stored support into the answer row that the log import
writes (:func:`foresci.bridges.inspect_ai.answers.answer_row`; for a forecast question's sample the
forecast row of :func:`foresci.bridges.inspect_ai.questions.forecast_row`, scored with CRPS, Brier and
coverage against the release's resolutions) and scores it as ``foresci eval --offline`` does
(:func:`foresci.evaluation.runner.score_answers` against the release's hidden targets, citations checked
against the KB when one is given). The hidden targets are read here, on the scoring side, and never reach
a sample. The inspect score's value holds one number per metric (NaN where the
metric does not apply to the task's family or the answer failed: inspect counts NaN as unscored); its
metadata holds the whole foresci score row.
"""

from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState

from foresci.bridges.inspect_ai.answers import answer_row
from foresci.bridges.inspect_ai.dataset import sample_task
from foresci.bridges.inspect_ai.questions import forecast_row, sample_question
from foresci.bridges.inspect_ai.tools import SUPPORT_KEY
from foresci.contracts import ForecastAnswer
from foresci.evaluation.loading import ReleaseData, forecast_as_answer, kb_citation_dates, load_release
from foresci.evaluation.metrics import metrics_for
from foresci.evaluation.metrics.context import KBSource
from foresci.evaluation.models import Score as ForesciScore
from foresci.evaluation.runner import score_answers
from foresci.evaluation.session import EvaluationSession

SCORE_METADATA = "foresci_score"
SCORER_METHOD = "inspect"


def scored_metric_names(families: set[str]) -> list[str]:
    """The offline (score-phase) metrics of ``families``, in registration order: the score's keys."""
    names: dict[str, None] = {}
    for family in sorted(families):
        names.update(dict.fromkeys(metric.name for metric in metrics_for(family, phase="score")))
    return list(names)


class ReleaseScoring:
    """What every sample's scoring shares: the release with its hidden targets, the settings, the
    embedder (loaded on first use) and the KB citations are checked against."""

    def __init__(self, release_dir: Path, kb_dir: Path | None) -> None:
        from foresci.core.settings import Settings

        self.release: ReleaseData = load_release(release_dir)
        self.kb_dir = kb_dir
        self.settings = Settings()
        self._encoder: Any = None
        self._lock = threading.Lock()

    def score(self, row: Any) -> ForesciScore:
        """The foresci score row of one answer row (offline, as ``foresci eval --offline``)."""
        with self._lock:
            if self._encoder is None:
                from foresci.embedders.embedder import embedder_from_settings

                self._encoder = embedder_from_settings(self.settings)
            session = EvaluationSession(
                self.release, self.settings, self._encoder,
                kb_dates=kb_citation_dates(self.kb_dir, [row]) if self.kb_dir is not None else None,
                kb=KBSource(self.kb_dir, self.settings) if self.kb_dir is not None else None,
            )
            try:
                return score_answers([row], session)[0]
            finally:
                session.close()


def forecast_text(forecast: ForecastAnswer) -> str:
    """A forecast row as the score's answer text: its quantiles or its probability."""
    if forecast.probability is not None:
        return f"probability {forecast.probability:g}"
    return f"p10 {forecast.p10:g}, p50 {forecast.p50:g}, p90 {forecast.p90:g}"


def inspect_score(score: ForesciScore, names: list[str], answer_text: str) -> Score:
    """A foresci score row as an inspect ``Score``: one value per metric name (NaN when absent)."""
    values: dict[str, float] = {}
    for name in names:
        result = score.metrics.get(name)
        usable = result is not None and result.available and result.value is not None
        values[name] = float(result.value) if usable and result is not None else math.nan  # type: ignore[arg-type]
    if score.status != "ok":
        explanation = f"{score.status}: {score.error}"
    else:
        shown = ", ".join(f"{name} {value:.3f}" for name, value in values.items() if not math.isnan(value))
        explanation = f"contract {score.contract}; {shown or 'no metric applies'}"
    return Score(value=values, answer=answer_text, explanation=explanation,  # type: ignore[arg-type]
                 metadata={SCORE_METADATA: score.model_dump(mode="json")})


def foresci_scorer(release: str, kb: str | None, names: list[str]) -> Scorer:
    """The scorer of ``release`` (``names``: the metric keys of its families, each averaged by inspect)."""

    @scorer(metrics={name: [mean()] for name in names}, name="foresci")
    def make(release: str, kb: str | None) -> Scorer:
        scoring = ReleaseScoring(Path(release), Path(kb) if kb else None)

        async def score(state: TaskState, target: Target) -> Score:
            support = state.store.get(SUPPORT_KEY) if kb else None
            question = sample_question(state.metadata)
            if question is not None:
                forecast = forecast_row(question, state.output.completion, support, method=SCORER_METHOD,
                                        model=str(state.model))
                shown = forecast_text(forecast) if forecast.status == "ok" else (forecast.error or "")
                return inspect_score(scoring.score(forecast_as_answer(forecast)), names, shown)
            task = sample_task(state.metadata)
            row = answer_row(task, state.output.completion, support, method=SCORER_METHOD,
                             model=str(state.model))
            return inspect_score(scoring.score(row), names, row.text or (row.error or ""))

        return score

    return make(release=release, kb=kb)
