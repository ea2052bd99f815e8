"""Run answering methods over a release: one row per (task, method, model, mode) in ``answers.jsonl``.

Rows are appended as they finish, so an interrupted run (even ``kill -9``) resumes where it stopped
without duplicating any row. Each task is its own failure boundary: any exception while answering it
(transport failures, output that stayed invalid, a domain the KB lacks, a provider error) becomes a
``status="error"`` row naming the task and the exception, and the run goes on. One writer per run
folder (:func:`foresci.core.locks.artifact_lock`); a folder answered under other settings or prompts is
refused (:mod:`foresci.agents.fingerprint`). A KB-reading method that saw no paper marks its row
``evidence="none"``. Every row says whether its backbone may know the future
(``contamination_risk``). API keys never reach any output.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel

from foresci.agents.answers import AnswerKey, AppendLog, answer_key, read_answers
from foresci.agents.briefs import Mode, name_only_task
from foresci.agents.checks import check_tasks
from foresci.agents.fingerprint import check_run_fingerprint, run_fingerprint_parts
from foresci.agents.render import check_contract, render_text
from foresci.agents.tools import KBTools, KBViewLike
from foresci.contracts import Answer
from foresci.core.locks import artifact_lock
from foresci.core.settings import Settings
from foresci.core.transcript_log import TRANSCRIPTS_FILE, TranscriptLog, secrets_of
from foresci.core.transcripts import Transcript, recording
from foresci.llm import LLMClient, ModelInfo, contamination_risk, load_model_registry, role_model
from foresci.methods.calling import call_method
from foresci.methods.forecast_runner import FORECASTS_FILE as FORECASTS_FILE
from foresci.methods.forecast_runner import answer_questions
from foresci.methods.loading import resolve_method
from foresci.methods.registry import MethodInput, MethodResult, MethodSpec, method_version
from foresci.methods.shipped.prompts import prompt_book
from foresci.tasks.models import ForecastQuestion, Task

ANSWERS_FILE = "answers.jsonl"
ViewFactory = Callable[[date], KBViewLike]


class LockedView:
    """A KB view whose calls are serialised (KB stores need not be thread-safe)."""

    def __init__(self, view: KBViewLike) -> None:
        self._view = view
        self._lock = threading.Lock()

    @property
    def cutoff(self) -> date:
        """The view's cutoff."""
        return self._view.cutoff

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._view, name)
        if not callable(attribute):
            return attribute

        def locked(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return attribute(*args, **kwargs)

        return locked


@dataclass
class Job:
    """One row to produce."""

    task: Task
    spec: MethodSpec
    model: str | None
    mode: Mode

    @property
    def method(self) -> str:
        """The method's name (the row's ``method``)."""
        return self.spec.name

    @property
    def key(self) -> AnswerKey:
        """The row key this job fills."""
        return (self.task.task_id, self.method, self.model, self.mode)

    @property
    def reads_kb(self) -> bool:
        """Whether the method answers from the KB (a KB-reading method in full mode)."""
        return self.mode == "full" and self.spec.needs_kb


class JobEngine(Protocol):
    """Answers jobs outside this process's thread pool; the runner appends the rows it yields."""

    def answer(
        self, jobs: list[Job], settings: Settings, models: list[str]
    ) -> Iterator[tuple[Answer, Transcript]]:
        """Yield a row and its transcript per job it finished (a lost job yields nothing; a rerun
        answers it)."""
        ...


@dataclass
class RunSummary:
    """What a run did."""

    done_before: int = 0
    attempted: int = 0
    answered: int = 0
    errors: int = 0
    evidence_none: int = 0
    evidence_none_by: dict[str, int] = field(default_factory=dict)  # "method/family" -> answers reading none
    forecasts: int = 0
    forecast_errors: int = 0
    rows: int = 0  # after the run: rows standing for this command's (task, method, model, mode) keys
    standing_errors: int = 0  # error rows among them (an earlier run's too: a rerun skips them)
    forecast_rows: int = 0
    forecast_standing_errors: int = 0
    skipped: list[str] = field(default_factory=list)
    usage: dict[str, dict[str, int]] = field(default_factory=dict)


def plan_jobs(tasks: Iterable[Task], specs: list[MethodSpec], models: list[str], mode: Mode) -> list[Job]:
    """Every (task, method, model) job; methods that use no LLM run once (model None) and only in full
    mode (they have no name-only mode); a method limited to some families is asked only their tasks."""
    return [Job(task, spec, model, mode)
            for task in tasks for spec in specs
            if spec.asks(task.family)
            for model in spec.backbones(models, mode)]


def method_input(job: Job, llm: LLMClient | None, view: KBViewLike | None, settings: Settings) -> MethodInput:
    """What ``job``'s method receives: the public task (name-only mode: question and candidate names),
    KB tools bound to the task cutoff when the method reads the KB (behind the plug-in wall unless
    shipped), the chat-model client when it uses an LLM."""
    tools: KBTools | None = None
    if job.reads_kb:
        if view is None:
            raise ValueError(f"method {job.method} needs a KB (--kb)")
        tools = KBTools(view, job.task.domain, settings.agents.tool_budget, settings.agents.papers_per_query)
    if job.spec.uses_llm and llm is None:
        raise ValueError(f"method {job.method} needs an LLM endpoint (FORESCI_LLM__BASE_URL)")
    task = name_only_task(job.task) if job.mode == "name_only" else job.task
    return MethodInput(task=task, mode=job.mode, tools=tools, llm=llm if job.spec.uses_llm else None,
                       settings=settings, model=job.model)


def answer_job(
    job: Job,
    llm: LLMClient | None,
    view: KBViewLike | None,
    settings: Settings,
    registry: dict[str, ModelInfo],
) -> Answer:
    """Produce one answer row; any exception while answering becomes an error row naming the task."""
    started = time.monotonic()
    base = _row_base(job, registry)
    child = llm.child() if llm is not None else None
    try:
        result = checked(job.task, call_method(job.spec, method_input(job, child, view, settings)))
        answer = result.answer
        if not isinstance(answer, BaseModel):
            raise TypeError(f"method {job.method}: answer not read into its family schema")
        row = Answer(
            **base,
            text=render_text(job.task, answer),
            payload=answer.model_dump(mode="json"),
            support=result.support,
            contract=result.contract or "ok",
            contract_notes=result.contract_notes,
        )
        if job.reads_kb:
            support = result.support
            row.evidence = "retrieved" if support is not None and support.retrieved else "none"
    except Exception as error:  # the per-task boundary: recorded as an error row, the run goes on
        row = error_row(job, registry, error)
    if child is not None:
        row.llm_calls = child.usage.calls
        row.prompt_tokens = child.usage.prompt_tokens
        row.completion_tokens = child.usage.completion_tokens
        row.cache_hits = child.usage.cache_hits
    row.elapsed_s = round(time.monotonic() - started, 3)
    return row


def checked(task: Task, result: MethodResult) -> MethodResult:
    """``result`` with the task contract checked when the method did not report its own outcome."""
    if result.contract is not None:
        return result
    check = check_contract(task, result.answer)  # type: ignore[arg-type]
    return MethodResult(answer=check.answer, support=result.support,
                        contract="invalid" if check.problems else "ok",
                        contract_notes=[*result.contract_notes, *check.notes, *check.problems])


def _row_base(job: Job, registry: dict[str, ModelInfo]) -> dict[str, Any]:
    return {
        "task_id": job.task.task_id,
        "family": job.task.family,
        "method": job.method,
        "model": job.model,
        "mode": job.mode,
        "contamination_risk": contamination_risk(job.model, job.task.cutoff, registry),
    }


def error_row(job: Job, registry: dict[str, ModelInfo], error: BaseException) -> Answer:
    """The error row of a job that raised ``error`` (names the task, the exception type and message)."""
    message = " ".join(str(error).split())[:2000]
    return Answer(
        **_row_base(job, registry),
        status="error",
        error=f"task {job.task.task_id}: {type(error).__name__}: {message}",
    )


@dataclass(frozen=True)
class RunRequest:
    """What one run answers and how: the tasks and forecast questions, the run folder, the settings, the
    methods (and backbones), the mode, where the KB views come from, and the run's options."""

    tasks: Sequence[Task]
    out: Path
    settings: Settings
    methods: Sequence[str]
    models: Sequence[str] = ()  # backbones; none: settings.llm's agent model when an LLM method runs
    mode: Mode = "full"
    view_factory: ViewFactory | None = None  # a KB view per cutoff (None: methods read no KB)
    progress: bool = False  # a progress bar on stderr
    retry_errors: bool = False  # drop error rows and ask again
    questions: Sequence[ForecastQuestion] = ()  # forecast questions, answered into forecasts.jsonl
    engine: JobEngine | None = None  # answers the jobs elsewhere (default: threads in this process)
    label: str | None = None  # the name of this run's rows
    new_version: bool = False  # add a changed method's rows beside its old ones instead of refusing


def run_release(
    tasks: list[Task],
    out: Path,
    settings: Settings,
    methods: list[str],
    *,
    models: list[str] | None = None,
    mode: Mode = "full",
    view_factory: ViewFactory | None = None,
    progress: bool = False,
    retry_errors: bool = False,
    questions: list[ForecastQuestion] | None = None,
    engine: JobEngine | None = None,
    label: str | None = None,
    new_version: bool = False,
) -> RunSummary:
    """Answer ``tasks`` with each method (and model) into ``out/answers.jsonl``, resuming what is there
    (:class:`RunRequest` says what each option does), holding ``out``'s lock.

    Forecast questions (if given) are answered by every method with a forecast hook into
    ``out/forecasts.jsonl`` (:mod:`foresci.methods.forecast_runner`).
    ``engine`` answers the jobs elsewhere (e.g. :class:`foresci.engines.answers.RayJobEngine`); default:
    threads in this process (``agents.concurrency``).
    """
    request = RunRequest(tasks=tasks, out=out, settings=settings, methods=methods, models=models or (),
                         mode=mode, view_factory=view_factory, progress=progress, retry_errors=retry_errors,
                         questions=questions or (), engine=engine, label=label, new_version=new_version)
    with artifact_lock(out):
        return answer_release(request)


def answer_release(request: RunRequest) -> RunSummary:
    """:func:`run_release` for a caller that already holds ``artifact_lock(request.out)``.

    Refuses bad tasks and repeated task ids before any answer (:func:`foresci.agents.checks.check_tasks`).
    Each row records its method's version and the run's ``label``; a method whose rows in ``out`` are of
    another version is refused unless ``new_version`` (:mod:`foresci.agents.fingerprint`).
    """
    tasks, out, settings, mode = list(request.tasks), request.out, request.settings, request.mode
    view_factory, engine, label = request.view_factory, request.engine, request.label
    retry_errors, questions = request.retry_errors, list(request.questions)
    check_tasks(tasks, None)
    path = out / ANSWERS_FILE
    existing = read_answers(path)
    specs = [resolve_method(name) for name in dict.fromkeys(request.methods)]
    versions = {spec.name: method_version(spec) for spec in specs}
    forecasts_path = out / FORECASTS_FILE
    has_rows = bool(existing) or (forecasts_path.is_file() and forecasts_path.stat().st_size > 0)
    check_run_fingerprint(out, run_fingerprint_parts(settings), has_rows=has_rows, versions=versions,
                          new_version=request.new_version)
    if retry_errors and any(row.status == "error" for row in existing):
        from foresci.core.io import write_jsonl

        existing = [row for row in existing if row.status != "error"]
        write_jsonl(path, existing)
    done = {answer_key(row) for row in existing if current(row.method, row.version, versions)}
    llm_methods = [spec for spec in specs if spec.uses_llm]
    model_names = list(request.models) or ([role_model(settings, "agent")] if llm_methods else [])
    planned = plan_jobs(tasks, specs, model_names, mode)
    jobs = [job for job in planned if job.key not in done]
    summary = RunSummary(done_before=len(done))
    if mode == "name_only":
        summary.skipped = [spec.name for spec in specs if not spec.uses_llm]
    if llm_methods:  # a broken prompt file fails an LLM run before any answer; the non-LLM methods read
        prompt_book()  # no prompt, so a family without prompt texts does not stop them
    registry = load_model_registry(settings.llm.registry)
    clients = {name: LLMClient(settings, "agent", name) for name in model_names} if llm_methods else {}
    views: dict[date, KBViewLike] = {}
    views_lock = threading.Lock()

    def view_for(cutoff: date) -> KBViewLike | None:
        if view_factory is None:
            return None
        with views_lock:
            if cutoff not in views:
                views[cutoff] = LockedView(view_factory(cutoff))
            return views[cutoff]

    log = AppendLog(path)
    transcripts = TranscriptLog(out / TRANSCRIPTS_FILE, secrets_of(settings))

    def work(job: Job) -> Answer:
        llm = clients.get(job.model) if job.model else None
        with recording() as transcript:
            try:
                view = view_for(job.task.cutoff)
            except Exception as error:  # e.g. a KB that cannot be opened at this cutoff: this task fails
                row = error_row(job, registry, error)
            else:
                row = answer_job(job, llm, view, settings, registry)
        return keep(row, transcript)

    def keep(row: Answer, transcript: Transcript) -> Answer:
        key = f"{row.task_id}|{row.method}|{row.model or '-'}|{row.mode}"
        row.version, row.label = versions.get(row.method) or None, label
        row.transcript = transcripts.write(transcript, "answer", key, status=row.status, error=row.error)
        log.append(row)
        return row

    def rows() -> Iterator[Answer]:
        if engine is not None:  # answered elsewhere; this process stays the one writer
            for row, transcript in engine.answer(jobs, settings, model_names):
                yield keep(row, transcript)
            return
        with ThreadPoolExecutor(max_workers=max(1, settings.agents.concurrency)) as pool:
            futures = [pool.submit(work, job) for job in jobs]
            for future in as_completed(futures):
                yield future.result()

    progress_bar = _progress(request.progress, len(jobs))
    finished: list[Answer] = []
    with progress_bar as bar:
        bar_task = bar.add_task("answering", total=len(jobs)) if bar is not None else None
        for row in rows():
            finished.append(row)
            summary.attempted += 1
            summary.answered += row.status == "ok"
            summary.errors += row.status == "error"
            summary.evidence_none += row.evidence == "none"
            if row.evidence == "none":
                key = f"{row.method}/{row.family}"
                summary.evidence_none_by[key] = summary.evidence_none_by.get(key, 0) + 1
            if bar is not None and bar_task is not None:
                bar.advance(bar_task)
    keys = {job.key for job in planned}
    standing = {answer_key(row): row.status for row in existing
                if answer_key(row) in keys and answer_key(row) in done}
    standing.update((answer_key(row), row.status) for row in finished)
    summary.rows = len(standing)
    summary.standing_errors = sum(status == "error" for status in standing.values())
    if questions:
        tally = answer_questions(
            questions, out, settings, specs, view_for, model_names, mode, clients, registry, retry_errors,
            versions, label,
        )
        summary.forecasts, summary.forecast_errors = tally.written, tally.errors
        summary.forecast_rows, summary.forecast_standing_errors = tally.rows, tally.standing_errors
    summary.usage = (
        {name: client.usage.as_dict() for name, client in clients.items()}
        if engine is None
        else _usage_of_rows(finished, model_names)
    )
    return summary


def current(method: str, version: str | None, versions: dict[str, str]) -> bool:
    """Whether a stored row of ``method`` at ``version`` is of the version this run answers with (a row
    without a version, from an older foresci, counts as current)."""
    return version is None or method not in versions or versions[method] == version


def _usage_of_rows(rows: list[Answer], models: list[str]) -> dict[str, dict[str, int]]:
    """Per-model calls and tokens summed from the rows (an engine's workers spent them, not our clients)."""
    counters = ("calls", "prompt_tokens", "completion_tokens", "cache_hits")
    usage = {name: dict.fromkeys(counters, 0) for name in models}
    for row in rows:
        if row.model in usage:
            spent = (row.llm_calls, row.prompt_tokens, row.completion_tokens, row.cache_hits)
            for name, amount in zip(counters, spent, strict=True):
                usage[row.model][name] += amount or 0
    return usage


class _NoProgress:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _progress(enabled: bool, total: int) -> Any:
    if not enabled or total == 0:
        return _NoProgress()
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn()
    )
