"""The ONNX Runtime encoder: same vectors as sentence-transformers, and a search without torch."""

from __future__ import annotations

import ast
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from foresci.core.settings import DEFAULT_EMBEDDING_MODEL
from foresci.embedders.embedder import Embedder, default_onnx_dir
from foresci.embedders.model_dir import model_directory
from foresci.embedders.onnx_export import export_key
from foresci.kb.store import KnowledgeBase
from tests.conftest import REPO_ROOT, require_shared


def _real_titles(count: int) -> list[str]:
    folder = require_shared("corpora/arxiv-daily")
    titles: list[str] = []
    for path in sorted(folder.glob("*.jsonl.gz"))[::40]:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            rows = zip(range(count // 8 + 1), handle, strict=False)
            titles.extend(json.loads(line)["title"] for _, line in rows)
    return titles[:count]


@pytest.mark.slow
def test_onnx_export_matches_sentence_transformers_on_real_titles() -> None:
    titles = _real_titles(48) + ["", "x", "word " * 400]  # empty, one letter, truncated at 256 tokens
    onnx = Embedder(backend="onnx")  # exported once per machine into the user's model store
    reference = Embedder(backend="torch").encode(titles)
    vectors = onnx.encode(titles)
    assert onnx.backend == "onnx"
    key = export_key(model_directory(DEFAULT_EMBEDDING_MODEL) or Path())
    assert (default_onnx_dir() / "onnx" / key / "model.onnx").is_file()
    assert vectors.shape == reference.shape == (len(titles), onnx.dimension)
    assert np.min(np.sum(vectors * reference, axis=1)) > 0.9999
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_torch_backend_and_unknown_backend() -> None:
    assert Embedder(backend="torch").backend == "torch"
    with pytest.raises(ValueError, match="backend"):
        Embedder(backend="tensorrt")
    with pytest.raises(ValueError, match="cannot serve"):
        Embedder(model="some-org/hub-only-model", backend="onnx").encode(["a"])


def _modules_loaded_by_search(built_kb: KnowledgeBase, kb_cache: Path, query: str,
                              watched: tuple[str, ...]) -> list[str]:
    """Run `foresci kb search` in a fresh process; return which of ``watched`` modules it imported."""
    script = (
        "import sys; from foresci.cli import run_cli; sys.argv = ['foresci', 'kb', 'search', "
        f"{str(built_kb.path)!r}, {query!r}, '--cutoff', {built_kb.max_date.isoformat()!r}, '-k', '3']\n"
        "run_cli()\n"
        f"print('loaded:', sorted(name for name in {watched!r} if name in sys.modules))"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "FORESCI_CACHE_DIR": str(kb_cache), "COLUMNS": "200"}
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "papers visible" in result.stdout
    line = next(row for row in result.stdout.splitlines() if row.startswith("loaded:"))
    return list(ast.literal_eval(line.removeprefix("loaded:").strip()))


def test_fresh_process_search_does_not_import_torch(built_kb: KnowledgeBase, kb_cache: Path) -> None:
    Embedder(cache_dir=kb_cache).encode(["make sure the ONNX export exists"])
    heavy = ("torch", "transformers", "sentence_transformers")
    assert _modules_loaded_by_search(built_kb, kb_cache, "tool-using agents never seen before", heavy) == []


def test_second_fresh_process_search_reads_derived_postings_without_scipy(
    built_kb: KnowledgeBase, tmp_path: Path
) -> None:
    """The first search derives BM25 postings and row dates into the cache; the next process maps them
    (no scipy, no LLM client, no HTTP library) and finds the same papers."""
    cache = tmp_path / "cache"
    query = "tool-using agents with graph memory"
    script = (
        "import sys; from foresci.cli import run_cli; sys.argv = ['foresci', 'kb', 'search', "
        f"{str(built_kb.path)!r}, {query!r}, '--cutoff', {built_kb.max_date.isoformat()!r}, '-k', '5']\n"
        "run_cli()\n"
        "heavy = ('scipy', 'torch', 'httpx', 'langchain_openai', 'foresci.llm.client')\n"
        "print('heavy:', sorted(name for name in heavy if name in sys.modules))"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "FORESCI_CACHE_DIR": str(cache), "COLUMNS": "200"}
    first = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    derived = sorted(path.name.split("-")[0] for path in (cache / "kb-derived").iterdir())
    assert derived == ["bm25_counts", "papers"]
    second = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert second.returncode == 0, second.stderr
    assert "heavy: []" in second.stdout
    table = [line for line in second.stdout.splitlines() if "heavy:" not in line]
    assert table == [line for line in first.stdout.splitlines() if "heavy:" not in line]
    assert str(built_kb.max_date) in second.stdout or "papers visible" in second.stdout


def test_onnx_session_loads_the_optimised_copy_with_the_same_vectors(tmp_path: Path) -> None:
    """The first session saves a graph-optimised copy beside the export, its weights in a file of their
    own (mapped into memory at load, not parsed); later ones load it (no optimisation pass at start-up)
    and encode exactly as the unoptimised graph optimised online."""
    import onnxruntime

    from foresci.embedders.model_dir import onnx_layout
    from foresci.embedders.onnx_encoder import OPTIMIZED_WEIGHTS, OnnxEncoder, _session_options

    titles = _real_titles(16)
    layout = onnx_layout(DEFAULT_EMBEDDING_MODEL)
    assert layout is not None
    first = OnnxEncoder(layout, tmp_path, threads=1)
    export = tmp_path / "onnx" / export_key(layout.directory) / "model.onnx"
    copies = [path for path in export.parent.iterdir() if path.name != "model.onnx"]
    assert [path.name for path in copies] == [f"model.ort{onnxruntime.__version__}-extended"]
    graph, weights = copies[0] / "model.onnx", copies[0] / OPTIMIZED_WEIGHTS
    assert graph.stat().st_size < 1_000_000 < 80_000_000 < weights.stat().st_size  # the weights live apart
    stamp = weights.stat().st_mtime_ns
    second = OnnxEncoder(layout, tmp_path, threads=1)
    assert weights.stat().st_mtime_ns == stamp  # loaded, not written again
    online = OnnxEncoder(layout, tmp_path, threads=1)
    online._session = onnxruntime.InferenceSession(
        str(export), _session_options(1, onnxruntime.GraphOptimizationLevel.ORT_ENABLE_EXTENDED),
        providers=["CPUExecutionProvider"],
    )
    reference = Embedder(backend="torch").encode_uncached(titles)
    np.testing.assert_array_equal(first.encode(titles), second.encode(titles))
    np.testing.assert_array_equal(online.encode(titles), second.encode(titles))
    assert np.min(np.sum(second.encode(titles) * reference, axis=1)) > 0.9999


def test_fresh_process_search_imports_only_the_kb_commands(built_kb: KnowledgeBase, kb_cache: Path) -> None:
    """`foresci kb search` loads the kb sub-app alone: no agents, evaluation, demo or simulator modules."""
    other = ("foresci.agents.cli", "foresci.evaluation.cli", "foresci.app.demo", "foresci.sim.cli",
             "foresci.tasks.cli", "foresci.app.schemas", "foresci.llm.cli")
    assert _modules_loaded_by_search(built_kb, kb_cache, "graph memory for agents", other) == []


def test_a_search_as_the_process_command_line_ends_without_interpreter_teardown(
    built_kb: KnowledgeBase, kb_cache: Path
) -> None:
    """`foresci kb search` ends the process once its table is flushed (teardown is a quarter of a fresh
    search); a failed search, and a caller that passes its own arguments, exit normally."""
    def run(cutoff: str, call: str) -> subprocess.CompletedProcess[str]:
        script = (
            "import atexit, sys; from foresci.cli import main\n"
            "atexit.register(lambda: print('interpreter teardown'))\n"
            f"sys.argv = ['foresci', 'kb', 'search', {str(built_kb.path)!r}, 'agents', '--cutoff', "
            f"{cutoff!r}]\n"
            f"{call}\n"
        )
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "FORESCI_CACHE_DIR": str(kb_cache)}
        return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)

    cutoff = built_kb.max_date.isoformat()
    quick = run(cutoff, "main()")
    assert quick.returncode == 0, quick.stderr
    assert "papers visible" in quick.stdout and "interpreter teardown" not in quick.stdout
    failed = run("2025-13-01", "main()")
    assert failed.returncode == 2 and "interpreter teardown" in failed.stdout
    explicit = run(cutoff, "main(sys.argv[1:])")
    assert explicit.returncode == 0 and "papers visible" in explicit.stdout
    assert "interpreter teardown" in explicit.stdout
