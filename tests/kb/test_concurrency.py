"""Real processes against one KB folder (issue #11 items 8 and 9): a second writer is refused with one
line, racing builds never leave CURRENT naming a deleted generation, and a SIGKILLed build leaves a KB
that opens and whose reuse is decided by the live generation itself."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from foresci.core.settings import Settings
from foresci.kb.build import build_kb
from foresci.kb.store import KnowledgeBase

REPO = Path(__file__).resolve().parents[2]


def _corpus(folder: Path, prefix: str, count: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "2025-04-02.jsonl").open("w", encoding="utf-8") as handle:
        for number in range(count):
            handle.write(json.dumps({
                "id": f"2504.{prefix}{number:04d}",
                "title": f"Corpus {prefix} paper {number} on retrieval agents",
                "summary": f"Agents retrieve documents ({prefix}{number}).",
                "authors": ["Ada Lovelace"],
                "categories": ["cs.CL"],
            }) + "\n")
    return folder


def _kb_build(source: Path, out: Path, cache: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "FORESCI_CACHE_DIR": str(cache),
           "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "foresci", "kb", "build", str(source), "--out", str(out)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
    )


@pytest.fixture
def corpora(tmp_path: Path, kb_settings: Settings) -> tuple[Path, Path]:
    """Two corpora whose texts are already in the shared embedding cache (subprocesses load no model)."""
    first, second = _corpus(tmp_path / "a", "1", 30), _corpus(tmp_path / "b", "2", 300)
    build_kb([first], tmp_path / "warm-a", kb_settings)
    build_kb([second], tmp_path / "warm-b", kb_settings)
    return first, second


def test_a_second_writer_process_is_refused_with_one_line(
    tmp_path: Path, corpora: tuple[Path, Path], kb_settings: Settings
) -> None:
    from foresci.core.locks import artifact_lock

    out = tmp_path / "kb"
    build_kb([corpora[0]], out, kb_settings)
    before = (out / "CURRENT").read_text()
    with artifact_lock(out):
        proc = _kb_build(corpora[1], out, kb_settings.cache_dir)
        _, stderr = proc.communicate(timeout=120)
    assert proc.returncode != 0
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and str(out) in lines[0] and "locked" in lines[0], stderr
    assert (out / "CURRENT").read_text() == before


def test_racing_builds_never_leave_current_naming_a_deleted_generation(
    tmp_path: Path, corpora: tuple[Path, Path], kb_settings: Settings
) -> None:
    out = tmp_path / "kb"
    build_kb([corpora[0]], out, kb_settings)
    for _ in range(2):
        procs = [_kb_build(source, out, kb_settings.cache_dir) for source in (corpora[1], corpora[0])]
        for proc in procs:
            _, stderr = proc.communicate(timeout=120)
            assert proc.returncode == 0 or "locked" in stderr, stderr
        kb = KnowledgeBase.open(out, kb_settings)  # CURRENT names a generation that exists
        assert kb.size in (30, 300) and kb.vectors.shape[0] == kb.size
        kb.close()


def test_sigkilled_build_leaves_an_openable_kb_and_honest_reuse(
    tmp_path: Path, corpora: tuple[Path, Path], kb_settings: Settings
) -> None:
    out = tmp_path / "kb"
    build_kb([corpora[0]], out, kb_settings)
    proc = _kb_build(corpora[1], out, kb_settings.cache_dir)
    deadline = time.monotonic() + 120
    while not (out / "gen-0002").exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    kb = KnowledgeBase.open(out, kb_settings)
    live_is_first = kb.size == 30
    kb.close()
    summary = build_kb([corpora[0]], out, kb_settings)
    assert summary.reused == live_is_first
    kb = KnowledgeBase.open(out, kb_settings)
    assert kb.size == 30
    kb.close()
    again = build_kb([corpora[1]], out, kb_settings)  # the lock died with the killed process
    assert not again.reused and again.papers == 300
    assert sorted(path.name for path in out.glob("gen-*")) == sorted({summary.generation, again.generation})
