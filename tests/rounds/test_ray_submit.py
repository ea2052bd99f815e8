"""``rounds submit --engine ray``: a round's forecast and task jobs answered by Ray workers of a 2-CPU local
cluster give the local engine's rows byte for byte (same answers, order and sha256), stored as a version
like any submission (the scripted OpenAI-compatible server on 127.0.0.1 is the LLM)."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from foresci.core.io import read_json
from foresci.engines.answers import RayJobEngine
from foresci.rounds.ledger import round_dir
from foresci.rounds.submit import DeadlineError, round_tasks, submit, versions
from tests.rounds.helpers import make_ledger, toy_tick
from tests.rounds.llm_helpers import llm_settings, round_responder
from tests.support.openai_server import ScriptedOpenAIServer
from tests.tasks.toy import CUTOFF, ToyKB

ROUND = f"r-{CUTOFF.isoformat()}"


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    """``ray`` on the engine tests' 2-CPU local cluster: the one this session already started
    (tests/engines/conftest.py's session fixture), else one started here and shut down after the module
    (a missing ray fails under CI=true, as for the engine tests)."""
    if importlib.util.find_spec("ray") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("ray is not installed; `make test` installs the foresci[ray] extra")
        pytest.skip("ray is not installed (pip install 'foresci[ray]')")
    import ray

    if ray.is_initialized():
        yield ray
        return
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        object_store_memory=96 * 1024 * 1024,
        configure_logging=False,
    )
    try:
        yield ray
    finally:
        ray.shutdown()


def test_ray_submission_equals_the_local_one(ray_cluster: Any, tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path)
    toy_tick(ledger, CUTOFF)
    folder = round_dir(ledger, ROUND)
    manifest = read_json(folder / "round.json")
    tasks = round_tasks(folder)
    with ScriptedOpenAIServer(round_responder) as server:
        local = submit(
            ledger, ROUND, ToyKB(until=CUTOFF), method="native",
            settings=llm_settings(server, tmp_path / "cache-local"),
        )
        local_calls = len(server.requests)
        engine = RayJobEngine(None)
        remote = submit(
            ledger, ROUND, ToyKB(until=CUTOFF), method="native",
            settings=llm_settings(server, tmp_path / "cache-ray", engine="ray"), engine=engine,
        )
        ray_calls = len(server.requests) - local_calls
        with pytest.raises(DeadlineError):  # the deadline holds for Ray submissions too
            submit(
                ledger, ROUND, ToyKB(until=CUTOFF.replace(day=31).replace(month=1, year=2026)),
                method="native", settings=llm_settings(server, tmp_path / "c3", engine="ray"),
                engine=RayJobEngine(None),
            )
    assert engine.lost == []
    assert local_calls == ray_calls == manifest["items"] + len(tasks)
    for name in ("forecasts.jsonl", "task_answers.jsonl"):
        assert (remote / name).read_bytes() == (local / name).read_bytes(), name
    first, second = read_json(local / "submission.json"), read_json(remote / "submission.json")
    assert first["sha256"] == second["sha256"] and first["task_sha256"] == second["task_sha256"]
    assert first["rows"] == manifest["items"] and first["task_rows"] == len(tasks)
    assert first["errors"] == 0 and first["task_errors"] == 0
    assert second["source"] == {"kind": "method", "value": "native", "engine": "ray"}
    assert [path.name for path in versions(folder, "native")] == ["v0001", "v0002"]
    # the transcripts are written in job order on both engines
    assert (remote / "transcripts.jsonl").read_bytes().count(b"\n") == (
        (local / "transcripts.jsonl").read_bytes().count(b"\n")
    )
