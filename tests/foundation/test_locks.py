"""artifact_lock: one writer per folder across real processes; released when the holder is SIGKILLed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from foresci.core.errors import UserError
from foresci.core.locks import ArtifactLockedError, artifact_lock

HOLDER = """
import sys, time
from foresci.core.locks import artifact_lock
with artifact_lock(sys.argv[1]):
    print("held", flush=True)
    time.sleep(60)
"""


def _start_holder(folder: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(folder)], stdout=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_second_writer_process_gets_a_clear_error_and_sigkill_frees_the_lock(tmp_path: Path) -> None:
    folder = tmp_path / "artifact"
    proc = _start_holder(folder)
    try:
        with pytest.raises(ArtifactLockedError) as caught, artifact_lock(folder):
            pass
        assert isinstance(caught.value, UserError)
        message = str(caught.value)
        assert str(folder) in message and f"pid {proc.pid}" in message and "\n" not in message
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    start = time.monotonic()
    with artifact_lock(folder, timeout=5):
        assert time.monotonic() - start < 5


def test_lock_is_reentrant_within_a_process(tmp_path: Path) -> None:
    with artifact_lock(tmp_path / "a") as outer, artifact_lock(outer):
        pass
    with artifact_lock(tmp_path / "a"):
        pass
