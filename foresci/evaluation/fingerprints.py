"""Reuse keys of score rows: a stored row is reused only when nothing that shaped it has changed.

The run-wide part (:func:`evaluation_fingerprint`) covers the scoring revision (derived from the metric
definitions: :mod:`foresci.evaluation.metrics.revision`), the metric settings, the embedder, the judge
model and its prompt files, the release folder and the KB citations are checked against; the row part
(:func:`row_fingerprint`) adds the answer row and its task's public and hidden rows (or its forecast
question and resolution).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from foresci.contracts import Answer
from foresci.core.artifacts import sha256_file, sha256_json
from foresci.core.io import read_json
from foresci.core.resources import declarative_file
from foresci.core.settings import Settings
from foresci.evaluation.loading import ReleaseData
from foresci.evaluation.metrics.revision import scoring_revision

JUDGE_FILES = ("judges.yaml", "rubrics.yaml", "venues.yaml")


def evaluation_fingerprint(
    settings: Settings, release: ReleaseData, offline: bool, kb: Path | None = None
) -> str:
    """The run-wide part of every row fingerprint: scoring revision, metric settings, embedder, judge model
    and prompt files, release folder, and the KB that citations are checked against."""
    config: dict[str, Any] = {
        "scoring_revision": scoring_revision(),
        "evaluation": settings.evaluation.model_dump(mode="json"),
        "embed_model": settings.embed.model,
        "release": str(release.path.resolve()),
        "kb": _kb_identity(kb),
    }
    if not offline:
        llm = settings.llm
        config["judge"] = {
            "model": llm.roles.get("judge", llm.model),
            "base_url": llm.base_url,
            "temperature": llm.temperature,
        }
        config["prompts"] = {
            name: sha256_file(path)
            for name in JUDGE_FILES
            if (path := declarative_file("evaluation", name)).is_file()
        }
    return sha256_json(config)[:16]


def _kb_identity(kb: Path | None) -> Any:
    if kb is None:
        return None
    manifest = Path(kb) / "manifest.json"
    identity = read_json(manifest).get("fingerprint") if manifest.is_file() else None
    return {"path": str(Path(kb).resolve()), "fingerprint": identity}


def row_fingerprint(answer: Answer, release: ReleaseData, evaluation: str) -> str:
    """The reuse key of one score row: the answer row, its task's public and hidden rows (or forecast
    question and resolution) and the run-wide ``evaluation`` fingerprint."""
    rows: list[Any] = [
        release.tasks.get(answer.task_id),
        release.hidden.get(answer.task_id),
        release.questions.get(answer.task_id),
        release.resolutions.get(answer.task_id),
    ]
    parts = {
        "evaluation": evaluation,
        # where it is logged and what the run and method are called, not what was answered
        "answer": answer.model_dump(mode="json", exclude={"transcript", "version", "label"}),
        "release_rows": [row.model_dump(mode="json") if row is not None else None for row in rows],
    }
    return sha256_json(parts)[:16]
