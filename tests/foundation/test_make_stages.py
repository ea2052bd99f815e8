"""`make test` runs its stages through tests/support/stages.py, which times them and prints a table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

STAGES = Path(__file__).resolve().parents[1] / "support" / "stages.py"


def _stages(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(STAGES), *arguments], capture_output=True, text=True,
                          timeout=60, check=False)


def test_every_stage_runs_in_order_and_the_table_names_each() -> None:
    result = _stages("first=echo one-ran", "second=sleep 0.2 && echo two-ran")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.index("one-ran") < out.index("two-ran") < out.index("=== stage timings")
    table = out.split("=== stage timings", 1)[1].splitlines()
    rows = {line.split()[0]: line for line in table if line.strip()}
    assert rows["first"].endswith("ok") and rows["second"].endswith("ok")
    assert "0m 00s" in rows["second"] and rows["total"].startswith("total")


def test_a_failing_stage_stops_the_run_and_its_status_is_returned() -> None:
    result = _stages("broken=exit 3", "after=echo never-ran")
    assert result.returncode == 3
    assert "never-ran" not in result.stdout
    table = result.stdout.split("=== stage timings", 1)[1]
    assert "FAILED (3)" in table and "not run" in table


def test_an_argument_without_a_name_is_refused_naming_it() -> None:
    result = _stages("no separator here")
    assert result.returncode != 0 and "'no separator here'" in result.stderr


def test_xdist_units_are_modules_and_the_engines_folder_is_one() -> None:
    from tests.conftest import ONE_WORKER_FOLDERS
    from tests.support.xdist_modules import module_scope

    def unit(nodeid: str) -> str:
        return module_scope(nodeid, ONE_WORKER_FOLDERS)

    assert unit("tests/kb/test_build.py::test_a[1-x::y]") == "tests/kb/test_build.py"
    assert unit("tests/kb/test_build.py::Class::test_b") == "tests/kb/test_build.py"
    assert unit("tests/test_threads.py::test_resolve_threads") == "tests/test_threads.py"
    ray_modules = {unit(f"tests/engines/{name}.py::test_x")
                   for name in ("test_ray_run", "test_ray_eval", "test_ray_kb_build")}
    assert ray_modules == {"tests/engines"}
