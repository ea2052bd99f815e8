"""Artifact folders and their ``manifest.json``: inputs, config, content hashes, version, git revision.

Every artifact (KB, taxonomy, release, run, scores) is a folder with a manifest. The fingerprint of
(kind, inputs, config) decides reuse: same inputs and config, same fingerprint, no recompute.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from foresci import __version__
from foresci.core.errors import UserError
from foresci.core.io import read_json, write_json

MANIFEST_NAME = "manifest.json"


class Manifest(BaseModel):
    """What an artifact was made from and with."""

    model_config = ConfigDict(extra="forbid")

    kind: str = Field(description="artifact kind: kb, taxonomy, release, run, scores, world, package, report")
    created_at: datetime = Field(description="UTC creation time")
    fingerprint: str = Field(description="hash of kind, inputs and config; equal fingerprints mean reusable")
    inputs: dict[str, Any] = Field(default_factory=dict, description="input paths/ids and their hashes")
    config: dict[str, Any] = Field(default_factory=dict, description="the settings that shaped the artifact")
    hashes: dict[str, str] = Field(default_factory=dict, description="sha256 of each output file")
    counts: dict[str, Any] = Field(default_factory=dict, description="summary counts")
    version: str = Field(default=__version__, description="foresci version")
    git_revision: str | None = Field(default=None, description="git revision of the code, when known")


def sha256_file(path: Path | str, chunk_size: int = 1 << 20) -> str:
    """Return the hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        while chunk := handle.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest()


def sha256_json(value: Any) -> str:
    """Return the hex sha256 of a JSON-serialisable value (keys sorted, so order-independent)."""
    encoded = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()


def git_revision() -> str | None:
    """Return the git revision of the foresci checkout, or None outside a checkout."""
    root = Path(__file__).resolve().parents[2]
    try:
        result = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout.strip() or None if result.returncode == 0 else None


def fingerprint(kind: str, inputs: dict[str, Any], config: dict[str, Any]) -> str:
    """Return the reuse fingerprint of an artifact."""
    return sha256_json({"kind": kind, "inputs": inputs, "config": config})[:16]


def write_manifest(
    folder: Path | str,
    kind: str,
    *,
    inputs: dict[str, Any] | None = None,
    config: dict[str, Any] | None = None,
    files: list[str] | None = None,
    counts: dict[str, Any] | None = None,
) -> Manifest:
    """Write ``folder/manifest.json`` hashing the named output files; return the manifest."""
    folder = Path(folder)
    inputs = inputs or {}
    config = config or {}
    hashes = {name: sha256_file(folder / name) for name in (files or []) if (folder / name).is_file()}
    manifest = Manifest(
        kind=kind,
        created_at=datetime.now(UTC),
        fingerprint=fingerprint(kind, inputs, config),
        inputs=inputs,
        config=config,
        hashes=hashes,
        counts=counts or {},
        git_revision=git_revision(),
    )
    write_json(folder / MANIFEST_NAME, manifest)
    return manifest


def read_manifest(folder: Path | str) -> Manifest:
    """Read ``folder/manifest.json``; a missing or invalid manifest raises an error naming the file."""
    path = Path(folder) / MANIFEST_NAME
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no manifest; is {folder} a foresci artifact folder?")
    return Manifest.model_validate(read_json(path))


def refresh_hashes(folder: Path | str, names: list[str]) -> None:
    """Re-hash ``names`` in ``folder``'s manifest after its writer rewrote them (e.g. final timings)."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    manifest.hashes.update({name: sha256_file(folder / name) for name in names})
    write_json(folder / MANIFEST_NAME, manifest)


def changed_files(folder: Path | str) -> list[str]:
    """Files named in ``folder``'s manifest hashes whose content differs now (or that are gone), sorted."""
    folder = Path(folder)
    manifest = read_manifest(folder)
    return sorted(
        name
        for name, digest in manifest.hashes.items()
        if not (folder / name).is_file() or sha256_file(folder / name) != digest
    )


def is_reusable(folder: Path | str, kind: str, inputs: dict[str, Any], config: dict[str, Any]) -> bool:
    """True when ``folder`` holds a complete artifact made from the same inputs and config."""
    try:
        manifest = read_manifest(folder)
    except (FileNotFoundError, ValueError, UserError):
        return False
    return manifest.kind == kind and manifest.fingerprint == fingerprint(kind, inputs, config)


def run_input_paths(out: Path | str, name: str, path: Path | str) -> dict[str, str]:
    """A run manifest's entries for an input folder: ``name``, its absolute path, and ``name_from_run``,
    its path from the run folder ``out``, so `foresci eval RUN` finds it from any working directory and
    after the run and its inputs moved together (read by
    :func:`foresci.evaluation.loading.input_of_run`)."""
    import os

    absolute = Path(path).absolute()
    return {name: str(absolute), f"{name}_from_run": os.path.relpath(absolute, Path(out).absolute())}
