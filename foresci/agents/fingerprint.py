"""What shapes a run's answers, as a fingerprint stored beside ``answers.jsonl``.

Resuming a run folder with other agent settings, another sampling temperature or edited prompt files
would mix answers of two different experiments under one key. ``foresci run`` therefore records the
fingerprint in ``RUN/run_fingerprint.json`` on the first answer and refuses a later run into the same
folder whose fingerprint differs, naming what changed.

The versions of the methods (:mod:`foresci.methods.identity`) are recorded beside it: a method answered
into the folder before under another version (an edited plug-in, an upgraded agent) is refused too,
unless the run asks for a new version (``--new-version``): its rows are then added beside the old ones,
each row carrying its version.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from foresci.agents.prompts import shipped_family_prompt_files
from foresci.core.artifacts import sha256_file, sha256_json
from foresci.core.errors import UserError
from foresci.core.io import read_json, write_json
from foresci.core.resources import declarative_dir
from foresci.core.settings import Settings

FINGERPRINT_FILE = "run_fingerprint.json"


def run_fingerprint_parts(settings: Settings, prompts_dir: Path | None = None) -> dict[str, Any]:
    """The settings and prompt files that shape answers (not concurrency, endpoint URL or keys): the
    ``agents/`` files and the shipped families' ``prompts.yaml``."""
    folder = prompts_dir or declarative_dir("agents")
    llm = settings.llm
    return {
        "agents": settings.agents.model_dump(mode="json", exclude={"concurrency"}),
        "llm": {
            "temperature": llm.temperature,
            "structured_output_method": llm.structured_output_method,
            "reask": llm.reask,
        },
        "embed_model": settings.embed.model,
        "prompts": {
            **{path.name: sha256_file(path)[:16] for path in sorted(Path(folder).glob("*.yaml"))},
            **{f"{path.parent.name}/{path.name}": sha256_file(path)[:16]
               for path in shipped_family_prompt_files()},
        },
    }


def _changed(old: Any, new: Any, prefix: str = "") -> list[str]:
    if isinstance(old, dict) and isinstance(new, dict):
        names: list[str] = []
        for key in sorted(set(old) | set(new)):
            names += _changed(old.get(key), new.get(key), f"{prefix}{key}.")
        return names
    return [] if old == new else [prefix.rstrip(".")]


def changed_versions(stored: dict[str, str], versions: dict[str, str]) -> list[str]:
    """'method (old -> new)' for each method of ``versions`` recorded under another version."""
    return [f"{name} ({stored[name]} -> {version})" for name, version in versions.items()
            if name in stored and stored[name] != version]


def check_run_fingerprint(out: Path, parts: dict[str, Any], has_rows: bool,
                          versions: dict[str, str] | None = None, new_version: bool = False) -> str:
    """Record ``parts`` and the method ``versions`` in ``out`` (first run) or refuse when rows exist
    under other parts, or a method's rows under another version (unless ``new_version``).

    Returns the fingerprint. A folder with rows but no fingerprint file (an older run) adopts this one.
    """
    fingerprint = sha256_json(parts)[:16]
    path = out / FINGERPRINT_FILE
    stored: dict[str, Any] = read_json(path) if path.is_file() and has_rows else {}
    if stored and stored.get("fingerprint") != fingerprint:
        changed = _changed(stored.get("parts", {}), parts) or ["(unknown)"]
        raise UserError(
            f"this run folder holds answers made with other settings or prompts (changed: "
            f"{', '.join(changed[:6])}); answer into a new --out folder or restore them",
            path=path,
            field="fingerprint",
        )
    known: dict[str, str] = dict(stored.get("methods") or {})
    moved = changed_versions(known, versions or {})
    if moved and not new_version:
        raise UserError(
            f"this run folder holds answers of another version of {', '.join(moved[:6])}; pass "
            "--new-version to add this version's rows beside them, or answer into a new --out folder",
            path=path,
            field="methods",
        )
    record: dict[str, Any] = {"fingerprint": fingerprint, "parts": parts}
    if versions or known:
        record["methods"] = {**known, **(versions or {})}
    write_json(path, record)
    return fingerprint
