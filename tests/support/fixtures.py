"""Pytest fixtures around the scripted OpenAI server; import them in a conftest.py of your tests:

from tests.support.fixtures import llm_settings, scripted_llm  # noqa: F401
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from foresci.core.settings import Settings
from tests.support.openai_server import ScriptedOpenAIServer


@pytest.fixture
def scripted_llm() -> Iterator[ScriptedOpenAIServer]:
    """A started ScriptedOpenAIServer on 127.0.0.1 (stopped after the test)."""
    with ScriptedOpenAIServer() as server:
        yield server


@pytest.fixture
def llm_settings(scripted_llm: ScriptedOpenAIServer, tmp_path: Path) -> Settings:
    """Settings pointing every LLM role at the scripted server, with a fresh cache folder."""
    return Settings(
        cache_dir=tmp_path / "cache",
        workspace=tmp_path / "workspace",
        llm={
            "base_url": scripted_llm.base_url,
            "model": "scripted-model",
            "api_key": "sk-test-secret",
            "timeout_s": 5.0,
            "max_retries": 3,
            "reask": 1,
        },
    )
