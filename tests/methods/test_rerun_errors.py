"""Error rows on a rerun (issues 39.9 and 42.2): a rerun keeps them, says how to retry (`--retry-errors`)
and exits 1 while every row stands as an error, as the first run did; a forecast reply that lacks what
its question is scored on is an error row when it arrives, so `--retry-errors` asks again; the run's
manifest names its release so that `foresci eval RUN` works from any working directory."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import date
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from foresci.agents.answers import read_answers, read_forecasts
from foresci.core.settings import Settings
from foresci.methods.calling import MethodOutputError, call_forecast
from foresci.methods.http import http_method
from foresci.methods.registry import ForecastInput
from foresci.methods.runner import FORECASTS_FILE, run_release
from foresci.methods.sandbox.json_http import JSONHandler
from foresci.tasks.models import ForecastQuestion
from tests.methods.conftest import Foresci
from tests.realllm.world import SmallWorld

NUMERIC = ForecastQuestion(question_id="q-num", kind="numeric", domain="d", cutoff=date(2024, 1, 31),
                           window_start=date(2024, 2, 1), window_end=date(2024, 7, 31), text="How many?",
                           resolution_rule="count", baseline=4.0)
BINARY = NUMERIC.model_copy(update={"question_id": "q-bin", "kind": "binary", "text": "Will it?"})


def answer(task: dict[str, Any], half: bool) -> dict[str, Any]:
    """A valid answer to ``task`` (a forecast question: only p50, or no probability, when ``half``)."""
    if "question_id" in task:
        if task["kind"] == "binary":
            return {"notes": ["unsure"]} if half else {"probability": 0.4}
        return {"p50": 3} if half else {"p10": 1, "p50": 3, "p90": 9}
    options = [candidate["option_id"] for candidate in task.get("candidates", [])]
    if task["family"] == "direction_forecasting":
        return {"direction": options[0], "trajectory": "steady", "rationale": "first option"}
    if task["family"] == "bottleneck_opportunity":
        return {"bottleneck": "scarce data", "opportunity": "synthetic data", "mechanism": "data"}
    return {"ranking": [{"option_id": option, "reason": "r"} for option in options]}


class Agent(JSONHandler):
    """Fails (HTTP 500) or answers half while ``state`` says so; counts the requests."""

    state: dict[str, Any]

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        task = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.state["posts"] += 1
        status, body = ((500, {"detail": "boom"}) if self.state["fail"]
                        else (200, {"answer": answer(task, self.state["half"])}))
        self._send(status, body)


@pytest.fixture
def agent() -> Iterator[tuple[str, dict[str, Any]]]:
    state: dict[str, Any] = {"fail": False, "half": False, "posts": 0}
    server = ThreadingHTTPServer(("127.0.0.1", 0), type("A", (Agent,), {"state": state}))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", state
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(("question", "missing"), [(NUMERIC, "p10, p90"), (BINARY, "probability")])
def test_a_half_forecast_reply_is_refused_when_it_arrives(
    agent: tuple[str, dict[str, Any]], question: ForecastQuestion, missing: str
) -> None:
    url, state = agent
    state["half"] = True
    with pytest.raises(MethodOutputError, match=f"{question.question_id} lacks {missing}"):
        call_forecast(http_method(url), question, ForecastInput(settings=Settings()))


def test_retry_errors_asks_a_half_forecast_again(agent: tuple[str, dict[str, Any]], tmp_path: Path) -> None:
    url, state = agent
    state["half"] = True
    settings = Settings(cache_dir=tmp_path / "cache")
    first = run_release([], tmp_path / "run", settings, [url], questions=[NUMERIC])
    (row,) = read_forecasts(tmp_path / "run" / FORECASTS_FILE)
    assert row.status == "error" and "lacks p10, p90" in (row.error or "")
    assert (first.forecast_rows, first.forecast_standing_errors) == (1, 1)
    state["half"] = False
    again = run_release([], tmp_path / "run", settings, [url], questions=[NUMERIC])
    assert (again.forecasts, again.forecast_standing_errors) == (0, 1), "a plain rerun keeps the error row"
    retried = run_release([], tmp_path / "run", settings, [url], questions=[NUMERIC], retry_errors=True)
    (row,) = read_forecasts(tmp_path / "run" / FORECASTS_FILE)
    assert (retried.forecasts, retried.forecast_standing_errors) == (1, 0)
    assert row.status == "ok" and (row.p10, row.p50, row.p90) == (1, 3, 9)


@pytest.mark.slow
def test_a_rerun_of_a_failed_run_fails_again_and_says_how_to_retry(
    small_world: SmallWorld, foresci: Foresci, agent: tuple[str, dict[str, Any]], tmp_path: Path
) -> None:
    url, state = agent
    state["fail"] = True
    run = small_world.root / "runs" / "rerun"
    first = foresci("run", "release", "--method", url, "--out", "runs/rerun", "--no-progress")
    rows = read_answers(run / "answers.jsonl")
    assert first.returncode == 1 and rows and all(row.status == "error" for row in rows), first.stderr
    asked = state["posts"]
    state["fail"] = False
    rerun = foresci("run", "release", "--method", url, "--out", "runs/rerun", "--no-progress")
    assert rerun.returncode == 1, rerun.stderr  # issue 39.9: the rerun exited 0 ("0 answered, 0 errors")
    assert f"none of the {len(rows)} rows succeeded" in rerun.stderr
    assert "--retry-errors" in rerun.stderr and state["posts"] == asked, "a plain rerun asks nothing"
    retried = foresci("run", "release", "--method", url, "--out", "runs/rerun", "--no-progress",
                      "--retry-errors")
    assert retried.returncode == 0, retried.stderr
    assert all(row.status == "ok" for row in read_answers(run / "answers.jsonl"))
    assert "--retry-errors" not in retried.stderr


@pytest.mark.slow
def test_eval_finds_the_runs_release_from_another_working_directory(
    small_world: SmallWorld, foresci: Foresci, agent: tuple[str, dict[str, Any]], tmp_path: Path
) -> None:
    url, _ = agent
    run = small_world.root / "runs" / "elsewhere"
    done = foresci("run", "release", "--method", url, "--out", "runs/elsewhere", "--no-progress")
    assert done.returncode == 0, done.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()  # issue 39.9: eval from another working directory read the release path as typed
    scored = foresci("eval", str(run), "--offline", cwd=elsewhere)
    assert scored.returncode == 0, scored.stderr
    assert (run / "summary.json").is_file()
    inputs = json.loads((run / "manifest.json").read_text())["inputs"]
    assert Path(inputs["release"]).is_absolute() and inputs["release_from_run"] == "../../release", inputs
