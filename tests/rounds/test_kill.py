"""kill -9 mid-tick (and mid-open, mid-submit) loses nothing: a rerun completes to the uninterrupted state."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from foresci.core.io import iter_jsonl
from foresci.rounds.ledger import KILL_ENV, round_dir, round_ids
from tests.rounds.helpers import make_ledger, toy_tick
from tests.tasks.toy import CUTOFF

REPO = Path(__file__).resolve().parents[2]
TICK = """
import sys
from datetime import date
from pathlib import Path
from tests.rounds.helpers import toy_tick
until = None if sys.argv[2] == "all" else date.fromisoformat(sys.argv[2])
print(toy_tick(Path(sys.argv[1]), until))
"""


def _tick_process(ledger: Path, until: str, kill_at: str | None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
    env.pop(KILL_ENV, None)
    if kill_at:
        env[KILL_ENV] = kill_at
    return subprocess.run(
        [sys.executable, "-c", TICK, str(ledger), until],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _state(ledger: Path) -> dict[str, object]:
    """What must survive: rounds, their resolutions, score rows and the board (no wall-clock values)."""
    state: dict[str, object] = {"rounds": round_ids(ledger)}
    for round_id in round_ids(ledger):
        folder = round_dir(ledger, round_id)
        state[round_id] = {
            "resolutions": sorted(
                json.dumps(row, sort_keys=True)
                for path in sorted((folder / "resolutions").glob("*.jsonl"))
                for row in iter_jsonl(path)
            ),
            "scores": [
                json.dumps(row, sort_keys=True)
                for name in ("scores.jsonl", "task_scores.jsonl")
                if (folder / name).is_file()
                for row in iter_jsonl(folder / name)
            ],
            "submissions": sorted(str(path.relative_to(folder)) for path in folder.glob("submissions/*/v*")),
        }
    board = json.loads((ledger / "board.json").read_text())
    state["boards"] = board["boards"]
    state["family_boards"] = board["family_boards"]
    return state


@pytest.mark.slow
@pytest.mark.parametrize(
    "kill_at", ["open-staged", "commit-staged", "resolve", "resolve-tasks", "score"]
)
def test_kill_mid_tick_loses_nothing(tmp_path: Path, kill_at: str) -> None:
    reference = make_ledger(tmp_path / "reference")
    toy_tick(reference, CUTOFF)
    toy_tick(reference, None)
    ledger = make_ledger(tmp_path / "killed")
    toy_tick(ledger, CUTOFF)  # the first round is open; the killed tick opens the next and resolves this one
    killed = _tick_process(ledger, "all", kill_at)
    assert killed.returncode == -9, killed.stderr[-2000:]
    rerun = _tick_process(ledger, "all", None)
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert _tick_process(ledger, "all", None).stdout.strip() == "[]"
    assert _state(ledger) == _state(reference)
