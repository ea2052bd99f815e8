"""Per-item scores of the family tasks of a round: a proper multi-class score on every resolved task, and the
family's top-1 and its deterministic FTA.

Every resolved task (only an outcome-blind reason voids one: :mod:`foresci.rounds.family_tasks`) and
submission version gets ``mbrier``: the multi-class Brier score of the answer's probability per option against
the outcome (the option that in fact grew, rose or emerged most; ties split; "none of these" where none did),
:mod:`foresci.rounds.option_scores` (a ranking or a single choice maps to a stated distribution there).
``top1``: on a *decisive* task (the builder's gates pass, so the family's hidden target exists)
:meth:`TaskFamily.top_choice` (1 for the primary direction, 0.5 for an acceptable neighbour; planning and
venue: the first-ranked option right; a family's round hook ``top_choice`` where it has one, e.g. the
bottleneck family's); on another task the outcome mass on the answer's top option (1/m for one of m tied
winners). ``fta`` on decisive tasks where the family ranks its options (planning, venue, emergence:
ranking-aware FTA against the hidden order, deterministic, no judge); direction and bottleneck get the offline
slot FTA over the answer's sentences with the KB's embedder (:mod:`foresci.rounds.slot_fta`; none without an
embedder). A task a submission left unanswered (or answered with an error row) scores top-1 0 and the uniform
distribution's Brier (``imputed: true``), so skipping hard tasks does not pay; a family the submission
answered no task of is left out for it (recency answers no venue task)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from foresci.contracts import Answer
from foresci.core.io import iter_jsonl
from foresci.evaluation.fta import TextEncoder
from foresci.rounds.ledger import RESOLUTIONS_DIR, RoundManifest
from foresci.rounds.option_scores import answer_distribution, multiclass_brier, top_mass
from foresci.rounds.slot_fta import SLOT_FTA_FAMILIES, slot_fta
from foresci.rounds.submit import TASK_ANSWERS_FILE, all_submissions
from foresci.tasks.models import Task

TASK_METRICS = ("top1", "fta")
"""The family boards' metrics (higher is better)."""
MBRIER = "mbrier"
"""Multi-class Brier of each task answer's per-option probabilities (lower is better; every resolved task,
:mod:`foresci.rounds.option_scores`)."""


def task_resolution_path(folder: Path, horizon: str) -> Path:
    """The resolution file of a round's family tasks of one horizon."""
    return folder / RESOLUTIONS_DIR / f"tasks-{horizon}.jsonl"


def resolved_tasks(folder: Path, manifest: RoundManifest) -> dict[str, dict[str, Any]]:
    """task id -> resolution row (``status`` resolved/void, ``reason``, parsed ``hidden``)."""
    from foresci.rounds.family_tasks import read_task_resolutions

    return read_task_resolutions(
        [task_resolution_path(folder, horizon) for horizon in sorted(manifest.task_windows)]
    )


def outcome_of(row: Mapping[str, Any]) -> dict[str, float]:
    """A resolution row's outcome over the options (rows written before outcomes were kept: the hidden
    target's top option)."""
    if row.get("outcome"):
        return {str(option): float(share) for option, share in row["outcome"].items()}
    hidden = row.get("hidden")
    top = None if hidden is None else (hidden.top_option() or hidden.stats.get("option_id"))
    return {} if top is None else {str(top): 1.0}


def _metrics(task: Task, resolution: Mapping[str, Any], answer: Answer | None,
             encoder: TextEncoder | None = None) -> dict[str, tuple[float, bool]]:
    """metric -> (value, imputed) of one answer on one resolved task: ``mbrier`` (multi-class Brier of the
    answer's distribution, :mod:`foresci.rounds.option_scores`) and ``top1`` on every task; FTA where
    the task is decisive; top-1 of a decisive task is the family's own, of another the outcome mass on the
    answer's top option."""
    outcome = outcome_of(resolution)
    hidden = resolution.get("hidden")
    imputed = answer is None or answer.status != "ok"
    probabilities, _ = answer_distribution(task, None if imputed else answer)
    result = {MBRIER: (multiclass_brier(probabilities, outcome), imputed)}
    if hidden is None:
        result["top1"] = (0.0, True) if imputed else (top_mass(probabilities, outcome), False)
        return result
    return {**result, **_decisive_metrics(task, hidden, answer, encoder)}


