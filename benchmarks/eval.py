"""Evaluation wall time for 100 answer rows: offline (deterministic + *_offline) and judged (scripted server).

Usage: ``.venv/bin/python benchmarks/eval.py [--rows 100] [--offline-goal 120] [--judged-goal 180]``.
Prints the figures and exits non-zero when a goal (seconds) is missed. The embedder is the packaged
MiniLM with a fresh cache, so the first offline figure includes loading the model and computing every
embedding once (the second re-scores with the embeddings cached); the judged
run uses the scripted OpenAI-compatible server on 127.0.0.1 (3 judge passes per rubric metric).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from foresci.contracts import Answer  # noqa: E402
from foresci.core.io import write_json, write_jsonl  # noqa: E402
from foresci.core.settings import Settings  # noqa: E402
from foresci.evaluation.runner import evaluate_run  # noqa: E402
from tests.evaluation.fixtures import answers, release_rows  # noqa: E402
from tests.support.openai_server import ScriptedOpenAIServer  # noqa: E402


def build(folder: Path, rows: int) -> tuple[Path, Path]:
    """A release with rows/4 copies of each family's task and one answer per task, texts made distinct."""
    tasks, hidden, _, _ = release_rows()
    templates = [
        answer
        for answer in answers()
        if answer.method == "aris" and answer.family != "forecast" and answer.mode == "full"
    ]
    copies = max(1, rows // len(templates))
    all_tasks, all_hidden, all_answers = [], [], []
    for copy in range(copies):
        for task, target, answer in zip(tasks, hidden, templates, strict=True):
            task_id = f"{task.task_id}-{copy:03d}"
            all_tasks.append(task.model_copy(update={"task_id": task_id}))
            all_hidden.append(target.model_copy(update={"task_id": task_id}))
            text = f"{answer.text} Variant {copy} considers follow-up number {copy * 7 + 3} in detail."
            all_answers.append(
                Answer.model_validate(answer.model_dump() | {"task_id": task_id, "text": text})
            )
    release, run = folder / "release", folder / "run"
    write_jsonl(release / "tasks.jsonl", all_tasks)
    write_jsonl(release / "hidden.jsonl", all_hidden)
    write_jsonl(run / "answers.jsonl", all_answers)
    write_json(run / "manifest.json", {"kind": "run", "inputs": {"release": str(release)}})
    return release, run


def main() -> int:
    """Run both benchmarks and compare them with their goals."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--offline-goal", type=float, default=120.0, help="cold cache, incl. model load")
    parser.add_argument("--warm-goal", type=float, default=10.0, help="embeddings already cached")
    parser.add_argument("--judged-goal", type=float, default=180.0)
    options = parser.parse_args()
    failed = False
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        release, run = build(folder, options.rows)
        settings = Settings(cache_dir=folder / "cache")
        started = time.perf_counter()
        summary = json.loads(evaluate_run(run, release, settings, offline=True).read_text())
        offline_s = time.perf_counter() - started
        print(
            f"offline: {summary['counts']['scored']} rows in {offline_s:.1f} s "
            f"(goal {options.offline_goal} s)"
        )
        failed |= offline_s > options.offline_goal
        (run / "scores.jsonl").unlink()
        started = time.perf_counter()
        evaluate_run(run, release, settings, offline=True)
        warm_s = time.perf_counter() - started
        print(f"offline, embeddings cached: {warm_s:.1f} s (goal {options.warm_goal} s)")
        failed |= warm_s > options.warm_goal
        (run / "scores.jsonl").unlink()
        with ScriptedOpenAIServer() as server:
            judged = Settings(
                cache_dir=folder / "cache",
                llm={"base_url": server.base_url, "model": "scripted", "max_retries": 0},
            )
            started = time.perf_counter()
            summary = json.loads(evaluate_run(run, release, judged, offline=False).read_text())
            judged_s = time.perf_counter() - started
            requests = len(server.requests)
            started = time.perf_counter()
            evaluate_run(run, release, judged, offline=False)
            rerun_s = time.perf_counter() - started
            print(
                f"judged: {summary['counts']['scored']} rows in {judged_s:.1f} s "
                f"with {requests} judge requests "
                f"(judge_runs={judged.evaluation.judge_runs}; goal {options.judged_goal} s); "
                f"re-run {rerun_s:.1f} s with {len(server.requests) - requests} requests"
            )
            failed |= judged_s > options.judged_goal or len(server.requests) != requests
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
