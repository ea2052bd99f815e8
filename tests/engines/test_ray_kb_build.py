"""``kb build --engine ray`` gives a KB byte-identical to the local build, on real daily-arXiv rows."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from foresci.core.io import read_json
from foresci.core.settings import Settings
from foresci.kb.build import build_kb
from foresci.kb.store import live_generation
from tests.conftest import require_shared

pytestmark = pytest.mark.slow  # end to end: a local Ray cluster

DAYS = ("2025-06-02.jsonl.gz", "2025-06-03.jsonl.gz")
ROWS_PER_DAY = 90


def _real_sources(folder: Path) -> Path:
    """The first rows of two real daily files, plus a later day re-announcing one title under a new id
    (a text repeated in a later embedding chunk)."""
    corpus = require_shared("corpora/arxiv-daily")
    folder.mkdir(parents=True)
    rows: list[dict[str, Any]] = []
    for day in DAYS:
        with gzip.open(corpus / day, "rt", encoding="utf-8") as handle:
            lines = [line for line in handle if line.strip()][:ROWS_PER_DAY]
        (folder / day.removesuffix(".gz")).write_text("".join(lines), encoding="utf-8")
        rows.extend(json.loads(line) for line in lines)
    repeat = dict(rows[3], id="2506.99999")
    (folder / "2025-06-04.jsonl").write_text(json.dumps(repeat) + "\n", encoding="utf-8")
    return folder


def _build(sources: Path, out: Path, cache: Path, engine: str) -> dict[str, Any]:
    settings = Settings(
        cache_dir=cache, kb={"embed_field": "title", "embed_chunk": 32}, runtime={"engine": engine}
    )
    summary = build_kb([sources], out, settings)
    generation = live_generation(out)
    return {
        "summary": summary,
        "hashes": read_json(generation / "manifest.json")["hashes"],
        "dir": generation,
    }


def test_ray_build_is_byte_identical_to_the_local_build(ray_cluster: Any, tmp_path: Path) -> None:
    sources = _real_sources(tmp_path / "corpus")
    local = _build(sources, tmp_path / "kb-local", tmp_path / "cache-local", "local")
    ray = _build(sources, tmp_path / "kb-ray", tmp_path / "cache-ray", "ray")

    assert ray["summary"].papers == local["summary"].papers == 2 * ROWS_PER_DAY + 1
    assert ray["summary"].embedded == local["summary"].embedded  # the repeated title is embedded once
    assert local["summary"].embedded <= local["summary"].papers - 1
    content = {name: digest for name, digest in local["hashes"].items() if name != "summary.json"}
    assert content and "vectors.npy" in content and "papers.sqlite" in content
    assert {name: ray["hashes"][name] for name in content} == content
    for name in content:
        assert (ray["dir"] / name).read_bytes() == (local["dir"] / name).read_bytes(), name
    # the driver alone wrote the embedding cache, and a rebuild on Ray embeds nothing again
    again = _build(sources, tmp_path / "kb-ray-2", tmp_path / "cache-ray", "ray")
    assert again["summary"].embedded == 0
    assert again["hashes"]["vectors.npy"] == content["vectors.npy"]
