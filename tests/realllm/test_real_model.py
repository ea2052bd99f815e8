"""The real-model stage: every LLM method and every family through SmolLM2-135M-Instruct, end to end.

The toy world of the agents tests (a real KB, post-cutoff papers marked) has one task per family. Each of
the LLM methods answers one task, families rotated so that every family is answered (a Latin design: one
row per method, not the full grid of four per method, which took 27 minutes on two loaded cores), then
offline and judged evaluation (by the same model) of every row. Every row must be a
schema-valid answer or an error row with its reason; no prompt may carry anything after the cutoff;
a rerun must make zero model calls. A recording proxy (the scripted server in forwarding mode) sits
between foresci and the model server, so every prompt the model saw is read back.
"""

from __future__ import annotations

import json
import shutil
import time
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from foresci.agents.answers import read_answers
from foresci.agents.briefs import family_schema
from foresci.agents.cli import write_run_manifest
from foresci.agents.runner import ANSWERS_FILE, run_release
from foresci.evaluation.models import Score
from foresci.evaluation.runner import SCORES_NAME, evaluate_run
from foresci.io import write_jsonl
from foresci.llm.serve import LocalServer
from foresci.methods import shipped_methods
from foresci.settings import Settings
from foresci.tasks.hidden import Claim, HiddenTarget
from foresci.tasks.models import Task
from tests.agents.conftest import ToyWorld
from tests.agents.toy import CUTOFF, POST_MARKER, toy_tasks
from tests.support.openai_server import ScriptedOpenAIServer, forwarding_responder

pytestmark = pytest.mark.slow


def hidden_targets() -> list[HiddenTarget]:
    """What the toy world's window shows: A (graph memory) grows, C cools; ACL fits graph memory."""
    ids = {task.family: task.task_id for task in toy_tasks()}
    grows = Claim(claim_id="c1", text="Graph memory for language agents gains momentum after the cutoff.")
    return [
        HiddenTarget(task_id=ids["direction_forecasting"], family="direction_forecasting",
                     primary_direction="A", trajectory="accelerating", claims=[grows]),
        HiddenTarget(task_id=ids["bottleneck_opportunity"], family="bottleneck_opportunity",
                     bottleneck=["Context window limits bound graph memory agents on long tasks."],
                     opportunity=["Agents that plan over long tasks with retrieved memory subgraphs."],
                     claims=[Claim(claim_id="b1", text="The context window limit is the bottleneck.")]),
        HiddenTarget(task_id=ids["strategic_planning"], family="strategic_planning", ranking=["A", "B", "C"],
                     claims=[grows]),
        HiddenTarget(task_id=ids["venue_positioning"], family="venue_positioning", ranking=["V2", "V1", "V3"],
                     claims=[Claim(claim_id="v1", text="Graph memory agent papers fit ACL/EMNLP/NAACL.")]),
    ]


def _settings(world: ToyWorld, proxy: ScriptedOpenAIServer, cache: Path) -> Settings:
    """Settings that keep a CPU model's work small: short evidence lists, one review round, capped output."""
    return world.settings.model_copy(update={
        "cache_dir": cache,
        "llm": world.settings.llm.model_copy(update={
            "base_url": proxy.base_url, "model": "smollm2-135m", "max_tokens": {"agent": 200, "judge": 160}}),
        "agents": world.settings.agents.model_copy(update={
            "iterations": 1, "reviewers": 1, "concurrency": 1, "max_evidence_papers": 3,
            "papers_per_query": 3, "coi_chains": 1, "coi_chain_length": 2, "aris_max_queries": 1}),
        "evaluation": world.settings.evaluation.model_copy(update={
            "judge_runs": 1, "judge_concurrency": 1, "max_claims": 3}),
    })


def rotated_plan() -> list[tuple[str, Task]]:
    """(method, task) pairs: each method answers one family, rotated so every family is answered."""
    tasks = toy_tasks()
    methods = shipped_methods(uses_llm=True)
    return [(method, tasks[index % len(tasks)]) for index, method in enumerate(methods)]


def _scores(run_dir: Path) -> list[Score]:
    return [Score.model_validate_json(line) for line in (run_dir / SCORES_NAME).read_text().splitlines()]


