"""Read what evaluation needs: a run's answers, a release's public tasks, hidden targets and forecasts,
and the KB dates of the ids the answers cite; check that the release can score the run at all."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from foresci.contracts import Answer, ForecastAnswer
from foresci.core.errors import UserError
from foresci.core.io import read_json, read_models
from foresci.evaluation.trace import cited_ids
from foresci.tasks.hidden import HiddenTarget, Resolution
from foresci.tasks.hidden_io import read_hidden
from foresci.tasks.models import ForecastQuestion, Task
from foresci.tasks.release import verify_release

ModelT = TypeVar("ModelT", bound=BaseModel)


@dataclass
class ReleaseData:
    """The parts of a release that evaluation reads (hidden targets included)."""

    path: Path
    tasks: dict[str, Task] = field(default_factory=dict)
    hidden: dict[str, HiddenTarget] = field(default_factory=dict)
    questions: dict[str, ForecastQuestion] = field(default_factory=dict)
    resolutions: dict[str, Resolution] = field(default_factory=dict)


RESOLUTION_FILES = ("forecast_hidden.jsonl", "resolutions.jsonl")  # a release / a resolved forecast package


def load_release(release_dir: Path) -> ReleaseData:
    """Load a release (tasks.jsonl + hidden.jsonl) and/or its forecast questions with their resolutions.

    A prospective forecast package (forecast.jsonl + resolutions.jsonl, no tasks) is accepted too.
    """
    release_dir = Path(release_dir)
    tasks_path, forecast_path = release_dir / "tasks.jsonl", release_dir / "forecast.jsonl"
    if not tasks_path.is_file() and not forecast_path.is_file():
        raise FileNotFoundError(
            f"{tasks_path}: no tasks.jsonl or forecast.jsonl; is {release_dir} a release?"
        )
    verify_release(release_dir)
    data = ReleaseData(path=release_dir)
    if tasks_path.is_file():
        data.tasks = {task.task_id: task for task in read_models(tasks_path, Task)}
    if (release_dir / "hidden.jsonl").is_file():
        data.hidden = {row.task_id: row for row in read_hidden(release_dir / "hidden.jsonl")}
    if forecast_path.is_file():
        data.questions = {row.question_id: row for row in read_models(forecast_path, ForecastQuestion)}
    for name in RESOLUTION_FILES:
        if (release_dir / name).is_file():
            data.resolutions.update(
                {row.question_id: row for row in read_models(release_dir / name, Resolution)}
            )
    return data


def load_answers(run_dir: Path) -> list[Answer]:
    """The answers of a run folder: ``answers.jsonl`` plus ``forecasts.jsonl`` (as family 'forecast' rows).

    A forecast row becomes an Answer with task_id = question_id and payload = the ForecastAnswer.
    Each row's ``method`` is its identity in the leaderboards (:func:`qualify_methods`).
    """
    answers_path, forecasts_path = Path(run_dir) / "answers.jsonl", Path(run_dir) / "forecasts.jsonl"
    bulk_only = (Path(run_dir) / "emergence_scores.jsonl").is_file()  # a release's bulk link-prediction set
    if not answers_path.is_file() and not forecasts_path.is_file() and not bulk_only:
        raise FileNotFoundError(f"{answers_path}: no answers.jsonl; is {run_dir} a foresci run folder?")
    answers = read_models(answers_path, Answer) if answers_path.is_file() else []
    if forecasts_path.is_file():
        answers.extend(forecast_as_answer(row) for row in read_models(forecasts_path, ForecastAnswer))
    return qualify_methods(answers)


def forecast_as_answer(forecast: ForecastAnswer) -> Answer:
    """A forecast row as the Answer that evaluation scores: family 'forecast', task_id = question_id and
    payload = the ForecastAnswer (also how the inspect bridge scores a forecast sample)."""
    return Answer(
        task_id=forecast.question_id,
        family="forecast",
        method=forecast.method or "unknown",
        model=forecast.model,
        mode=forecast.mode,
        status=forecast.status,
        error=forecast.error,
        contamination_risk=forecast.contamination_risk,
        llm_calls=forecast.llm_calls,
        cache_hits=forecast.cache_hits,
        transcript=forecast.transcript,
        version=forecast.version,
        label=forecast.label,
        payload=forecast.model_dump(mode="json", exclude={"transcript", "version", "label"}),
    )


SHIPPED_VERSION_PREFIX = "foresci "


def short_version(version: str) -> str:
    """``version`` as shown after a method's name: itself when short, else 12 hex digits of its hash."""
    import hashlib

    return version if len(version) <= 24 else hashlib.sha256(version.encode()).hexdigest()[:12]


def qualify_methods(answers: list[Answer]) -> list[Answer]:
    """``answers`` with each row's ``method`` naming its label and version: ``label/method@version``.

    A plug-in's or agent's version is always shown (rows of two versions never merge); a shipped
    method's only when the rows hold more than one version of it; a version the method's name starts
    with (an HTTP agent without /info: its masked URL) is not repeated. Rows without a label or version
    keep their method's name.
    """
    seen: dict[tuple[str | None, str], set[str]] = {}
    for answer in answers:
        if answer.version:
            seen.setdefault((answer.label, answer.method), set()).add(answer.version)
    for answer in answers:
        name, version = answer.method, answer.version
        if version and not name.startswith(version) and (
            not version.startswith(SHIPPED_VERSION_PREFIX) or len(seen[(answer.label, name)]) > 1
        ):
            name = f"{name}@{short_version(version)}"
        if answer.label:
            name = f"{answer.label}/{name}"
        answer.method = name
    return answers


