"""Fixtures of the evaluation tests: a bag-of-words encoder, a small release and run, settings."""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from foresci.core.settings import Settings
from tests.evaluation.fixtures import write_release, write_run


class WordEncoder:
    """Bag-of-words embeddings (hashed into 256 dims, L2-normalised): fast and easy to reason about."""

    def __init__(self) -> None:
        self.calls = 0

    def encode(self, texts: Sequence[str], show_progress: bool = False) -> np.ndarray:
        self.calls += 1
        vectors = np.zeros((len(texts), 256), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                vectors[row, zlib.crc32(word.encode()) % 256] += 1.0
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.maximum(norms, 1e-12)


class TableEncoder:
    """Embeds each known text as a fixed vector (for hand-computed cosine cases)."""

    def __init__(self, table: dict[str, Sequence[float]]) -> None:
        self.table = table

    def encode(self, texts: Sequence[str], show_progress: bool = False) -> np.ndarray:
        vectors = np.array([self.table[text] for text in texts], dtype=np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@pytest.fixture
def word_encoder() -> WordEncoder:
    """A fresh bag-of-words encoder."""
    return WordEncoder()


@pytest.fixture
def release_dir(tmp_path: Path) -> Path:
    """A small release with one task per family and two forecast questions."""
    return write_release(tmp_path / "release")


@pytest.fixture
def run_dir(tmp_path: Path, release_dir: Path) -> Path:
    """A run folder whose manifest names ``release_dir``."""
    return write_run(tmp_path / "run", release_dir)


@pytest.fixture
def eval_settings(tmp_path: Path) -> Settings:
    """Settings with a private cache and few bootstrap resamples."""
    return Settings(cache_dir=tmp_path / "cache", evaluation={"bootstrap_samples": 200, "judge_runs": 2})
