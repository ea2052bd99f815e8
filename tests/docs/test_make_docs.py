"""`make docs VENV=...` from a fresh clone builds with the given venv as it is: nothing installed into it
(a fresh clone's pyproject.toml is newer than the venv's install stamps), this checkout's code on the path."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.docs.blocks import REPO_ROOT


def test_make_docs_with_a_given_venv_installs_nothing(tmp_path: Path) -> None:
    if shutil.which("make") is None:
        pytest.fail("make is not installed")
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    for name in ("python", "mkdocs"):
        (venv / "bin" / name).write_text("#!/bin/sh\n")
        (venv / "bin" / name).chmod(0o755)
    for stamp in (".foresci-installed", ".foresci-docs-installed"):
        (venv / stamp).touch()
    clone = tmp_path / "clone"
    clone.mkdir()
    for name in ("Makefile", "pyproject.toml", "setup.py"):
        shutil.copy(REPO_ROOT / name, clone / name)  # copied after the stamps: newer, as in a fresh clone
    planned = subprocess.run(["make", "-n", "docs", f"VENV={venv}"], cwd=clone, capture_output=True,
                             text=True, check=True).stdout
    assert "pip install" not in planned and "venv" not in planned.replace(str(venv), ""), planned
    assert f'PYTHONPATH="{clone}' in planned and "mkdocs build --strict" in planned
