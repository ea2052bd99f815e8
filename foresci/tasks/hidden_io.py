"""Hidden-target IO: for task building and evaluation only (agents never import this module)."""

from __future__ import annotations

from pathlib import Path

from foresci.core.io import iter_models, read_models, write_jsonl
from foresci.tasks.hidden import HiddenTarget, Resolution
from foresci.tasks.release import FORECAST_HIDDEN_FILE, HIDDEN_FILE


def load_hidden(path: Path | str) -> dict[str, HiddenTarget]:
    """Load ``hidden.jsonl`` of a release folder as task_id -> HiddenTarget; errors name file and line."""
    file = Path(path)
    if file.is_dir():
        file = file / HIDDEN_FILE
    targets: dict[str, HiddenTarget] = {}
    for line_number, target in iter_models(file, HiddenTarget):
        if target.task_id in targets:
            raise ValueError(f"{file}:{line_number}: duplicate task_id {target.task_id!r}")
        targets[target.task_id] = target
    return targets


def write_hidden(folder: Path | str, targets: list[HiddenTarget]) -> str:
    """Write ``hidden.jsonl`` into a release folder; return the file name."""
    write_jsonl(Path(folder) / HIDDEN_FILE, targets)
    return HIDDEN_FILE


def write_forecast_hidden(folder: Path | str, rows: list[dict[str, object]]) -> str:
    """Write ``forecast_hidden.jsonl`` (per-question resolution parameters kept from agents)."""
    write_jsonl(Path(folder) / FORECAST_HIDDEN_FILE, rows)
    return FORECAST_HIDDEN_FILE


def load_resolutions(path: Path | str) -> list[Resolution]:
    """Load ``resolutions.jsonl`` written by ``forecast resolve``."""
    return read_models(Path(path), Resolution)
