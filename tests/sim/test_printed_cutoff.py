"""The commands ``foresci sim generate`` prints, run as printed on a default-size world, build a release
holding all four builtin task families (the windows of the printed cutoff have closed; the printed
``--domain`` options keep foresci's shipped domains, which the KB also screens, out of the build)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from foresci.core.io import read_models
from foresci.tasks.models import Task

pytestmark = pytest.mark.slow
REPO_ROOT = Path(__file__).resolve().parents[2]
BUILTIN = {"direction_forecasting", "bottleneck_opportunity", "strategic_planning", "venue_positioning"}


def _foresci(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {**{key: value for key, value in os.environ.items() if not key.startswith("FORESCI_")},
                   "PYTHONPATH": str(REPO_ROOT), "FORESCI_CACHE_DIR": str(cwd / "cache"),
                   "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "COLUMNS": "80"}
    return subprocess.run([sys.executable, "-m", "foresci", *args], cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=1200)


def test_the_printed_commands_yield_all_four_builtin_families(tmp_path: Path) -> None:
    generated = _foresci(["sim", "generate", "world"], tmp_path)  # the default world size
    assert generated.returncode == 0, generated.stderr[-3000:]
    printed = [line.strip() for line in generated.stdout.splitlines() if line.strip().startswith("foresci ")]
    assert [line.split()[1:3] for line in printed] == [["kb", "build"], ["tasks", "build"]], generated.stdout
    for line in printed:
        words = [{"KB": "kb", "RELEASE": "release"}.get(word, word) for word in shlex.split(line)[1:]]
        ran = _foresci(words, tmp_path)
        assert ran.returncode == 0, f"{line}: {ran.stderr[-3000:]}"
    families = Counter(task.family for task in read_models(tmp_path / "release" / "tasks.jsonl", Task))
    assert set(families) >= BUILTIN, families
