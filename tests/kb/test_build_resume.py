"""A kb build killed midway (SIGKILL) resumes from the chunks it had finished, and yields the same KB."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from foresci.core.settings import Settings
from foresci.embedders.embedder import EmbeddingCache
from foresci.kb.build import build_kb
from foresci.kb.store import CURRENT_NAME, live_generation
from tests.conftest import REPO_ROOT
from tests.kb.corpus import write_daily_corpus

CHUNK = 8
KILLED_AFTER = 2  # chunks stored in the cache before the kill

# builds with the embedding cache's writes instrumented: SIGKILL right after the KILLED_AFTER-th chunk
# reached the cache (the first writes of a build are its chunks; the domain seeds come after them)
KILLED_BUILD = """
import os, signal, sys
from pathlib import Path
import pytest

from foresci.core.settings import Settings
from foresci.embedders.embedder import EmbeddingCache
from foresci.kb.build import build_kb

real_put = EmbeddingCache.put_many
stored = []

def put_then_die(self, items):
    real_put(self, items)
    stored.append(len(items))
    if len(stored) == int(sys.argv[4]):
        os.kill(os.getpid(), signal.SIGKILL)

EmbeddingCache.put_many = put_then_die
settings = Settings(cache_dir=Path(sys.argv[3]), kb={"embed_chunk": int(sys.argv[5])},
                    runtime={"embed_workers": 2})
build_kb([Path(sys.argv[1])], Path(sys.argv[2]), settings)
"""


def _settings(cache: Path, workers: int) -> Settings:
    return Settings(cache_dir=cache, kb={"embed_chunk": CHUNK}, runtime={"embed_workers": workers})


@pytest.mark.slow  # a build in a fresh process, killed, then two builds here
def test_a_killed_build_embeds_only_the_unfinished_chunks_again(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    write_daily_corpus(corpus, days=4, per_day=12)
    cache, out = tmp_path / "cache", tmp_path / "kb"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    arguments = [str(corpus), str(out), str(cache), str(KILLED_AFTER), str(CHUNK)]
    killed = subprocess.run([sys.executable, "-c", KILLED_BUILD, *arguments],
                            env=env, capture_output=True, text=True, timeout=600)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert not (out / CURRENT_NAME).exists()  # nothing swapped in
    finished = EmbeddingCache(cache / "embeddings.sqlite")
    assert finished.count() == KILLED_AFTER * CHUNK  # the finished chunks survived the kill
    finished.close()

    resumed = build_kb([corpus], out, _settings(cache, workers=2))
    scratch = build_kb([corpus], tmp_path / "kb-scratch", _settings(tmp_path / "cache-scratch", workers=1))
    assert resumed.papers == scratch.papers > 3 * CHUNK
    assert resumed.embedded == scratch.embedded - KILLED_AFTER * CHUNK
    assert resumed.embedding_reused == KILLED_AFTER * CHUNK
    vectors = (live_generation(out) / "vectors.npy").read_bytes()
    assert vectors == (live_generation(tmp_path / "kb-scratch") / "vectors.npy").read_bytes()
