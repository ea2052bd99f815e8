"""What ``foresci transcript`` shows beside each answer's calls: the question asked, the answer (or the
error message), and, once the run is evaluated, the scores with the gold they were scored against."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FORECAST_FIELDS = ("p10", "p50", "p90", "probability")


def _jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a torn last line of a run still writing
    return rows


def _questions(run_dir: Path) -> dict[str, str]:
    """Task and forecast question texts by id, from the release the run's manifest names (public side)."""
    from foresci.evaluation.loading import release_of_run

    try:
        release = release_of_run(run_dir)
    except (OSError, ValueError):
        release = None
    if release is None:
        return {}
    found = {str(row.get("task_id")): str(row.get("question", "")) for row in _jsonl(release / "tasks.jsonl")}
    found.update({str(row.get("question_id")): str(row.get("text", ""))
                  for row in _jsonl(release / "forecast.jsonl")})
    return found


def _answer_text(row: dict[str, Any]) -> str:
    if "question_id" in row:
        shown = [f"{name}={row[name]:g}" for name in FORECAST_FIELDS if row.get(name) is not None]
        return ", ".join(shown) or "(no forecast)"
    return str(row.get("text") or json.dumps(row.get("payload") or {}, ensure_ascii=False))


def _score_text(score: dict[str, Any]) -> str:
    """'metric=value …' of a score row, with the gold of the metrics that name one."""
    parts, golds = [], []
    for name, result in sorted((score.get("metrics") or {}).items()):
        value = result.get("value")
        if value is not None:
            parts.append(f"{name}={value:.3f}")
        details = result.get("details") or {}
        for label in ("gold", "outcome"):
            if details.get(label) is not None and f"{label} {details[label]}" not in golds:
                golds.append(f"{label} {details[label]}")
    return " ".join(parts) + (f" ({'; '.join(golds)})" if golds else "") if parts or golds else "not scored"


def row_context(run_dir: Path) -> dict[str, list[str]]:
    """Lines to print under each transcript, by transcript id: question, answer or error, scores."""
    from foresci.evaluation.loading import answer_key, qualify_methods
    from foresci.evaluation.runner import SCORES_NAME

    run_dir = Path(run_dir)
    questions = _questions(run_dir)
    scores = {str(row.get("key")): row for row in _jsonl(run_dir / SCORES_NAME)}
    rows = _jsonl(run_dir / "answers.jsonl") + _jsonl(run_dir / "forecasts.jsonl")
    identities = _identities(rows, qualify_methods)
    context: dict[str, list[str]] = {}
    for row, identity in zip(rows, identities, strict=True):
        transcript = row.get("transcript")
        if not transcript:
            continue
        unit_id = str(row.get("task_id") or row.get("question_id"))
        lines = []
        if unit_id in questions:
            lines.append(f"question: {questions[unit_id]}")
        if row.get("status") == "error":
            lines.append(f"error: {row.get('error')}")
        else:
            lines.append(f"answer: {_answer_text(row)}")
        score = scores.get(answer_key(unit_id, identity, row.get("model"), str(row.get("mode", "full"))))
        if score is not None:
            lines.append(f"score: {_score_text(score)}")
        context[str(transcript)] = lines
    return context


def _identities(rows: list[dict[str, Any]], qualify: Any) -> list[str]:
    """Each row's method as evaluation names it (label/method@version, judged over all the rows)."""
    from foresci.contracts import Answer

    probes = [Answer(task_id="-", family="-", method=str(row.get("method") or "unknown"),
                     version=row.get("version"), label=row.get("label")) for row in rows]
    return [str(probe.method) for probe in qualify(probes)]
