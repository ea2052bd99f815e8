"""Answer a release's (or package's) forecast questions with every method into ``forecasts.jsonl``.

One row per (question, method, model, mode), appended as it finishes and skipped on resume, like
``answers.jsonl``. Each method answers through its forecast hook (:class:`foresci.methods.MethodSpec`
``forecast``; plug-ins behind the wall, :func:`foresci.methods.calling.call_forecast`) with KB tools bound
to the question's cutoff and domain when it reads the KB in full mode, and the chat-model client of the
``--model`` backbone when it uses an LLM: trend and persistence (:mod:`foresci.methods.shipped.baselines`),
the LLM methods (:mod:`foresci.methods.shipped.forecasting`). Methods without an LLM run once and only in full
mode. Each question is its own failure boundary: an exception (a method without a hook included)
becomes a ``status="error"`` row naming the question, and the run goes on.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from foresci.agents.answers import AppendLog, read_forecasts, repair_torn_tail
from foresci.agents.briefs import Mode
from foresci.agents.tools import KBTools, KBViewLike
from foresci.contracts import ForecastAnswer
from foresci.core.io import write_jsonl
from foresci.core.settings import Settings
from foresci.core.transcript_log import TRANSCRIPTS_FILE, TranscriptLog, secrets_of
from foresci.core.transcripts import recording
from foresci.llm import LLMClient, ModelInfo, contamination_risk
from foresci.methods.calling import call_forecast
from foresci.methods.registry import ForecastInput, MethodSpec
from foresci.tasks.models import ForecastQuestion

FORECASTS_FILE = "forecasts.jsonl"
ForecastKey = tuple[str, str, str | None, str]


def forecast_key(row: ForecastAnswer) -> ForecastKey:
    """The identity of a forecast row: (question_id, method, model, mode)."""
    return (row.question_id, row.method, row.model, row.mode)


@dataclass(frozen=True)
class ForecastTally:
    """What :func:`answer_questions` did: rows written now and error rows among them, and over the
    command's (question, method, model, mode) keys after it, the rows that stand and the errors among them
    (an earlier run's error rows included: a rerun skips them unless ``retry_errors``)."""

    written: int = 0
    errors: int = 0
    rows: int = 0
    standing_errors: int = 0


@dataclass(frozen=True)
class ForecastJob:
    """One forecast row to produce."""

    question: ForecastQuestion
    spec: MethodSpec
    model: str | None
    mode: Mode

    @property
    def key(self) -> ForecastKey:
        """The row key this job fills."""
        return (self.question.question_id, self.spec.name, self.model, self.mode)

    @property
    def reads_kb(self) -> bool:
        """Whether the method reads the KB for this question (a KB-reading method in full mode)."""
        return self.mode == "full" and self.spec.needs_kb


def plan_forecasts(questions: list[ForecastQuestion], specs: list[MethodSpec], models: list[str],
                   mode: Mode) -> list[ForecastJob]:
    """Every (question, method, model) job; methods without an LLM once (model None), only in full mode.
    A shipped method without a forecast hook (``recency``: it reads only a task's stated option counts)
    gets no job; a plug-in without one still gets error rows that say so. A method limited to some
    families is asked only their questions."""
    return [ForecastJob(question, spec, model, mode)
            for question in questions for spec in specs if spec.forecast is not None or not spec.shipped
            if spec.asks(str(question.params.get("family")))
            for model in spec.backbones(models, mode)]


def forecast_job(job: ForecastJob, llm: LLMClient | None, view: KBViewLike | None,
                 settings: Settings) -> ForecastAnswer:
    """One forecast row of ``job`` (method, model and mode filled in); raises on failure."""
    tools = None
    if job.reads_kb:
        if view is None:
            raise ValueError(f"method {job.spec.name} needs a KB (--kb)")
        tools = KBTools(view, job.question.domain, settings.agents.tool_budget,
                        settings.agents.papers_per_query)
    if job.spec.uses_llm and llm is None:
        raise ValueError(f"method {job.spec.name} needs an LLM endpoint (FORESCI_LLM__BASE_URL)")
    inputs = ForecastInput(tools=tools, llm=llm if job.spec.uses_llm else None, settings=settings,
                           model=job.model)
    row = call_forecast(job.spec, job.question, inputs)
    return row.model_copy(update={"method": job.spec.name, "model": job.model, "mode": job.mode})


def answer_questions(
    questions: list[ForecastQuestion],
    out: Path,
    settings: Settings,
    specs: list[MethodSpec],
    view_for: Callable[[date], KBViewLike | None],
    models: list[str] | None = None,
    mode: Mode = "full",
    clients: dict[str, LLMClient] | None = None,
    registry: dict[str, ModelInfo] | None = None,
    retry_errors: bool = False,
    versions: dict[str, str] | None = None,
    label: str | None = None,
) -> ForecastTally:
    """Append the forecasts of ``questions`` by ``specs`` (x ``models``) to ``out/forecasts.jsonl``.

    Resumable: rows already there are skipped (error rows too, unless ``retry_errors``). Returns the
    :class:`ForecastTally`. Rows record their method's version (of ``versions``) and ``label``; a stored
    row of another version of its method is not counted as done.
    """
    path = out / FORECASTS_FILE
    repair_torn_tail(path)
    existing = read_forecasts(path)
    if retry_errors and any(row.status == "error" for row in existing):
        existing = [row for row in existing if row.status != "error"]
        write_jsonl(path, existing)
    versions = versions or {}
    done = {forecast_key(row) for row in existing
            if row.version is None or versions.get(row.method, row.version) == row.version}
    planned = plan_forecasts(questions, specs, models or [], mode)
    jobs = [job for job in planned if job.key not in done]
    log = AppendLog(path)
    transcripts = TranscriptLog(out / TRANSCRIPTS_FILE, secrets_of(settings))

    def work(job: ForecastJob) -> ForecastAnswer:
        started = time.monotonic()
        parent = (clients or {}).get(job.model) if job.model else None
        llm = parent.child() if parent is not None else None
        with recording() as transcript:
            try:
                row = forecast_job(job, llm, view_for(job.question.cutoff), settings)
            except Exception as error:  # the per-question boundary: an error row, the run goes on
                message = " ".join(str(error).split())[:2000]
                row = ForecastAnswer(question_id=job.question.question_id, method=job.spec.name,
                                     model=job.model, mode=job.mode, status="error",
                                     error=f"question {job.question.question_id}: {type(error).__name__}: "
                                           f"{message}")
        key = f"{job.question.question_id}|{job.spec.name}|{job.model or '-'}|{job.mode}"
        row.transcript = transcripts.write(transcript, "forecast", key, status=row.status, error=row.error)
        row.version, row.label = versions.get(job.spec.name) or None, label
        row.contamination_risk = contamination_risk(job.model, job.question.cutoff, registry or {})
        if llm is not None:
            row.llm_calls = llm.usage.calls
            row.cache_hits = llm.usage.cache_hits
        row.notes.append(f"answered in {time.monotonic() - started:.2f} s")
        log.append(row)
        return row

    with ThreadPoolExecutor(max_workers=max(1, settings.agents.concurrency)) as pool:
        rows = list(pool.map(work, jobs))
    keys = {job.key for job in planned}
    standing = {forecast_key(row): row.status for row in existing
                if forecast_key(row) in keys and forecast_key(row) in done}
    standing.update((forecast_key(row), row.status) for row in rows)
    return ForecastTally(len(rows), sum(row.status == "error" for row in rows), len(standing),
                         sum(status == "error" for status in standing.values()))
