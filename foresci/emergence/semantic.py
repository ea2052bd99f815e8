"""The KB's own embedder as a concept-name encoder: the semantic closeness feature of a candidate pair.

The model is the one the KB was built with (its manifest's ``embed_model``); it reads only the concept
names mined up to the cutoff, never a paper, so the feature stays pre-cutoff. Vectors are cached on disk
(``cache_dir``) like every other text the project embeds."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from foresci.emergence.build import NameEmbedder


def kb_name_embedder(kb: Any, settings: Any = None) -> NameEmbedder:
    """A function giving the (n, d) normalised vectors of concept names under ``kb``'s embedding model."""
    from foresci.core.settings import DEFAULT_EMBEDDING_MODEL
    from foresci.embedders.embedder import Embedder

    chosen = settings or getattr(kb, "settings", None)
    embedder = Embedder(
        model=kb.meta.get("embed_model", DEFAULT_EMBEDDING_MODEL),
        cache_dir=Path(chosen.cache_dir) if chosen else None,
        device=chosen.embed.device if chosen else "cpu",
        backend=chosen.runtime.encoder if chosen else "auto",
        onnx_dir=chosen.runtime.onnx_dir if chosen else None,
    )

    def embed(names: Sequence[str]) -> np.ndarray:
        return np.asarray(embedder.encode(list(names)), dtype=np.float64)

    return embed
