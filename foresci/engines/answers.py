"""``run --engine ray``: the task x method x backbone jobs of a run, answered by Ray workers (and
``rounds submit --engine ray``: a round's forecast jobs too, :func:`forecasts_on_ray`).

The driver plans the jobs (skipping rows already in ``answers.jsonl``), ships one job per Ray task and
appends each returned row itself, so it stays the only writer of the run folder and the resume and
no-duplicate guarantees of the local engine carry over unchanged: a row is written once, when its job
has finished; a job whose worker died is retried by Ray, and one lost for good is not written, so the
next run answers it. Workers open the KB themselves (read-only, from its path) and build their LLM
clients from the same settings; the persistent response cache (SQLite in WAL mode with a busy timeout)
is shared by every worker process on a machine.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from foresci.contracts import Answer, ForecastAnswer
from foresci.core.cluster import RemoteFailure, imap_unordered
from foresci.core.settings import Settings
from foresci.core.transcripts import Transcript, recording
from foresci.methods.forecast_runner import ForecastJob
from foresci.methods.runner import Job, answer_job, error_row


@dataclass(frozen=True)
class RunSpec:
    """What a worker needs to answer jobs of one run: settings, model names and the KB's path."""

    settings: Settings
    models: tuple[str, ...]
    kb: str | None
    token: str = field(default="")


class _WorkerState:
    """The clients, prompts, registry and KB views a worker process keeps for one run."""

    def __init__(self, spec: RunSpec) -> None:
        from foresci.llm import LLMClient, load_model_registry

        self.spec = spec
        self.registry = load_model_registry(spec.settings.llm.registry)
        self.clients = {name: LLMClient(spec.settings, "agent", name) for name in spec.models}
        self.views: dict[date, Any] = {}
        self.kb: Any = None

    def view(self, cutoff: date) -> Any:
        if self.spec.kb is None:
            return None
        if cutoff not in self.views:
            from foresci.kb.retrieve import KBView
            from foresci.kb.store import KnowledgeBase

            if self.kb is None:
                self.kb = KnowledgeBase.open(Path(self.spec.kb), self.spec.settings)
            self.views[cutoff] = KBView(self.kb, cutoff)
        return self.views[cutoff]


_STATES: dict[str, _WorkerState] = {}


def answer_on_worker(spec: RunSpec, job: Job) -> tuple[Answer, Transcript]:
    """One answer row (an error row when answering failed) and its transcript, computed in a Ray worker."""
    from foresci.core.threads import ensure_threads

    ensure_threads(spec.settings)
    state = _STATES.get(spec.token)
    if state is None:
        state = _STATES[spec.token] = _WorkerState(spec)
    with recording() as transcript:
        try:
            view = state.view(job.task.cutoff)
        except Exception as error:  # a KB that cannot be opened at this cutoff: this task fails, as locally
            return error_row(job, state.registry, error), transcript
        llm = state.clients.get(job.model) if job.model else None
        row = answer_job(job, llm, view, spec.settings, state.registry)
    return row, transcript


@dataclass
class RayJobEngine:
    """Answers a run's jobs on a Ray cluster (``RAY_ADDRESS`` / ``runtime.ray_address``, else local).

    ``kb``: the KB folder the workers open (None for runs that read no KB). ``lost`` lists the jobs whose
    workers died more often than Ray retries (nothing is written for them; a rerun answers them).
    """

    kb: Path | None
    lost: list[str] = field(default_factory=list)

    def answer(
        self, jobs: list[Job], settings: Settings, models: list[str]
    ) -> Iterator[tuple[Answer, Transcript]]:
        """Yield each job's row and transcript as its worker finishes (in completion order)."""
        import uuid

        spec = RunSpec(settings, tuple(models), str(self.kb) if self.kb else None, uuid.uuid4().hex)
        for index, row in imap_unordered(answer_on_worker, spec, jobs, settings.runtime):
            if isinstance(row, RemoteFailure):
                self.lost.append(f"{'/'.join(str(part) for part in jobs[index].key)}: {row.error}")
                continue
            yield row


def forecast_on_worker(spec: RunSpec, job: ForecastJob) -> tuple[ForecastAnswer, Transcript]:
    """One forecast row of a round submission (an error row when answering failed) and its transcript,
    computed in a Ray worker by :func:`foresci.engines.forecasts.forecast_row`."""
    from foresci.core.threads import ensure_threads
    from foresci.engines.forecasts import forecast_row

    ensure_threads(spec.settings)
    state = _STATES.get(spec.token)
    if state is None:
        state = _STATES[spec.token] = _WorkerState(spec)
    parent = state.clients.get(job.model) if job.model else None
    return forecast_row(job, parent, state.view, spec.settings, state.registry)


def forecasts_on_ray(
    engine: RayJobEngine, jobs: list[ForecastJob], settings: Settings, models: list[str]
) -> Iterator[tuple[int, tuple[ForecastAnswer, Transcript]]]:
    """Yield ``(job index, (row, transcript))`` of each forecast job as its Ray worker finishes; a job
    lost with its workers is listed in ``engine.lost`` and yields nothing."""
    import uuid

    spec = RunSpec(settings, tuple(models), str(engine.kb) if engine.kb else None, uuid.uuid4().hex)
    for index, result in imap_unordered(forecast_on_worker, spec, jobs, settings.runtime):
        if isinstance(result, RemoteFailure):
            engine.lost.append(f"{'/'.join(str(part) for part in jobs[index].key)}: {result.error}")
            continue
        yield index, result
