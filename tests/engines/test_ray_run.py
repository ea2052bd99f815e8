"""``run --engine ray``: the same answers as the local engine; a killed worker loses and duplicates nothing.

Jobs (tasks x methods x backbones) answer through the scripted OpenAI-compatible server on 127.0.0.1
from Ray worker processes of a 2-CPU local cluster; the test process is the driver and the only writer.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from foresci.agents.answers import answer_key, read_answers
from foresci.core.settings import Settings
from foresci.engines.answers import RayJobEngine
from foresci.methods.runner import ANSWERS_FILE, RunSummary, run_release
from tests.agents.conftest import ToyWorld
from tests.agents.responders import answering_responder
from tests.agents.toy import DOMAIN, toy_tasks
from tests.support.openai_server import ScriptedOpenAIServer

pytestmark = pytest.mark.slow  # end to end: a local Ray cluster

METHODS = ["native", "hybrid_rag", "persistence"]
MODELS = ["scripted-a", "scripted-b"]
JOBS = len(toy_tasks()) * (1 + 2 * len(MODELS))


def _settings(server: ScriptedOpenAIServer, cache: Path, engine: str, retries: int = 3) -> Settings:
    return Settings(
        cache_dir=cache,
        kb={"domains": [DOMAIN]},
        llm={
            "base_url": server.base_url,
            "model": MODELS[0],
            "api_key": "sk-test",
            "timeout_s": 30.0,
            "max_retries": 1,
            "reask": 1,
        },
        agents={"concurrency": 2},
        runtime={"engine": engine, "ray_max_retries": retries},
    )


def _factory(world: ToyWorld) -> Any:
    view = world.view()

    def factory(cutoff: date) -> Any:
        from foresci.kb.retrieve import KBView

        return KBView(view.kb, cutoff)  # type: ignore[attr-defined]

    return factory


def _run(world: ToyWorld, out: Path, settings: Settings, engine: RayJobEngine | None) -> RunSummary:
    return run_release(
        toy_tasks(), out, settings, METHODS, models=MODELS, view_factory=_factory(world), engine=engine
    )


def _comparable(out: Path) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    rows = read_answers(out / ANSWERS_FILE)
    keys = [answer_key(row) for row in rows]
    assert len(keys) == len(set(keys)), [key for key, n in Counter(keys).items() if n > 1]
    return {
        answer_key(row): (
            row.status,
            row.text,
            row.payload,
            row.evidence,
            [item.paper_id for item in row.support.retrieved] if row.support else None,
        )
        for row in rows
    }


def test_ray_run_gives_the_local_answers_and_resumes(
    ray_cluster: Any, toy_world: ToyWorld, tmp_path: Path
) -> None:
    with ScriptedOpenAIServer(responder=answering_responder) as server:
        local = _run(toy_world, tmp_path / "local", _settings(server, tmp_path / "c1", "local"), None)
        local_calls = len(server.requests)
        engine = RayJobEngine(toy_world.kb_path)
        remote = _run(toy_world, tmp_path / "ray", _settings(server, tmp_path / "c2", "ray"), engine)
        assert len(server.requests) - local_calls == local_calls  # the workers asked the model themselves
        assert local.attempted == remote.attempted == JOBS and remote.answered == JOBS and not engine.lost
        assert remote.usage["scripted-a"]["calls"] == local.usage["scripted-a"]["calls"] > 0
        assert _comparable(tmp_path / "ray") == _comparable(tmp_path / "local")
        ray_rows = read_answers(tmp_path / "ray" / ANSWERS_FILE)
        assert all(row.transcript for row in ray_rows)  # workers' transcripts are written by the driver
        assert len({row.transcript for row in ray_rows}) == JOBS
        # resume: a finished Ray run answers nothing again and writes nothing
        before = (tmp_path / "ray" / ANSWERS_FILE).read_bytes()
        again = _run(
            toy_world,
            tmp_path / "ray",
            _settings(server, tmp_path / "c2", "ray"),
            RayJobEngine(toy_world.kb_path),
        )
        assert again.attempted == 0 and again.done_before == JOBS
        assert (tmp_path / "ray" / ANSWERS_FILE).read_bytes() == before


def _workers_answering() -> list[int]:
    """Pids of Ray worker processes executing ``answer_on_worker`` now (Ray titles them by their task)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if command.startswith(b"ray::answer_on_worker"):
            pids.append(int(entry.name))
    return pids


def test_killed_ray_worker_loses_nothing_and_duplicates_nothing(
    ray_cluster: Any, toy_world: ToyWorld, tmp_path: Path
) -> None:
    holding = threading.Event()
    release = threading.Event()
    calls = {"n": 0}
    lock = threading.Lock()

    def responder(request: dict[str, Any]) -> Any:
        with lock:
            calls["n"] += 1
            hold = calls["n"] > 6 and not release.is_set()
        if hold:
            holding.set()
            release.wait(20)
        return answering_responder(request)

    out = tmp_path / "run"
    with ScriptedOpenAIServer(responder=responder) as server:
        engine = RayJobEngine(toy_world.kb_path)
        outcome: dict[str, Any] = {}
        runner = threading.Thread(
            target=lambda: outcome.update(
                summary=_run(toy_world, out, _settings(server, tmp_path / "c", "ray", retries=0), engine)
            )
        )
        runner.start()
        assert holding.wait(120), "no job reached the model"
        deadline = time.monotonic() + 30
        while not (victims := _workers_answering()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert victims, "no Ray worker is answering a job"
        os.kill(victims[0], signal.SIGKILL)
        time.sleep(0.5)
        release.set()
        runner.join(180)
        assert not runner.is_alive()
        first = _comparable(out)
        assert len(engine.lost) >= 1 and len(first) == JOBS - len(engine.lost)
        assert outcome["summary"].attempted == len(first)
        # resume (Ray retries allowed again): only the lost jobs are answered, each once
        resumed = _run(
            toy_world, out, _settings(server, tmp_path / "c", "ray"), RayJobEngine(toy_world.kb_path)
        )
        assert resumed.done_before == len(first) and resumed.attempted == len(engine.lost)
        final = _comparable(out)
        assert len(final) == JOBS and all(value[0] == "ok" for value in final.values())
        assert {key: final[key] for key in first} == first
