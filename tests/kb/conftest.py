"""Session fixtures for the KB tests: one small generated corpus, one built KB, one model load."""

from __future__ import annotations

from pathlib import Path

import pytest

from foresci.core.settings import Settings
from foresci.kb.build import build_kb
from foresci.kb.store import KnowledgeBase
from tests.kb.corpus import write_daily_corpus


@pytest.fixture(scope="session")
def kb_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An embedding cache shared by the KB tests (each text is embedded once per session)."""
    return tmp_path_factory.mktemp("kb-cache")


@pytest.fixture(scope="session")
def kb_settings(kb_cache: Path) -> Settings:
    """Default settings with the session cache."""
    return Settings(cache_dir=kb_cache)


@pytest.fixture(scope="session")
def daily_corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """Eight generated daily files (12 papers a day, a repeated row each day) and id -> first date."""
    folder = tmp_path_factory.mktemp("daily")
    first = write_daily_corpus(folder, days=8, per_day=12)
    return folder, first


@pytest.fixture(scope="session")
def built_kb(
    tmp_path_factory: pytest.TempPathFactory, daily_corpus: tuple[Path, dict], kb_settings: Settings
) -> KnowledgeBase:
    """A KB built once from the generated corpus."""
    out = tmp_path_factory.mktemp("kb") / "kb"
    build_kb([daily_corpus[0]], out, kb_settings)
    return KnowledgeBase.open(out, kb_settings)
