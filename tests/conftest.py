"""Shared pytest fixtures and helpers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("FORESCI_SHARED", REPO_ROOT.parent / "shared"))


def pytest_collection_finish(session: pytest.Session) -> None:
    """Collecting tests/emergence imports the concept_emergence family, an extension that registers on
    import: take it out again so every other test sees only the shipped families (its own tests register
    it for their module)."""
    from foresci.tasks.families import base

    if base._REGISTRY.pop("concept_emergence", None) is not None:
        base._family_tuple.cache_clear()


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
