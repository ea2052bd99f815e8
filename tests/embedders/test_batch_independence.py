"""A text's vector does not depend on the call that embeds it: what makes a KB grown by daily updates (a
day's few texts, alone or in a small call) hold the very vectors of the KB built from scratch (the same
texts among thousands, in other batches, on other workers), so a KB cut at a cutoff gives the full KB's
prompts byte for byte even with separate embedding caches."""

from __future__ import annotations

import numpy as np

from foresci.embedders.embedder import Embedder
from tests.embedders.texts import real_abstracts


def test_a_day_embedded_alone_gets_the_vectors_of_the_whole_build() -> None:
    abstracts = real_abstracts(12)
    texts = abstracts + [text.split(". ")[0] for text in abstracts] + ["", "x", "word " * 300]
    build = Embedder(backend="onnx", onnx_batch_size=8, workers=2).encode_uncached(texts)  # 4 batches
    days = [texts[:1], texts[1:6], texts[6:20], texts[20:]]  # one text, a small call, more than a batch
    for workers in (1, 2):
        update = Embedder(backend="onnx", onnx_batch_size=8, workers=workers)
        grown = np.concatenate([update.encode_uncached(day) for day in days])
        assert np.array_equal(grown, build), f"{workers} worker(s)"
    one_by_one = Embedder(backend="onnx", onnx_batch_size=1, workers=1)
    assert np.array_equal(np.concatenate([one_by_one.encode_uncached([text]) for text in texts[::4]]),
                          build[::4])
