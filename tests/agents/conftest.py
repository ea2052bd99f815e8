"""Fixtures for the agents tests: the scripted OpenAI server, settings pointing at it, a toy KB."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from foresci.core.settings import Settings
from tests.agents.toy import CUTOFF, DOMAIN, write_corpus
from tests.support.fixtures import llm_settings, scripted_llm  # noqa: F401


@dataclass
class ToyWorld:
    """A built toy KB and what the tests need to know about it."""

    root: Path
    kb_path: Path
    pre_ids: list[str]
    post_ids: list[str]
    settings: Settings

    def view(self) -> object:
        """A KBView at the toy cutoff."""
        from foresci.kb.retrieve import KBView
        from foresci.kb.store import KnowledgeBase

        return KBView(KnowledgeBase.open(self.kb_path, self.settings), CUTOFF)


@pytest.fixture(scope="session")
def toy_world(tmp_path_factory: pytest.TempPathFactory) -> ToyWorld:
    """The toy corpus built into a real KB once per session (embeds ~100 abstracts)."""
    from foresci.kb.build import build_kb

    root = tmp_path_factory.mktemp("toy-world")
    ids = write_corpus(root)
    settings = Settings(cache_dir=root / "cache", kb={"domains": [DOMAIN]})
    build_kb([root / "corpus"], root / "kb", settings, domains_dirs=[root / "domains"])
    return ToyWorld(
        root=root, kb_path=root / "kb", pre_ids=ids["pre"], post_ids=ids["post"], settings=settings
    )
