"""A method answers a round: its forecast jobs and family-task jobs, here (threads) or on Ray workers.

Both engines plan the same jobs and store the rows in job order with their transcripts written in that
order, and neither keeps a wall-clock figure in a row (no ``answered in`` note, ``elapsed_s`` 0), and
transcript ids are derived from the row keys (:func:`transcript_id`), so a submission answered on Ray is
byte for byte the local one (same rows, order and ``sha256``) whenever the method's answers are the same.
``mode="name_only"`` asks an LLM method with the question and the option names alone (the name-only
baseline, :func:`foresci.rounds.open.commit_name_only`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from typing import Any, Literal

from foresci.contracts import Answer, ForecastAnswer
from foresci.core.errors import UserError
from foresci.core.transcripts import Transcript, recording
from foresci.engines.answers import RayJobEngine, forecasts_on_ray
from foresci.engines.forecasts import forecast_row
from foresci.tasks.models import ForecastQuestion, Task

TRANSCRIPTS_FILE = "transcripts.jsonl"
ViewFor = Callable[[date], Any] | None


def _spec(method: str, view_for: ViewFor, trust_plugin: bool) -> Any:
    from foresci.methods.loading import MethodLoadError, resolve_method

    try:
        return resolve_method(method, trust_plugin=trust_plugin, kb_tools=view_for is not None)
    except MethodLoadError as error:
        raise UserError(error.message, field="--method") from error


def _models(spec: Any, settings: Any) -> list[str]:
    from foresci.llm import role_model

    return [role_model(settings, "agent")] if spec.uses_llm else []


def shared_views(view_for: ViewFor) -> ViewFor:
    """``view_for`` made to hand out one view per cutoff (None stays None): methods answering through it
    share what a view keeps, e.g. the T(d, t) the trend and persistence baselines induce from a view
    (:mod:`foresci.agents.baselines.routing`), which is then induced once per round, not once per method."""
    return None if view_for is None else _cached(view_for)


def _cached(view_for: ViewFor) -> Callable[[date], Any]:
    views: dict[date, Any] = {}

    def view(cutoff: date) -> Any:
        if view_for is None:
            return None
        if cutoff not in views:
            views[cutoff] = view_for(cutoff)
        return views[cutoff]

    return view


def _lost(engine: RayJobEngine) -> None:
    if engine.lost:
        raise UserError(
            f"{len(engine.lost)} jobs lost with their Ray workers (nothing stored; submit again): "
            f"{engine.lost[0]}",
            field="--engine",
        )


Entry = tuple[Literal["answer", "forecast"], str, Transcript, Any]


def _transcripts(settings: Any, entries: list[Entry]) -> bytes | None:
    """The transcripts' JSONL in the given order (kind, key, transcript, row); set each row's reference.
    Built in memory: the version folder that stores it is written whole (a scratch log fsynced each line,
    ~900 fsyncs a real opening)."""
    from foresci.core.transcript_log import secrets_of, transcript_line

    secrets = secrets_of(settings)
    renamed: dict[str, str] = {}
    lines: list[str] = []
    for kind, key, transcript, row in entries:
        written, line = transcript_line(transcript, kind, key, secrets, status=row.status, error=row.error)
        lines.append(line)
        row.transcript = renamed[written] = transcript_id(kind, key)
    if not lines:
        return None
    text = "".join(lines)
    for written, stable in renamed.items():
        text = text.replace(f'"id": "{written}"', f'"id": "{stable}"', 1)
    return text.encode("utf-8")


def transcript_id(kind: str, key: str) -> str:
    """A transcript's id within a submission, from its unit and row key (the log's own ids are random, so
    a row that names its transcript would make two identical submissions hash differently)."""
    return f"t-{hashlib.sha256(f'{kind}|{key}'.encode()).hexdigest()[:16]}"


def _local_parts(settings: Any, models: Any,
                 view_for: ViewFor) -> tuple[Any, dict[str, Any], Callable[[date], Any]]:
    """What answering in this process needs: the model registry, one agent client per model the method
    uses, and a KB view per cutoff opened once."""
    from foresci.llm import LLMClient, load_model_registry

    registry = load_model_registry(settings.llm.registry)
    clients = {name: LLMClient(settings, "agent", name) for name in models}
    return registry, clients, _cached(view_for)


def answer_with_method(
    questions: Sequence[ForecastQuestion],
    method: str,
    settings: Any,
    view_for: ViewFor,
    trust_plugin: bool = False,
    *,
    mode: str = "full",
    engine: RayJobEngine | None = None,
) -> tuple[str, list[ForecastAnswer], bytes | None]:
    """Answer ``questions`` with a method foresci resolves (shipped, plug-in, entry point, HTTP agent):
    its name, its rows in question order and its transcripts (tool calls included)."""
    from foresci.methods.forecast_runner import plan_forecasts

    spec = _spec(method, view_for, trust_plugin)
    models = _models(spec, settings)
    jobs = plan_forecasts(list(questions), [spec], models, mode)  # type: ignore[arg-type]
    results: list[tuple[ForecastAnswer, Transcript] | None] = [None] * len(jobs)
    if engine is not None:
        for index, result in forecasts_on_ray(engine, jobs, settings, models):
            results[index] = result
        _lost(engine)
    else:
        registry, clients, view = _local_parts(settings, models, view_for)
        with ThreadPoolExecutor(max_workers=max(1, settings.agents.concurrency)) as pool:
            results = list(
                pool.map(
                    lambda job: forecast_row(
                        job, clients.get(job.model or ""), view, settings, registry
                    ),
                    jobs,
                )
            )
    done = [result for result in results if result is not None]
    entries: list[Entry] = [
        ("forecast", f"{job.question.question_id}|{job.spec.name}|{job.model or '-'}|{job.mode}", t, row)
        for job, (row, t) in zip(jobs, done, strict=True)
    ]
    transcripts = _transcripts(settings, entries)
    return spec.name, [row for row, _ in done], transcripts


def answer_tasks_with_method(
    tasks: Sequence[Task],
    method: str,
    settings: Any,
    view_for: ViewFor,
    trust_plugin: bool = False,
    *,
    mode: str = "full",
    engine: RayJobEngine | None = None,
) -> tuple[list[Answer], bytes | None]:
    """Answer family ``tasks`` with a method foresci resolves, as ``foresci run`` would (one row per task
    the method answers; a method limited to some families answers only theirs); rows (task order) and
    transcripts."""
    from foresci.methods.runner import answer_job, plan_jobs

    if not tasks:
        return [], None
    spec = _spec(method, view_for, trust_plugin)
    models = _models(spec, settings)
    jobs = plan_jobs(list(tasks), [spec], models, mode)  # type: ignore[arg-type]
    found: dict[Any, tuple[Answer, Transcript]] = {}
    if engine is not None:
        for row, transcript in engine.answer(jobs, settings, models):
            found[(row.task_id, row.method, row.model, row.mode)] = (row, transcript)
        _lost(engine)
    else:
        registry, clients, view = _local_parts(settings, models, view_for)
        for job in jobs:
            with recording() as transcript:
                row = answer_job(
                    job, clients.get(job.model or ""), view(job.task.cutoff), settings, registry
                )
            found[job.key] = (row, transcript)
    entries: list[Entry] = []
    for job in jobs:
        row, transcript = found[job.key]
        row.elapsed_s = 0.0
        key = f"{row.task_id}|{row.method}|{row.model or '-'}|{row.mode}"
        entries.append(("answer", key, transcript, row))
    transcripts = _transcripts(settings, entries)
    return [row for _, _, _, row in entries], transcripts
