"""Answer a release's (or package's) forecast questions with every method into ``forecasts.jsonl``.

One row per (question, method, model, mode), appended as it finishes and skipped on resume, like
``answers.jsonl``. trend and persistence answer in full mode from the KB view at the question's cutoff
(:mod:`foresci.agents.baselines.questions`); the LLM methods answer through
:func:`foresci.agents.forecasting.forecast_with_llm`, the KB-reading ones with their tools bound to the
question's cutoff and domain (native and name-only runs without). Each question is its own failure
boundary: an exception becomes a ``status="error"`` row naming the question, and the run goes on.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from foresci.agents.answers import AppendLog, read_forecasts, repair_torn_tail
from foresci.agents.baselines.questions import forecast_question
from foresci.agents.briefs import Mode
from foresci.agents.forecasting import forecast_with_llm
from foresci.agents.methods import BASELINE_METHODS
from foresci.agents.models import ForecastAnswer
from foresci.agents.tools import KBTools, KBViewLike
from foresci.io import write_jsonl
from foresci.llm import LLMClient, ModelInfo, contamination_risk
from foresci.settings import Settings
from foresci.tasks.models import ForecastQuestion

FORECASTS_FILE = "forecasts.jsonl"
ForecastKey = tuple[str, str, str | None, str]


def forecast_key(row: ForecastAnswer) -> ForecastKey:
    """The identity of a forecast row: (question_id, method, model, mode)."""
    return (row.question_id, row.method, row.model, row.mode)


@dataclass(frozen=True)
class ForecastJob:
    """One forecast row to produce."""

    question: ForecastQuestion
    method: str
    model: str | None
    mode: Mode

    @property
    def key(self) -> ForecastKey:
        """The row key this job fills."""
        return (self.question.question_id, self.method, self.model, self.mode)

    @property
    def reads_kb(self) -> bool:
        """Whether the method reads the KB for this question (all but native, and nothing name-only)."""
        return self.mode == "full" and self.method != "native"


def plan_forecasts(questions: list[ForecastQuestion], methods: list[str], models: list[str],
                   mode: Mode) -> list[ForecastJob]:
    """Every (question, method, model) job; non-LLM methods once (model None) and only in full mode."""
    jobs: list[ForecastJob] = []
    for question in questions:
        for method in methods:
            if method in BASELINE_METHODS:
                if mode == "full":
                    jobs.append(ForecastJob(question, method, None, mode))
                continue
            jobs.extend(ForecastJob(question, method, model, mode) for model in models)
    return jobs


def forecast_job(job: ForecastJob, llm: LLMClient | None, view: KBViewLike | None,
                 settings: Settings) -> ForecastAnswer:
    """One forecast row of ``job`` (method, model and mode filled in); raises on failure."""
    if job.reads_kb and view is None:
        raise ValueError(f"method {job.method} needs a KB (--kb)")
    if job.method in BASELINE_METHODS:
        assert view is not None
        row = forecast_question(job.method, view, job.question, settings.agents)
    else:
        if llm is None:
            raise ValueError("LLM methods need an LLM endpoint (FORESCI_LLM__BASE_URL)")
        tools = None
        if job.reads_kb:
            assert view is not None
            tools = KBTools(view, job.question.domain, settings.agents.tool_budget,
                            settings.agents.papers_per_query)
        row = forecast_with_llm(job.question, llm, tools, settings.agents, job.method)
    return row.model_copy(update={"method": job.method, "model": job.model, "mode": job.mode})


def answer_questions(
    questions: list[ForecastQuestion],
    out: Path,
    settings: Settings,
    methods: list[str],
    view_for: Callable[[date], KBViewLike | None],
    models: list[str] | None = None,
    mode: Mode = "full",
    clients: dict[str, LLMClient] | None = None,
    registry: dict[str, ModelInfo] | None = None,
    retry_errors: bool = False,
) -> tuple[int, int]:
    """Append the forecasts of ``questions`` by ``methods`` (x ``models``) to ``out/forecasts.jsonl``.

    Resumable: rows already there are skipped (error rows too, unless ``retry_errors``). Returns
    (rows written, error rows among them).
    """
    path = out / FORECASTS_FILE
    repair_torn_tail(path)
    existing = read_forecasts(path)
    if retry_errors and any(row.status == "error" for row in existing):
        existing = [row for row in existing if row.status != "error"]
        write_jsonl(path, existing)
    done = {forecast_key(row) for row in existing}
    jobs = [job for job in plan_forecasts(questions, methods, models or [], mode) if job.key not in done]
    log = AppendLog(path)

    def work(job: ForecastJob) -> ForecastAnswer:
        started = time.monotonic()
        parent = (clients or {}).get(job.model) if job.model else None
        llm = parent.child() if parent is not None else None
        try:
            row = forecast_job(job, llm, view_for(job.question.cutoff), settings)
        except Exception as error:  # the per-question boundary: an error row, the run goes on
            message = " ".join(str(error).split())[:2000]
            row = ForecastAnswer(question_id=job.question.question_id, method=job.method, model=job.model,
                                 mode=job.mode, status="error",
                                 error=f"question {job.question.question_id}: {type(error).__name__}: "
                                       f"{message}")
        row.contamination_risk = contamination_risk(job.model, job.question.cutoff, registry or {})
        if llm is not None:
            row.llm_calls = llm.usage.calls
            row.cache_hits = llm.usage.cache_hits
        row.notes.append(f"answered in {time.monotonic() - started:.2f} s")
        log.append(row)
        return row

    with ThreadPoolExecutor(max_workers=max(1, settings.agents.concurrency)) as pool:
        rows = list(pool.map(work, jobs))
    return len(rows), sum(row.status == "error" for row in rows)
