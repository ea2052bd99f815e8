"""Fixtures of the real-model stage: the packaged local model behind llama-cpp-python's server.

Without the ``local-llm`` extra the stage is skipped locally and fails under ``CI=true`` (the Makefile's
``test`` target installs the extra first)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from foresci.core.errors import UserError
from foresci.llm.serve import LocalServer, server_available
from tests.agents.conftest import toy_world  # noqa: F401 - the toy KB, built once per session

REAL_MODEL = "smollm2-135m"


def _missing(message: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message} (CI=true: the real-model stage must run)")
    pytest.skip(message)


@pytest.fixture(scope="session")
def local_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    """SmolLM2-135M-Instruct served on 127.0.0.1 with 2 threads for the whole session."""
    if not server_available():
        _missing("llama-cpp-python[server] is not installed: pip install 'foresci[local-llm]' (make llm)")
    root: Path = tmp_path_factory.mktemp("local-model")
    try:
        server = LocalServer(REAL_MODEL, threads=2, cache_dir=root)
    except UserError as error:
        _missing(str(error))
        raise
    with server:
        yield server
