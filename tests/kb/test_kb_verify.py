"""Every file of a KB generation, the IVF index included, is hashed in its manifest; `kb verify` checks."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from foresci.cli import app
from foresci.core.artifacts import changed_files, read_manifest
from foresci.core.settings import Settings
from foresci.kb.build import build_kb
from foresci.kb.dense import IVF_FILE
from foresci.kb.store import live_generation


def _flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def test_tampered_ivf_index_is_detected_like_the_other_kb_files(
    tmp_path: Path, daily_corpus: tuple[Path, dict], kb_settings: Settings
) -> None:
    runtime = kb_settings.runtime.model_copy(update={"approximate_above": 50})
    out = tmp_path / "kb"
    build_kb([daily_corpus[0]], out, kb_settings.model_copy(update={"runtime": runtime}))
    generation = live_generation(out)
    hashes = read_manifest(generation).hashes
    assert (generation / IVF_FILE).is_file() and IVF_FILE in hashes
    assert {"papers.sqlite", "vectors.npy", "bm25_counts.npz", "summary.json"} <= set(hashes)
    assert changed_files(generation) == []  # a fresh build verifies clean (summary.json included)
    runner = CliRunner()
    clean = runner.invoke(app, ["kb", "verify", str(out)])
    assert clean.exit_code == 0, clean.output

    _flip_a_byte(generation / IVF_FILE)
    assert changed_files(generation) == [IVF_FILE]
    _flip_a_byte(generation / "vectors.npy")
    assert changed_files(generation) == [IVF_FILE, "vectors.npy"]
    tampered = runner.invoke(app, ["kb", "verify", str(out)])
    message = tampered.output + str(tampered.exception)
    assert tampered.exit_code != 0 and IVF_FILE in message and "vectors.npy" in message
