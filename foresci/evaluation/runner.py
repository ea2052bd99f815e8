"""``evaluate_run``: score a run folder's answers against a release's hidden targets.

Writes ``RUNDIR/scores.jsonl`` (one :class:`Score` per answer row) and ``RUNDIR/summary.json``.
A finished row is reused only when its fingerprint matches: the hash of the answer row, its task's public
and hidden rows, the judge and rubric prompt files, the KB citations are checked against and the
evaluation settings (:func:`row_fingerprint`). Judge answers come from the persistent response cache, so
re-running a finished evaluation makes zero model calls. A judge failure whose output stayed unusable
repeats at temperature 0, so it is kept with its row instead of being asked again, unless
``retry_errors`` is set. A release without any target for the run's answers is refused before anything
is written; the run folder is locked while it is evaluated. The judge calls of each judged row are
recorded as its transcript in ``RUNDIR/judge_transcripts.jsonl`` (:mod:`foresci.core.transcript_log`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from foresci.contracts import Answer
from foresci.core.errors import UserError
from foresci.core.io import append_jsonl, write_json, write_jsonl
from foresci.core.locks import artifact_lock
from foresci.core.settings import Settings
from foresci.core.transcript_log import JUDGE_TRANSCRIPTS_FILE, TranscriptLog, prune_transcripts, secrets_of
from foresci.evaluation.fact import public_texts
from foresci.evaluation.fingerprints import evaluation_fingerprint, row_fingerprint
from foresci.evaluation.fta import TextEncoder, split_sentences, target_slots
from foresci.evaluation.judges import JudgeClient
from foresci.evaluation.loading import (
    ReleaseData,
    answer_key,
    kb_citation_dates,
    kb_of_run,
    load_answers,
    load_release,
    release_of_run,
    require_targets,
    tasks_without_answer,
)
from foresci.evaluation.metrics import FORECAST_FAMILY, JudgedParts, answer_text
from foresci.evaluation.metrics.context import KBSource
from foresci.evaluation.models import Score
from foresci.evaluation.scoring import judge_recorded, score_forecast_answer, score_task_answer
from foresci.evaluation.session import EvaluationSession
from foresci.evaluation.summary import build_summary

SCORES_NAME = "scores.jsonl"
SUMMARY_NAME = "summary.json"
Progress = Callable[[str, int, int], None]


PARTIAL_NAME = f".{SCORES_NAME}.partial"


def _keeps_failures(score: Score) -> bool:
    """True when every judge failure of the row is an unusable output (deterministic at temperature 0)."""
    return all(result.error_kind == "output" for result in score.metrics.values() if result.error)


def _reusable_rows(
    run_dir: Path, fingerprints: dict[str, str], keep_failures: bool = False
) -> dict[str, Score]:
    """Finished rows of an earlier evaluation whose row fingerprint still matches.

    Rows with judge failures are re-judged unless ``keep_failures`` and every failure is an unusable
    output. Rows come from scores.jsonl and from the partial file an interrupted evaluation leaves behind
    (a torn last line of that file is ignored).
    """
    rows: dict[str, Score] = {}
    for path in (run_dir / SCORES_NAME, run_dir / PARTIAL_NAME):
        if not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                score = Score.model_validate_json(line)
            except ValueError:
                if path.name == PARTIAL_NAME:
                    continue  # a row cut short by the interruption
                raise ValueError(f"{path}: invalid score row; delete the file to re-evaluate") from None
            if score.key is None or score.fingerprint != fingerprints.get(score.key):
                continue
            failed = any(result.error for result in score.metrics.values())
            if not failed or (keep_failures and _keeps_failures(score)):
                rows[score.key] = score
    return rows


def _unscored(answer: Answer, task_family: str, domain: str, status: str, error: str) -> Score:
    return Score(
        task_id=answer.task_id,
        family=task_family,
        domain=domain,
        method=answer.method,
        model=answer.model,
        mode=answer.mode,
        contamination_risk=answer.contamination_risk,
        status=status,
        error=error,
    )


def _score_plain(answer: Answer, session: EvaluationSession) -> Score | None:
    """Rows that need no task scoring: answer errors, forecasts, missing targets; None for task answers."""
    release = session.release
    if answer.family == FORECAST_FAMILY or answer.task_id in release.questions:
        question = release.questions.get(answer.task_id)
        resolution = release.resolutions.get(answer.task_id)
        if answer.status == "error":
            return _unscored(
                answer,
                FORECAST_FAMILY,
                question.domain if question else "",
                "error",
                answer.error or "the method failed",
            )
        if question is None or resolution is None:
            return _unscored(
                answer,
                FORECAST_FAMILY,
                question.domain if question else "",
                "missing",
                f"no forecast question or resolution for {answer.task_id} in {release.path}",
            )
        try:
            return score_forecast_answer(session.context(answer))
        except (ValueError, UserError) as error:  # unordered quantiles, missing probability, invalid payload
            return _unscored(answer, FORECAST_FAMILY, question.domain, "error", f"invalid forecast: {error}")
    task = release.tasks.get(answer.task_id)
    family, domain = (task.family, task.domain) if task else (answer.family, "")
    if answer.status == "error":
        return _unscored(answer, family, domain, "error", answer.error or "the method failed")
    if task is None or answer.task_id not in release.hidden:
        return _unscored(
            answer,
            family,
            domain,
            "missing",
            f"no task or hidden target for {answer.task_id} in {release.path}",
        )
    return None


def prewarm_embeddings(
    encoder: TextEncoder, answers: list[Answer], release: ReleaseData, max_claims: int
) -> int:
    """Embed every text the offline metrics will compare in one batch (only for a cached Embedder).

    Per-row scoring then finds each vector in the cache instead of running many tiny model batches.
    Returns the number of distinct texts sent.
    """
    if getattr(encoder, "cache", None) is None:
        return 0
    texts: set[str] = set()
    for answer in answers:
        task, hidden = release.tasks[answer.task_id], release.hidden[answer.task_id]
        text = answer_text(answer)
        texts.update(split_sentences(text))
        texts.update(split_sentences(text, limit=max_claims))
        slots, _ = target_slots(task, hidden)
        texts.update(variant for slot in slots for variant in slot.variants)
        texts.update(text for claim in hidden.claims for text in [claim.text, *claim.variants])
        texts.update(public_texts(task))
        if answer.support is not None:
            texts.update(evidence.claim for evidence in answer.support.evidence if evidence.claim.strip())
    ordered = sorted(texts)
    if ordered:
        encoder.encode(ordered)
    return len(ordered)


def score_answers(
    answers: list[Answer],
    session: EvaluationSession,
    on_row: Callable[[Score], None] | None = None,
    progress: Progress | None = None,
    transcripts: TranscriptLog | None = None,
) -> list[Score]:
    """Score answers in ``session`` (judges concurrent, embeddings here); ``on_row`` sees each finished row.

    With ``settings.runtime.engine == "ray"`` the judge calls run on Ray workers, each with its own judge
    client built from ``session.settings`` (``session.client`` then only collects their usage). Offline
    (``session.client`` None) no judge is asked. ``transcripts``: where the judge calls of each judged
    row are stored (the row names its transcript).
    """
    scored: list[Score] = []

    def finish(score: Score, answer: Answer) -> None:
        score.key = answer_key(answer.task_id, answer.method, answer.model, answer.mode)
        scored.append(score)
        if on_row:
            on_row(score)
        if progress:
            progress("score", len(scored), len(answers))

    pending: list[Answer] = []
    for answer in answers:
        plain = _score_plain(answer, session)
        if plain is None:
            pending.append(answer)
        else:
            finish(plain, answer)
    prewarm_embeddings(session.encoder, pending, session.release, session.settings.evaluation.max_claims)

    def score(answer: Answer, parts: JudgedParts | None, transcript: str | None = None) -> None:
        row = score_task_answer(session.context(answer, parts))
        row.transcript = transcript
        finish(row, answer)

    client = session.client
    if client is None:
        for answer in pending:
            score(answer, None)
        return scored

    def judge(answer: Answer) -> tuple[JudgedParts, str | None]:
        parts, transcript = judge_recorded(session.judge_context(answer, client))
        if transcripts is None:
            return parts, None
        key = answer_key(answer.task_id, answer.method, answer.model, answer.mode)
        return parts, transcripts.write(transcript, "judge", key)

    if session.settings.runtime.engine == "ray":  # judges on Ray workers; scores are still written here
        from foresci.evaluation.ray_judges import judge_on_ray

        usage = getattr(client, "usage", None)
        for index, parts, spent, calls in judge_on_ray(pending, session.release, session.settings,
                                                        session.kb_dates):
            if usage is not None and hasattr(usage, "add"):
                usage.add(**spent)
            judged = pending[index]
            key = answer_key(judged.task_id, judged.method, judged.model, judged.mode)
            score(judged, parts, transcripts.write(calls, "judge", key) if transcripts else None)
        return scored
    with ThreadPoolExecutor(max_workers=max(1, session.settings.evaluation.judge_concurrency)) as pool:
        for answer, (parts, transcript) in zip(pending, pool.map(judge, pending), strict=True):
            score(answer, parts, transcript)
    return scored


def make_judge_client(settings: Settings) -> Any:
    """The judge-role LLM client; raises a clear error when no endpoint is configured."""
    if not settings.llm.configured:
        raise RuntimeError(
            "judged evaluation needs an LLM endpoint: set FORESCI_LLM__BASE_URL "
            "(or use --offline for the deterministic and offline metrics only)"
        )
    from foresci.llm import LLMClient

    return LLMClient(settings, role="judge")


def evaluate_run(
    run_dir: Path,
    release_dir: Path | None,
    settings: Settings,
    offline: bool,
    client: JudgeClient | None = None,
    encoder: TextEncoder | None = None,
    progress: Progress | None = None,
    kb: Path | None = None,
    retry_errors: bool = False,
) -> Path:
    """Score ``run_dir/answers.jsonl`` against the release; write scores.jsonl and summary.json.

    ``release_dir`` defaults to the release named in the run's manifest, ``kb`` (the KB citations are
    checked against) to the run's KB when it still exists. Returns the summary path. Judge failures of
    an unchanged row at temperature 0 are kept, not asked again, unless ``retry_errors``.
    """
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise UserError("no such folder (give the run folder `foresci run --out` wrote)", path=run_dir)
    release_dir = release_dir or release_of_run(run_dir)
    if release_dir is None:
        raise ValueError(f"{run_dir}/manifest.json names no release; pass --release DIR")
    started = time.perf_counter()
    release = load_release(Path(release_dir))
    answers = load_answers(run_dir)
    require_targets(answers, release)
    job = EvaluationJob(
        run_dir, release, answers, settings, offline, client, encoder, progress,
        kb or kb_of_run(run_dir), started, retry_errors,
    )
    with artifact_lock(run_dir):
        return _evaluate_locked(job)


@dataclass(frozen=True)
class EvaluationJob:
    """One call of :func:`evaluate_run` once its inputs are loaded: what :func:`_evaluate_locked` needs."""

    run_dir: Path
    release: ReleaseData
    answers: list[Answer]
    settings: Settings
    offline: bool
    client: JudgeClient | None
    encoder: TextEncoder | None
    progress: Progress | None
    kb: Path | None
    started: float
    retry_errors: bool = False


def _evaluate_locked(job: EvaluationJob) -> Path:
    run_dir, release, answers, settings, offline, kb = (
        job.run_dir, job.release, job.answers, job.settings, job.offline, job.kb
    )
    evaluation = evaluation_fingerprint(settings, release, offline, kb)
    fingerprints = {
        answer_key(a.task_id, a.method, a.model, a.mode): row_fingerprint(a, release, evaluation)
        for a in answers
    }
    keep_failures = not job.retry_errors and not offline and settings.llm.temperature == 0
    reusable = _reusable_rows(run_dir, fingerprints, keep_failures)
    todo = [
        answer
        for answer in answers
        if answer_key(answer.task_id, answer.method, answer.model, answer.mode) not in reusable
    ]
    encoder = job.encoder
    if encoder is None:
        from foresci.embedders.embedder import embedder_from_settings

        encoder = embedder_from_settings(settings)
    session = EvaluationSession(
        release,
        settings,
        encoder,
        kb_dates=kb_citation_dates(kb, todo) if kb is not None else None,
        kb=KBSource(kb, settings) if kb is not None else None,
    )
    client = job.client
    if not offline and client is None and any(_score_plain(answer, session) is None for answer in todo):
        client = make_judge_client(settings)
    session.client = None if offline else client
    partial_path = run_dir / PARTIAL_NAME

    def keep(score: Score) -> None:
        score.fingerprint = fingerprints.get(score.key or "")
        append_jsonl(partial_path, score)

    transcripts = None if offline else TranscriptLog(run_dir / JUDGE_TRANSCRIPTS_FILE, secrets_of(settings))
    try:
        fresh = score_answers(todo, session, keep, job.progress, transcripts)
    finally:
        session.close()
    by_key = {**reusable, **{score.key: score for score in fresh if score.key}}
    ordered = [
        by_key[key]
        for key in dict.fromkeys(answer_key(a.task_id, a.method, a.model, a.mode) for a in answers)
    ]
    write_jsonl(run_dir / SCORES_NAME, ordered)
    partial_path.unlink(missing_ok=True)
    referenced = {score.transcript for score in ordered if score.transcript}
    prune_transcripts(run_dir / JUDGE_TRANSCRIPTS_FILE, referenced)
    usage = getattr(client, "usage", None)
    meta = {
        "run_dir": str(run_dir),
        "release": str(release.path),
        "offline": offline,
        "fingerprint": evaluation,
        "citations_checked_against": str(kb) if kb is not None else None,
        "citations_not_checked": None if kb is not None else citations_unchecked_reason(run_dir),
        "reused_rows": len(answers) - len(todo),
        "kept_judge_failures": sum(
            1 for score in reusable.values() if any(result.error for result in score.metrics.values())
        ),
        "scored_rows": len(fresh),
        "tasks_without_answer": tasks_without_answer(answers, release),
        "elapsed_s": round(time.perf_counter() - job.started, 3),
        "judge_usage": usage.as_dict() if usage is not None and hasattr(usage, "as_dict") else None,
    }
    summary = build_summary(ordered, settings.evaluation, meta)
    from foresci.evaluation.emergence import SECTION, emergence_summary

    bulk = emergence_summary(run_dir, release.path)  # only for a run that scored a bulk set
    if bulk is not None:
        summary[SECTION] = bulk
    summary_path = run_dir / SUMMARY_NAME
    write_json(summary_path, summary)
    return summary_path


def citations_unchecked_reason(run_dir: Path) -> str:
    """Why an evaluation without a KB checks no citation (Trace and Trace~off not computed): the run
    recorded no KB, or the one it recorded cannot be read."""
    from foresci.evaluation.loading import kb_named_by_run

    named = kb_named_by_run(run_dir)
    where = (f"the run's KB {named} cannot be read" if named is not None
             else "the run recorded no KB")
    return (f"citations not checked and Trace, Trace~off not computed: {where}; give "
            "`foresci eval RUN --kb KB` (an agent's own list of what it retrieved is not checked against)")
