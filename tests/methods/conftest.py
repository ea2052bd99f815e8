"""Fixtures of the method-API tests: a small generated world (KB + release with hidden targets) built
once per session, and ``foresci`` run as a real subprocess (the way a user runs a plug-in)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from foresci.core.settings import Settings
from tests.realllm.world import SmallWorld, build_small_world
from tests.support.fixtures import llm_settings, scripted_llm  # noqa: F401

REPO_ROOT = Path(__file__).resolve().parents[2]
# smaller than the real-model stage's world (about a third of its build time); still three families
WORLD = {"months": 12, "papers_per_month": 30.0, "directions_per_domain": 5}
Foresci = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(scope="session")
def small_world(tmp_path_factory: pytest.TempPathFactory) -> SmallWorld:
    """A generated world with one task per family, its KB and release (hidden targets included)."""
    root = tmp_path_factory.mktemp("method-world")
    return build_small_world(root, Settings(cache_dir=root / "cache"), per_family=1, **WORLD)


@pytest.fixture
def foresci(small_world: SmallWorld) -> Foresci:
    """Run ``python -m foresci ARGS`` in a subprocess (in the world's folder unless ``cwd``); ``path``
    folders go first on PYTHONPATH."""

    def run(*args: str, path: tuple[Path, ...] = (), env: dict[str, str] | None = None,
            timeout: float = 300, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        python_path = [str(folder) for folder in path] + [str(REPO_ROOT)]
        if os.environ.get("PYTHONPATH"):
            python_path.append(os.environ["PYTHONPATH"])
        environment = {
            **{key: value for key, value in os.environ.items() if not key.startswith("FORESCI_")},
            "PYTHONPATH": os.pathsep.join(python_path),
            "FORESCI_CACHE_DIR": str(small_world.root / "cache"),
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            **(env or {}),
        }
        return subprocess.run([sys.executable, "-m", "foresci", *args], capture_output=True, text=True,
                              env=environment, timeout=timeout, cwd=cwd or small_world.root)

    return run
