"""Hidden-target IO: for task building and evaluation only (agents never import this module)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError

from foresci.core.io import JsonlError, iter_jsonl_numbered, read_models, write_jsonl
from foresci.tasks.families import UnknownFamilyError
from foresci.tasks.hidden import HiddenTarget, Resolution, parse_hidden_target
from foresci.tasks.release import FORECAST_HIDDEN_FILE, HIDDEN_FILE


def load_hidden(path: Path | str) -> dict[str, HiddenTarget]:
    """Load ``hidden.jsonl`` of a release folder as task_id -> HiddenTarget; errors name file and line."""
    file = Path(path)
    if file.is_dir():
        file = file / HIDDEN_FILE
    targets: dict[str, HiddenTarget] = {}
    for line_number, target in iter_hidden(file):
        if target.task_id in targets:
            raise ValueError(f"{file}:{line_number}: duplicate task_id {target.task_id!r}")
        targets[target.task_id] = target
    return targets


def iter_hidden(file: Path) -> Iterator[tuple[int, HiddenTarget]]:
    """(line number, target) of every row of a hidden.jsonl, each as its family's target model; an
    invalid row or an unknown family raises JsonlError naming the file, the line and the field."""
    for line_number, row in iter_jsonl_numbered(file):
        try:
            target = parse_hidden_target(row)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            reason = f"invalid hidden target: {first['msg']}"
            raise JsonlError(file, line_number, reason, field=where) from error
        except UnknownFamilyError as error:
            raise JsonlError(file, line_number, error.message, field="family") from error
        yield line_number, target


def read_hidden(file: Path | str) -> list[HiddenTarget]:
    """Every row of a hidden.jsonl as its family's target (errors as :func:`iter_hidden`)."""
    return [target for _, target in iter_hidden(Path(file))]


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
