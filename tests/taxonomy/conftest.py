"""Fixtures of the taxonomy tests: a planted world and its induced history (built once per module)."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest

from foresci.core.settings import Settings
from foresci.kb.models import Paper
from foresci.taxonomy.induce import TaxonomyHistory, induce_taxonomy
from tests.taxonomy.planted import planted_world

PLANTED_CUTOFF = date(2025, 4, 30)


@pytest.fixture(scope="session")
def planted() -> tuple[list[Paper], np.ndarray]:
    """All papers of the planted world (Jan-Jun 2025) and their embeddings."""
    return planted_world()


@pytest.fixture(scope="session")
def planted_history(planted: tuple[list[Paper], np.ndarray]) -> TaxonomyHistory:
    """The planted world's taxonomy at 2025-04-30 (papers <= cutoff only)."""
    papers, embeddings = planted
    visible = [index for index, paper in enumerate(papers) if paper.announced <= PLANTED_CUTOFF]
    return induce_taxonomy([papers[index] for index in visible], embeddings[visible], "planted",
                           PLANTED_CUTOFF, Settings())
