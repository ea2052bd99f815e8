"""Thread counts: one setting, applied before the numeric libraries load."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from foresci.core import threads
from foresci.core.errors import UserError
from foresci.core.settings import Settings
from tests.conftest import REPO_ROOT

PROBE = (
    "import os, foresci.cli, faiss; "
    "print(os.environ['OMP_NUM_THREADS'], os.environ['OPENBLAS_NUM_THREADS'], faiss.omp_get_max_threads())"
)


def _probe(**env: str) -> list[str]:
    clean = {key: value for key, value in os.environ.items() if key not in (*threads.THREAD_VARIABLES,)}
    clean.pop("FORESCI_RUNTIME__THREADS", None)
    clean["PYTHONPATH"] = str(REPO_ROOT)
    result = subprocess.run(
        [sys.executable, "-c", PROBE], env={**clean, **env}, capture_output=True, text=True, check=True
    )
    return result.stdout.split()


def test_cli_defaults_to_one_thread_before_faiss_loads() -> None:
    assert _probe() == ["1", "1", "1"]


def test_cli_setting_and_exported_variable_choose_the_count() -> None:
    assert _probe(FORESCI_RUNTIME__THREADS="3") == ["3", "3", "3"]
    assert _probe(OMP_NUM_THREADS="3") == ["3", "3", "3"]  # an explicit export is respected


def test_resolve_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert threads.resolve_threads(None) == 1
    assert threads.resolve_threads(4) == 4
    assert threads.resolve_threads(0) == (os.cpu_count() or 1)
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    assert threads.resolve_threads(None) == 2


def test_settings_change_loaded_libraries(monkeypatch: pytest.MonkeyPatch) -> None:
    import faiss
    import torch

    for name in threads.THREAD_VARIABLES:
        monkeypatch.setenv(name, os.environ.get(name, "1"))  # restored after the test
    before = (faiss.omp_get_max_threads(), torch.get_num_threads())
    try:
        assert threads.ensure_threads(Settings(runtime={"threads": 3})) == 3
        assert (faiss.omp_get_max_threads(), torch.get_num_threads()) == (3, 3)
        assert os.environ["MKL_NUM_THREADS"] == "3"
        assert threads.ensure_threads(Settings()) == 3  # unset: keep what was applied
    finally:
        threads.apply_threads(1)
        faiss.omp_set_num_threads(before[0])
        torch.set_num_threads(before[1])


def test_negative_thread_setting_is_rejected() -> None:
    with pytest.raises(UserError, match="threads"):
        Settings(runtime={"threads": -1})


def test_idle_cores_subtract_the_cores_other_work_keeps_busy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    for busy, idle in ((0.0, 2), (0.4, 2), (0.6, 1), (1.0, 1), (7.0, 1)):
        monkeypatch.setattr(threads, "busy_cores", lambda busy=busy: busy)
        assert threads.idle_cores() == idle, busy


def test_busy_cores_do_not_count_this_process_and_see_a_busy_sibling() -> None:
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.3)
        assert threads.busy_cores(samples=9, interval_s=0.02) >= 1
    finally:
        spinner.kill()
        spinner.wait()


def test_one_shot_jobs_take_idle_cores_unless_a_count_was_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(threads, "busy_cores", lambda: 0.0)
    monkeypatch.setattr(threads, "_chosen_by_user", False)
    assert threads.use_idle_cores(Settings()) == 2  # a quiet machine: both cores
    assert threads.use_idle_cores(Settings(runtime={"threads": 1})) == 1  # the setting wins
    monkeypatch.setattr(threads, "_chosen_by_user", True)  # FORESCI_RUNTIME__THREADS / OMP_NUM_THREADS
    threads.apply_threads(1)
    assert threads.use_idle_cores(Settings()) == 1
    monkeypatch.setattr(threads, "_chosen_by_user", False)
    monkeypatch.setattr(threads, "busy_cores", lambda: 3.0)  # busy: the shared-machine default
    assert threads.use_idle_cores(Settings()) == 1
    threads.apply_threads(1)