def _decisive_metrics(task: Task, hidden: Any, answer: Answer | None,
                      encoder: TextEncoder | None = None) -> dict[str, tuple[float, bool]]:
    from foresci.evaluation.config import EvaluationSettings
    from foresci.evaluation.loading import ReleaseData
    from foresci.evaluation.metrics.fta import ranking_result
    from foresci.evaluation.session import row_context
    from foresci.tasks.families import get_family

    family = get_family(task.family)
    slots = encoder is not None and task.family in SLOT_FTA_FAMILIES
    wanted = ["top1", *(["fta"] if family.ranked or slots else [])]
    if answer is None or answer.status != "ok":
        return {metric: (0.0, True) for metric in wanted}
    release = ReleaseData(path=Path("."), tasks={task.task_id: task}, hidden={task.task_id: hidden})
    context = row_context(answer, release, EvaluationSettings())
    round_top = getattr(family.round_hooks(), "top_choice", None) if family.round_tasks else None
    top = (round_top or family.top_choice)(answer, task, hidden)
    result = {"top1": (float(top.value) if top is not None else 0.0, False)}
    if family.ranked:
        value = ranking_result("fta", context).value
        result["fta"] = (float(value or 0.0), False)
    elif slots and encoder is not None:
        result["fta"] = (slot_fta(task, hidden, answer, encoder), False)
    return result


def score_tasks(folder: Path, manifest: RoundManifest, tasks: Sequence[Task],
                encoder: TextEncoder | None = None) -> list[dict[str, Any]]:
    """Score rows of every submission version on every resolved, non-void task (sorted, deterministic;
    ``encoder``: the slot FTA's embedder, none without it)."""
    resolutions = resolved_tasks(folder, manifest)
    resolved = [
        task for task in tasks if resolutions.get(task.task_id, {}).get("status") == "resolved"
    ]
    rows: list[dict[str, Any]] = []
    for record in all_submissions(folder):
        path = folder / record["folder"] / TASK_ANSWERS_FILE
        answers = {}
        if path.is_file():
            for raw in iter_jsonl(path):
                answer = Answer.model_validate(raw)
                answers[answer.task_id] = answer
        if not answers:
            continue  # a submission without task answers takes no part in the family boards
        families = {answer.family for answer in answers.values()}
        for task in (task for task in resolved if task.family in families):
            resolution = resolutions[task.task_id]
            metrics = _metrics(task, resolution, answers.get(task.task_id), encoder)
            outcome = outcome_of(resolution)
            for metric, (value, imputed) in metrics.items():
                rows.append(
                    {
                        "round_id": manifest.round_id,
                        "item": f"{manifest.round_id}/{task.task_id}",
                        "task_id": task.task_id,
                        "window": task.horizon,
                        "kind": "task",
                        "family": task.family,
                        "domain": task.domain,
                        "method": record["method"],
                        "version": record["version"],
                        "metric": metric,
                        "score": round(value, 10),
                        "imputed": imputed,
                        "outcome": max(sorted(outcome), key=lambda option: outcome[option], default=None),
                        "outcome_split": len(outcome),
                        "decisive": resolution.get("hidden") is not None,
                        "options": len(task.candidates),
                    }
                )
    rows.sort(key=lambda row: (row["method"], row["version"], row["item"], row["metric"]))
    return rows


def _reason_kind(reason: Any) -> str:
    """A void reason without its numbers (the gate that failed), for counting."""
    return re.sub(r"-?\d+(?:\.\d+)?", "N", str(reason))


def task_counts(folder: Path, manifest: RoundManifest) -> dict[str, Any]:
    """Frozen, resolved and void family tasks of a round, with the void reasons (numbers as N) counted."""
    resolutions = resolved_tasks(folder, manifest)
    void = [row for row in resolutions.values() if row["status"] == "void"]
    decisive = sum(row["status"] == "resolved" and row.get("hidden") is not None
                   for row in resolutions.values())
    by_family: dict[str, dict[str, int]] = {}
    for row in resolutions.values():
        entry = by_family.setdefault(str(row["family"]), {"resolved": 0, "void": 0})
        entry[str(row["status"])] += 1
    return {
        "frozen": manifest.tasks,
        "resolved": sum(row["status"] == "resolved" for row in resolutions.values()),
        "void": len(void),
        "decisive": decisive,
        "by_family": dict(sorted(by_family.items())),
        "void_reasons": dict(
            sorted(Counter(f"{row['family']}: {_reason_kind(row['reason'])}" for row in void).items())
        ),
    }
