"""A small local Ray cluster for the engine tests, started once per session and shut down after it."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[Any]:
    """``ray`` connected to a 2-CPU local cluster (workers inherit this process's environment)."""
    if importlib.util.find_spec("ray") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("ray is not installed; `make test` installs the foresci[ray] extra")
        pytest.skip("ray is not installed (pip install 'foresci[ray]')")
    import ray

    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        object_store_memory=96 * 1024 * 1024,
        configure_logging=False,
    )
    try:
        yield ray
    finally:
        ray.shutdown()


from tests.agents.conftest import toy_world  # noqa: E402,F401  (the toy KB the run tests answer from)
from tests.evaluation.conftest import release_dir, run_dir  # noqa: E402,F401  (a judged evaluation's inputs)
