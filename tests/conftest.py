"""Shared pytest fixtures and helpers."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("FORESCI_SHARED", REPO_ROOT.parent / "shared"))


# Test folders whose tests share one exclusive resource run on one pytest-xdist worker together: the Ray
# engine tests share one local cluster (two at once would start two 2-CPU clusters on the same machine).
ONE_WORKER_FOLDERS = ("engines",)
# The longest modules (about 40 s to 10 min each) are handed to the workers first, so none of them starts
# last and runs alone while the other worker idles.
LONGEST_FIRST = ("realllm/test_real_model.py", "rounds/test_world_cli.py", "sim/test_signal.py",
                 "evaluation/test_metric_extension.py", "docs/test_docs_run.py")


if importlib.util.find_spec("xdist") is not None:

    def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
        """``--dist loadfile`` (what ``make test`` passes) sends each module whole to one worker, and each
        folder of ONE_WORKER_FOLDERS whole to one (tests/support/xdist_modules.py); other modes are
        xdist's own."""
        if config.getvalue("dist") != "loadfile":
            return None
        from tests.support.xdist_modules import ModuleScheduling

        return ModuleScheduling(config, log, folders=ONE_WORKER_FOLDERS)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On a pytest-xdist worker, the LONGEST_FIRST modules come first (a stable sort keeps every other
    module's order); the controller hands the modules out in this order."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    tests_dir = Path(__file__).resolve().parent
    items.sort(key=lambda item: item.path.resolve().relative_to(tests_dir).as_posix() not in LONGEST_FIRST)


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
