"""``eval --engine ray``: judge calls on Ray workers give the local engine's scores; a rerun calls nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from foresci.core.io import iter_jsonl
from foresci.evaluation.runner import evaluate_run
from tests.evaluation.conftest import WordEncoder
from tests.evaluation.test_judges import judge_reply, judged_settings
from tests.support.openai_server import ScriptedOpenAIServer

pytestmark = pytest.mark.slow  # end to end: a local Ray cluster


def _scores(run: Path) -> dict[str, Any]:
    rows = {}
    for row in iter_jsonl(run / "scores.jsonl"):
        rows[row["key"]] = {
            name: (metric["value"], metric.get("runs"), metric.get("error"))
            for name, metric in row["metrics"].items()
        }
    return rows


def test_ray_eval_scores_like_the_local_engine(ray_cluster: Any, tmp_path: Path, run_dir: Path) -> None:
    copy = tmp_path / "run-ray"
    shutil.copytree(run_dir, copy)
    with ScriptedOpenAIServer(responder=judge_reply) as server:
        local = judged_settings(tmp_path / "local", server)
        evaluate_run(run_dir, None, local, offline=False, encoder=WordEncoder())
        local_calls = len(server.requests)
        remote = judged_settings(tmp_path / "ray", server)
        remote = remote.model_copy(update={"runtime": remote.runtime.model_copy(update={"engine": "ray"})})
        summary = json.loads(
            evaluate_run(copy, None, remote, offline=False, encoder=WordEncoder()).read_text()
        )
        remote_calls = len(server.requests) - local_calls
        assert remote_calls > 0  # the workers asked the judges (equal prompts in flight at once may repeat)
        assert summary["judge_usage"]["calls"] == remote_calls  # the workers' usage reaches the summary
        assert _scores(copy) == _scores(run_dir) and len(_scores(copy)) > 5
        (copy / "scores.jsonl").unlink()
        evaluate_run(copy, None, remote, offline=False, encoder=WordEncoder())
        assert len(server.requests) == local_calls + remote_calls  # workers read the shared response cache
        assert _scores(copy) == _scores(run_dir)