def release_of_run(run_dir: Path) -> Path | None:
    """The release folder named by the run's manifest (inputs.release or config.release), if any."""
    manifest_path = Path(run_dir) / "manifest.json"
    if not manifest_path.is_file():
        return None
    manifest: dict[str, Any] = read_json(manifest_path)
    for section in ("inputs", "config"):
        found = input_of_run(run_dir, manifest.get(section) or {}, "release")
        if found is not None:
            return found
    return None


def input_of_run(run_dir: Path, entries: dict[str, Any], name: str, exists: bool = False) -> Path | None:
    """The input folder ``name`` a run manifest section names: its path from the run folder
    (``name_from_run``) when that exists, else the path as written (absolute; an older run's relative
    path from the run folder, else from here). With ``exists``, None when it is not there."""
    value = entries.get(name)
    if isinstance(value, dict):
        value = value.get("path")
    candidates: list[Path] = []
    relative = entries.get(f"{name}_from_run")
    if isinstance(relative, str) and relative:
        candidates.append(Path(run_dir) / relative)
    if isinstance(value, str) and value:
        path = Path(value)
        candidates += [path] if path.is_absolute() else [Path(run_dir) / path, path]
    for candidate in candidates:
        if candidate.exists():
            return candidate
    return None if exists or not candidates else candidates[-1]


def answer_key(task_id: str, method: str, model: str | None, mode: str) -> str:
    """The identity of an answer row: task, method, backbone and mode."""
    return f"{task_id}|{method}|{model or '-'}|{mode}"


def kb_citation_dates(kb: Path, answers: list[Answer]) -> dict[str, Any]:
    """The KB's announcement dates of every id the answers cite (ids the KB lacks are left out)."""
    from foresci.kb.store import KnowledgeBase

    knowledge_base = KnowledgeBase.open(kb)
    try:
        dates = {}
        for paper_id in dict.fromkeys(pid for answer in answers for pid in cited_ids(answer)):
            row = knowledge_base.row_of(paper_id)
            if row is not None:
                dates[paper_id] = knowledge_base.announced_at(row)
        return dates
    finally:
        knowledge_base.close()


def kb_named_by_run(run_dir: Path) -> str | None:
    """The KB path the run's manifest names (as written; it may no longer exist), or None."""
    manifest_path = Path(run_dir) / "manifest.json"
    if not manifest_path.is_file():
        return None
    value = (read_json(manifest_path).get("inputs") or {}).get("kb")
    return value if isinstance(value, str) and value else None


def kb_of_run(run_dir: Path) -> Path | None:
    """The KB folder named by the run's manifest, when it still exists."""
    manifest_path = Path(run_dir) / "manifest.json"
    if not manifest_path.is_file():
        return None
    found = input_of_run(run_dir, read_json(manifest_path).get("inputs") or {}, "kb", exists=True)
    return found if found is not None and (found / "manifest.json").is_file() else None


def require_targets(answers: list[Answer], release: ReleaseData) -> None:
    """Refuse a release that holds no target for any answered row (e.g. no hidden.jsonl), or none for some
    of the answered tasks it lists (a cut hidden file would turn good scores into "missing")."""
    answered = [answer for answer in answers if answer.status == "ok"]
    has_target = [
        answer
        for answer in answered
        if (answer.task_id in release.tasks and answer.task_id in release.hidden)
        or (answer.task_id in release.questions and answer.task_id in release.resolutions)
    ]
    if answered and not has_target and release.questions and not release.tasks:
        raise UserError(
            f"the forecast package is not resolved yet: none of its {len(release.questions)} questions "
            "has a resolution; run `foresci forecast resolve` once newer literature covers the window",
            path=release.path / "resolutions.jsonl",
        )
    if answered and not has_target:
        raise UserError(
            f"the release has no hidden target or resolution for any of the {len(answered)} answered rows "
            "(is this the public copy of the release?); nothing was scored and existing scores are untouched",
            path=release.path / "hidden.jsonl",
        )
    untargeted = sorted({
        answer.task_id for answer in answered
        if (answer.task_id in release.tasks and answer.task_id not in release.hidden)
        or (answer.task_id in release.questions and answer.task_id not in release.resolutions)
    })
    if untargeted:
        more = f" and {len(untargeted) - 5} more" if len(untargeted) > 5 else ""
        file = "hidden.jsonl" if untargeted[0] in release.tasks else "forecast_hidden.jsonl"
        raise UserError(
            f"the release's targets cover only part of its answered tasks: none for {len(untargeted)} "
            f"({', '.join(untargeted[:5])}{more}); is the file cut short? Nothing was scored and existing "
            "scores are untouched",
            path=release.path / file,
        )


def tasks_without_answer(answers: list[Answer], release: ReleaseData) -> list[str]:
    """Release tasks (and forecast questions) that no row of the run answered successfully."""
    answered = {answer.task_id for answer in answers if answer.status == "ok"}
    return sorted((set(release.tasks) | set(release.questions)) - answered)
