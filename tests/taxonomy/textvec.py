"""A fast, deterministic stand-in embedder for tests: hashed TF-IDF of content words, unit length."""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Sequence

import numpy as np

from foresci.taxonomy.text import tokens


def _bucket(word: str, dimension: int) -> int:
    return int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "little") % dimension


def hashed_tfidf(texts: Sequence[str], dimension: int = 512) -> np.ndarray:
    """(n, dimension) float32 unit vectors: TF-IDF over content words hashed into ``dimension`` buckets."""
    bags = [Counter(tokens(text)) for text in texts]
    frequency = Counter(word for bag in bags for word in bag)
    matrix = np.zeros((len(texts), dimension), dtype=np.float32)
    for row, bag in enumerate(bags):
        for word, count in bag.items():
            matrix[row, _bucket(word, dimension)] += count * math.log(1 + len(texts) / frequency[word])
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms
