"""The task file's offline smoke test runs offline: `inspect eval foresci_task.py --model foresci/scripted
--limit 2`, the real inspect command, with no network (proxies pointed at a closed port, an empty tiktoken
cache): foresci's scripted model searches the KB, answers from the sample's schema and counts no tokens."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from foresci.bridges.inspect_ai.scripted import example, scripted_reply
from tests.methods.conftest import REPO_ROOT, Foresci
from tests.realllm.world import SmallWorld

ENTRY_POINT = "foresci = foresci.bridges.inspect_ai.scripted"


def _entry_point_folder(root: Path) -> Path:
    """A folder on PYTHONPATH declaring the pyproject's inspect_ai entry point, as an install of foresci
    does (this test's venv may hold an install older than the entry point)."""
    declared = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["entry-points"]
    assert declared["inspect_ai"] == {"foresci": "foresci.bridges.inspect_ai.scripted"}
    info = root / "foresci_inspect_provider-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: foresci-inspect-provider\nVersion: 0\n")
    (info / "entry_points.txt").write_text(f"[inspect_ai]\n{ENTRY_POINT}\n")
    return root


def test_a_ranking_lists_every_option_once() -> None:
    option = {"properties": {"option_id": {"enum": ["A", "B", "C"]}}, "required": ["option_id"],
              "type": "object"}
    schema = {"$defs": {"R": option},
              "properties": {"ranking": {"items": {"$ref": "#/$defs/R"}, "minItems": 3, "type": "array"}},
              "required": ["ranking"], "type": "object"}
    ranking = [{"option_id": "A"}, {"option_id": "B"}, {"option_id": "C"}]
    assert example(schema, schema) == {"ranking": ranking}
    assert scripted_reply("no schema here") == {"answer": scripted_reply("x")["answer"]}


@pytest.mark.slow
def test_the_task_files_offline_smoke_test_runs_offline(small_world: SmallWorld, foresci: Foresci,
                                                        tmp_path: Path) -> None:
    task_file = tmp_path / "foresci_task.py"
    written = foresci("inspect", "task", str(small_world.release_dir), "--kb", str(small_world.kb_dir),
                      "--out", str(task_file))
    assert written.returncode == 0, written.stderr[-3000:]
    smoke = next(line for line in task_file.read_text().splitlines() if "offline smoke test" in line)
    command = smoke.split("#")[0].split()
    assert command[:2] == ["inspect", "eval"] and "foresci/scripted" in command
    empty = tmp_path / "tiktoken-cache"
    empty.mkdir()
    environment = {
        **{key: value for key, value in os.environ.items() if not key.startswith("FORESCI_")},
        "PYTHONPATH": os.pathsep.join([str(_entry_point_folder(tmp_path / "eps")), str(REPO_ROOT)]),
        "FORESCI_CACHE_DIR": str(small_world.root / "cache"),
        "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
        "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9",
        "TIKTOKEN_CACHE_DIR": str(empty), "INSPECT_LOG_DIR": str(tmp_path / "logs"),
    }
    inspect = Path(sys.executable).parent / "inspect"
    ran = subprocess.run([str(inspect), *command[1:], "--log-format", "json", "--display", "none"],
                         cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0, (ran.stdout + ran.stderr)[-3000:]
    (log,) = sorted((tmp_path / "logs").glob("*.json"))
    data = json.loads(log.read_text())
    assert data["status"] == "success" and data["eval"]["model"] == "foresci/scripted"
    samples = data["samples"]
    assert len(samples) == 2
    for sample in samples:
        calls = [call["function"] for message in sample["messages"] if message["role"] == "assistant"
                 for call in message.get("tool_calls") or []]
        assert calls == ["search_papers"]
