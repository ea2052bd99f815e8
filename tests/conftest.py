"""Shared pytest fixtures and helpers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("FORESCI_SHARED", REPO_ROOT.parent / "shared"))


# Test folders whose tests share one exclusive resource run on one pytest-xdist worker together: the Ray
# engine tests share one local cluster (two at once would start two 2-CPU clusters on the same machine).
ONE_WORKER_FOLDERS = ("engines",)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``--dist loadgroup``), keep each test module on one worker, so a module or
    session fixture is built at most once per worker, and each folder of ONE_WORKER_FOLDERS on one."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    tests_dir = Path(__file__).resolve().parent
    for item in items:
        if item.get_closest_marker("xdist_group") is not None:
            continue
        relative = item.path.resolve().relative_to(tests_dir)
        group = relative.parts[0] if relative.parts[0] in ONE_WORKER_FOLDERS else relative.as_posix()
        item.add_marker(pytest.mark.xdist_group(group))


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
