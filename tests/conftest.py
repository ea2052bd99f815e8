"""Shared pytest fixtures and helpers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("FORESCI_SHARED", REPO_ROOT.parent / "shared"))


def require_shared(relative: str = "") -> Path:
    """Return ``../shared/<relative>``; skip when absent locally, fail when CI=true."""
    path = SHARED / relative
    if path.exists():
        return path
    message = f"needs {path} (the shared data beside the checkout)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture
def shared_dir() -> Path:
    """The ../shared folder (fails under CI=true when missing)."""
    return require_shared()
