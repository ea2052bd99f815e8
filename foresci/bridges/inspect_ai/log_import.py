"""An inspect eval log's answers imported into a foresci run folder (``answers.jsonl``, ``forecasts.jsonl``
for forecast questions' samples, + ``manifest.json``).

Each sample of the log whose id is a task of the release becomes one answer row of ``method`` (default
``inspect``) with the log's model, the run ``label`` and a ``version``: given, else ``inspect:`` and a
hash of what shapes the answers (the task, its version, the solver plan and the generation config), so two
different agents or settings never merge in a report. The row is read from the sample's final reply and
the support its KB tools stored, by the very function the inspect scorer used
(:func:`foresci.bridges.inspect_ai.answers.answer_row`), so ``foresci eval --offline`` of the imported
rows gives the scores in the log. A sample that errored in inspect becomes an error row with its message;
model calls and tokens come from the sample's events and usage. Rows of the same task, method, model,
mode and version already in the folder are replaced (a re-import changes nothing else).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from foresci.bridges.inspect_ai.answers import answer_row
from foresci.bridges.inspect_ai.questions import forecast_row
from foresci.bridges.inspect_ai.tools import SUPPORT_KEY
from foresci.contracts import Answer, ForecastAnswer
from foresci.core.errors import UserError
from foresci.core.io import read_models, write_jsonl
from foresci.tasks.models import ForecastQuestion, Task
from foresci.tasks.release import load_release

ANSWERS_FILE = "answers.jsonl"
FORECASTS_FILE = "forecasts.jsonl"  # as foresci run writes (foresci.methods.forecast_runner.FORECASTS_FILE)
DEFAULT_METHOD = "inspect"


@dataclass
class ImportSummary:
    """What an import wrote."""

    rows: int
    errors: int
    skipped: list[str]
    method: str
    model: str
    version: str
    forecasts: int = 0
    """How many of ``rows`` are forecast rows (``forecasts.jsonl``)."""


def log_version(log: Any) -> str:
    """``inspect:`` and 12 hex digits hashing the log's task, task version, solver plan and generation
    config (what shapes its answers besides the model, which is the row's own column)."""
    shaped = {
        "task": log.eval.task,
        "task_version": log.eval.task_version,
        "plan": log.plan.model_dump(mode="json", exclude_none=True) if log.plan else None,
        "config": log.eval.model_generate_config.model_dump(mode="json", exclude_none=True),
    }
    digest = hashlib.sha256(json.dumps(shaped, sort_keys=True, default=str).encode()).hexdigest()
    return f"inspect:{digest[:12]}"


def _usage(sample: Any) -> dict[str, Any]:
    calls = sum(1 for event in sample.events or [] if getattr(event, "event", None) == "model")
    usages = list((sample.model_usage or {}).values())
    return {
        "llm_calls": calls,
        "prompt_tokens": sum(usage.input_tokens or 0 for usage in usages),
        "completion_tokens": sum(usage.output_tokens or 0 for usage in usages),
        "elapsed_s": round(float(sample.total_time or 0.0), 3),
    }


def sample_row(task: Task, sample: Any, *, method: str, model: str, version: str,
               label: str | None) -> Answer:
    """The answer row of one sample (an error row when inspect recorded an error for it)."""
    if sample.error is not None:
        message = " ".join(str(getattr(sample.error, "message", sample.error)).split())[:2000]
        row = answer_row(task, "", None, method=method, model=model, version=version, label=label)
        row = row.model_copy(update={"error": f"task {task.task_id}: inspect sample error: {message}"})
    else:
        row = answer_row(task, sample.output.completion if sample.output else "",
                         (sample.store or {}).get(SUPPORT_KEY), method=method, model=model, version=version,
                         label=label)
    return row.model_copy(update=_usage(sample))


def question_row(question: ForecastQuestion, sample: Any, *, method: str, model: str, version: str,
                 label: str | None) -> ForecastAnswer:
    """The forecast row of one forecast question's sample (an error row when inspect recorded an error)."""
    if sample.error is not None:
        message = " ".join(str(getattr(sample.error, "message", sample.error)).split())[:2000]
        row = forecast_row(question, "", None, method=method, model=model, version=version, label=label)
        row = row.model_copy(update={"error": f"question {question.question_id}: inspect sample error: "
                                              f"{message}"})
    else:
        row = forecast_row(question, sample.output.completion if sample.output else "",
                           (sample.store or {}).get(SUPPORT_KEY), method=method, model=model,
                           version=version, label=label)
    return row.model_copy(update={"llm_calls": _usage(sample)["llm_calls"]})


def _identity(row: Answer | ForecastAnswer) -> tuple[str, str, str | None, str, str | None]:
    key = row.question_id if isinstance(row, ForecastAnswer) else row.task_id
    return (key, row.method, row.model, row.mode, row.version)


def _merge(path: Path, model: type[Answer] | type[ForecastAnswer], rows: list[Any]) -> list[Any]:
    """The rows of ``path`` with those of the same identity as ``rows`` replaced by them (written)."""
    kept = read_models(path, model) if path.is_file() else []
    replaced = {_identity(row) for row in rows}
    everything = [row for row in kept if _identity(row) not in replaced] + rows
    write_jsonl(path, everything)
    return everything


def read_log(path: Path) -> Any:
    """The inspect eval log at ``path`` (``.eval`` or ``.json``); a one-line error when it is none."""
    from inspect_ai.log import read_eval_log

    if not Path(path).is_file():
        raise UserError("no such inspect log file", path=path)
    try:
        return read_eval_log(str(path))
    except (ValueError, OSError, KeyError) as error:
        raise UserError(f"not an inspect eval log: {type(error).__name__}: {error}", path=path) from error


def import_log(log_path: Path, release_dir: Path, out: Path, *, method: str = DEFAULT_METHOD,
               label: str | None = None, version: str | None = None, kb: Path | None = None,
               epoch: int = 1) -> ImportSummary:
    """Write the answers of the inspect log at ``log_path`` (``epoch``'s samples) into ``out`` as rows of
    ``method``; ``out/manifest.json`` names ``release_dir`` and ``kb`` (default: the KB the log's task
    searched, when it still exists) for ``foresci eval``."""
    from foresci.core.artifacts import run_input_paths, write_manifest
    from foresci.core.locks import artifact_lock

    log = read_log(log_path)
    if log.status != "success" and not log.samples:
        raise UserError(f"the inspect log holds no samples (status {log.status})", path=log_path)
    if kb is None:
        used = (log.eval.metadata or {}).get("foresci_kb")
        kb = Path(used) if used and (Path(used) / "manifest.json").is_file() else None
    release = load_release(release_dir)
    tasks = {task.task_id: task for task in release.tasks}
    questions = {question.question_id: question for question in release.questions}
    model = log.eval.model
    version = version or log_version(log)
    rows: list[Answer] = []
    forecasts: list[ForecastAnswer] = []
    skipped: list[str] = []
    for sample in log.samples or []:
        if sample.epoch != epoch:
            continue
        task, question = tasks.get(str(sample.id)), questions.get(str(sample.id))
        if task is not None:
            rows.append(sample_row(task, sample, method=method, model=model, version=version, label=label))
        elif question is not None:
            forecasts.append(question_row(question, sample, method=method, model=model, version=version,
                                          label=label))
        else:
            skipped.append(str(sample.id))
    if not rows and not forecasts:
        raise UserError(f"no sample of the log is a task or forecast question of {release_dir} (sample "
                        f"ids: {', '.join(skipped[:5]) or 'none'})", path=log_path)
    out.mkdir(parents=True, exist_ok=True)
    with artifact_lock(out):
        everything: list[Any] = []  # Answer and ForecastAnswer rows
        files = []
        for name, kind, made in ((ANSWERS_FILE, Answer, rows), (FORECASTS_FILE, ForecastAnswer, forecasts)):
            if made or (out / name).is_file():
                everything += _merge(out / name, kind, made) if made else read_models(out / name, kind)
                files.append(name)
        inputs = {**run_input_paths(out, "release", release_dir),
                  "inspect_log": str(Path(log_path).absolute())}
        if kb is not None:
            inputs.update(run_input_paths(out, "kb", kb))
        write_manifest(out, "run", inputs=inputs,
                       config={"methods": sorted({row.method for row in everything}), "models": [model],
                               "mode": "full", "source": "inspect_ai", "inspect_task": log.eval.task,
                               "inspect_version": version},
                       files=files,
                       counts={"rows": len(everything), "ok": sum(row.status == "ok" for row in everything),
                               "errors": sum(row.status == "error" for row in everything)})
    return ImportSummary(rows=len(rows) + len(forecasts),
                         errors=sum(row.status == "error" for row in rows)
                         + sum(row.status == "error" for row in forecasts), skipped=skipped,
                         method=method, model=model, version=version, forecasts=len(forecasts))