def test_every_method_and_family_through_the_real_model(
    toy_world: ToyWorld, local_model: LocalServer, tmp_path: Path
) -> None:
    release = tmp_path / "release"
    write_jsonl(release / "tasks.jsonl", toy_tasks())
    write_jsonl(release / "hidden.jsonl", hidden_targets())
    view = toy_world.view()

    def factory(cutoff: date) -> Any:
        return view

    methods = list(shipped_methods(uses_llm=True))
    plan = rotated_plan()
    assert {task.family for _, task in plan} == {task.family for task in toy_tasks()}

    def answer_all(run: Path, settings: Settings) -> None:
        for method, task in plan:
            run_release([task], run, settings, [method], view_factory=factory)

    started = time.monotonic()
    with ScriptedOpenAIServer(responder=forwarding_responder(local_model.base_url)) as proxy:
        settings = _settings(toy_world, proxy, tmp_path / "cache")
        run = tmp_path / "run"
        answer_all(run, settings)
        write_run_manifest(run, release, toy_world.kb_path, settings, methods, [], "full")
        answered_s = time.monotonic() - started
        rows = read_answers(run / ANSWERS_FILE)
        assert sorted((row.method, row.family) for row in rows) == sorted(
            (method, task.family) for method, task in plan)
        for row in rows:
            if row.status == "ok":
                family_schema(row.family).model_validate(row.payload)
                assert row.text
                if row.method == "react" and row.support is not None and not row.support.tool_calls:
                    # llama-cpp's chat formats pass the tools but SmolLM2 writes no tool call: the model
                    # chose not to search, and the row says so (no evidence, the stop in the notes)
                    assert row.evidence == "none", row.evidence
                    assert any("stopped searching after 1 turn" in note for note in row.support.notes)
                elif row.method != "native":
                    assert row.support is not None and row.support.retrieved, row.method
                    assert all(item.announced <= CUTOFF for item in row.support.retrieved)
            else:  # the model answered, its output stayed unusable: said so, with the step that asked
                assert "LLMOutputError: model 'smollm2-135m' (agent, step '" in (row.error or ""), row.error
        ok = sum(row.status == "ok" for row in rows)
        assert ok >= 3, [row.error for row in rows if row.status == "error"]
        manifest = json.loads((run / "manifest.json").read_text())
        assert manifest["config"]["llm_capabilities"]["smollm2-135m"]["method"]
        agent_requests = len(proxy.requests)
        prompts = proxy.all_text()
        assert POST_MARKER not in prompts
        assert not [paper_id for paper_id in toy_world.post_ids if paper_id in prompts]
        assert all(request.get("max_tokens") in (200, 160) for request in proxy.requests)

        evaluate_run(run, release, settings, offline=True)
        offline = _scores(run)
        summary = json.loads((run / "summary.json").read_text())
        repair = {entry["method"]: entry["contract"]
                  for entry in summary["leaderboard"] if entry["family"] == "all"}
        assert set(repair) == {row.method for row in rows if row.status == "ok"}
        assert len(offline) == len(rows) and all(score.metrics for score in offline if score.status == "ok")
        judged_run = tmp_path / "judged"
        sample = rows
        write_jsonl(judged_run / ANSWERS_FILE, sample)
        shutil.copy(run / "manifest.json", judged_run / "manifest.json")
        evaluate_run(judged_run, release, settings, offline=False)
        judged = _scores(judged_run)
        for score in judged:
            for name, result in score.metrics.items():
                assert result.error or result.value is not None or not result.available, (score.key, name)
        judge_requests = len(proxy.requests) - agent_requests
        assert judge_requests > 0 or not any(row.status == "ok" for row in sample)
        total_s = time.monotonic() - started

        before = len(proxy.requests)
        answer_all(run, settings)
        evaluate_run(run, release, settings, offline=True)
        assert len(proxy.requests) == before, "rerunning the run and its offline evaluation made calls"
        judged_failures = sum(1 for score in judged for result in score.metrics.values() if result.error)
        evaluate_run(judged_run, release, settings, offline=False)
        if not judged_failures:
            assert len(proxy.requests) == before, "a rerun of a finished evaluation must make no calls"
    errors = [f"{row.method}/{row.family}: {row.error}" for row in rows if row.status == "error"]
    print(f"\nreal-model stage: {ok}/{len(rows)} rows ok, {agent_requests} answering + "
          f"{judge_requests} judge requests; answering {answered_s:.0f} s, total {total_s:.0f} s; "
          f"judge metric errors {judged_failures}; errors: {errors}")
    print("repair rate per method: " + ", ".join(
        f"{method} {100 * rates['rate']:.0f}% (repaired {rates['repaired']}, invalid {rates['invalid']})"
        for method, rates in sorted(repair.items())))
