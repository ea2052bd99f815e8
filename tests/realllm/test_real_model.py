"""The real-model stage: every LLM method and every family through SmolLM2-135M-Instruct, end to end.

The toy world of the agents tests (a real KB, post-cutoff papers marked) has one task per family. Every
registered LLM method answers every task (the full method x family grid), then every row is evaluated
offline, and one row of each family, each by a different method, is judged by the same model (the judge's
prompts and metrics depend on the family and the answer, not on the method that wrote it; judging all 24
rows took 1,262 s of the test's 2,076 s in a run at load 15, and two rows per family 614 s in all in CI).
Every row must be a schema-valid answer or an error row with its reason; no prompt may carry anything after
the cutoff; a rerun must make zero model calls. A recording proxy (the scripted server in forwarding mode)
sits between foresci and the model server, so every prompt the model saw is read back.

What keeps the grid within a CI budget on two cores, without faking any step: the compact settings of
:func:`_settings` (two evidence papers, one review round, one judge pass, capped output) and the server's
RAM prompt cache, which the grid's order feeds: rows of one task run back to back, so each request finds
the system prompt and task of the request before it (or of the same judge one answer earlier) cached.
Per-row answering and judging times are printed.
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
from foresci.agents.cli import write_run_manifest
from foresci.app.local_demo import compact_settings
from foresci.contracts import family_schema
from foresci.core.io import write_jsonl
from foresci.core.settings import Settings
from foresci.evaluation.models import Score
from foresci.evaluation.runner import SCORES_NAME, evaluate_run
from foresci.llm.bounds import reply_token_bound
from foresci.llm.serve import LocalServer
from foresci.methods import shipped_methods
from foresci.methods.runner import ANSWERS_FILE, run_release
from foresci.tasks.hidden import Claim, HiddenTarget, make_hidden_target
from foresci.tasks.models import Task
from tests.agents.conftest import ToyWorld
from tests.agents.toy import CUTOFF, POST_MARKER, toy_tasks
from tests.support.openai_server import ScriptedOpenAIServer, forwarding_responder, requested_schema

pytestmark = pytest.mark.slow


def hidden_targets() -> list[HiddenTarget]:
    """What the toy world's window shows: A (graph memory) grows, C cools; ACL fits graph memory."""
    ids = {task.family: task.task_id for task in toy_tasks()}
    grows = Claim(claim_id="c1", text="Graph memory for language agents gains momentum after the cutoff.")
    return [
        make_hidden_target(task_id=ids["direction_forecasting"], family="direction_forecasting",
                     primary_direction="A", trajectory="accelerating", claims=[grows]),
        make_hidden_target(task_id=ids["bottleneck_opportunity"], family="bottleneck_opportunity",
                     bottleneck=["Context window limits bound graph memory agents on long tasks."],
                     opportunity=["Agents that plan over long tasks with retrieved memory subgraphs."],
                     claims=[Claim(claim_id="b1", text="The context window limit is the bottleneck.")]),
        make_hidden_target(task_id=ids["strategic_planning"], family="strategic_planning",
                           ranking=["A", "B", "C"],
                     claims=[grows]),
        make_hidden_target(task_id=ids["venue_positioning"], family="venue_positioning",
                           ranking=["V2", "V1", "V3"],
                     claims=[Claim(claim_id="v1", text="Graph memory agent papers fit ACL/EMNLP/NAACL.")]),
    ]


def _settings(world: ToyWorld, proxy: ScriptedOpenAIServer, cache: Path) -> Settings:
    """The compact CPU-model profile (the demo's) pointed at the recording proxy, one task at a time."""
    settings = compact_settings(world.settings)
    return settings.model_copy(update={
        "cache_dir": cache,
        "llm": settings.llm.model_copy(update={"base_url": proxy.base_url, "model": "smollm2-135m"}),
        "agents": settings.agents.model_copy(update={"concurrency": 1}),
    })


def token_limit(request: dict[str, Any], role_cap: int) -> int:
    """The token limit a request must carry: a structured request (a forced tool or a response format)
    sends a bounded schema (free text capped) and the longest reply it allows, at least the role's cap;
    a tool-using turn of react sends the role's cap."""
    if not (isinstance(request.get("tool_choice"), dict) or request.get("response_format")):
        return role_cap
    schema, _ = requested_schema(request)
    assert schema is not None
    bound = reply_token_bound(schema)
    assert bound is not None, f"an unbounded schema was sent: {json.dumps(schema)[:300]}"
    return max(role_cap, bound)


def grid() -> list[tuple[str, Task]]:
    """(method, task) for every registered LLM method and every toy family, grouped by task (rows of one
    task share their prompt prefixes, so the server's prompt cache serves the next row)."""
    return [(method, task) for task in toy_tasks() for method in shipped_methods(uses_llm=True)]


def judged_rows(rows: list[Any], methods: list[str], per_family: int = 1) -> list[Any]:
    """The rows the real judge scores: ``per_family`` ok rows of each family, the methods taken in turn
    across families (family i starts at method ``per_family * i``), so no two families are judged on one
    method's answer while ``per_family`` x families <= methods (every method is judged once it is >=); an
    error row is passed over for the next method."""
    families = list(dict.fromkeys(row.family for row in rows))
    by_cell = {(row.method, row.family): row for row in rows if row.status == "ok"}
    chosen: list[Any] = []
    for index, family in enumerate(families):
        order = [methods[(per_family * index + step) % len(methods)] for step in range(len(methods))]
        chosen += [by_cell[(method, family)] for method in order if (method, family) in by_cell][:per_family]
    return chosen


def test_the_judged_rows_cover_every_family_and_method_and_pass_over_errors() -> None:
    from types import SimpleNamespace

    methods = list(shipped_methods(uses_llm=True))
    families = [task.family for task in toy_tasks()]
    rows = [SimpleNamespace(method=method, family=family, status="ok") for family in families
            for method in methods]
    chosen = judged_rows(rows, methods)
    assert len(chosen) == len(families) <= len(methods)
    assert {row.family for row in chosen} == set(families)
    assert len({row.method for row in chosen}) == len(families), "two families judged on one method"
    both = judged_rows(rows, methods, per_family=2)
    assert len(both) == 2 * len(families) and {row.method for row in both} == set(methods)
    first = next(row for row in rows if row.family == families[0] and row.method == methods[0])
    first.status = "error"
    again = judged_rows(rows, methods)
    assert first not in again and sum(row.family == families[0] for row in again) == 1


def _scores(run_dir: Path) -> list[Score]:
    return [Score.model_validate_json(line) for line in (run_dir / SCORES_NAME).read_text().splitlines()]


def _cell(method: str, family: str) -> str:
    return f"{method}/{family.split('_')[0]}"


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
    plan = grid()
    assert len(plan) == len(methods) * len(toy_tasks()) and len(toy_tasks()) == 4
    timings: dict[str, list[float]] = {}

    def answer_all(run: Path, settings: Settings, proxy: ScriptedOpenAIServer) -> None:
        for method, task in plan:
            started, calls = time.monotonic(), len(proxy.requests)
            run_release([task], run, settings, [method], view_factory=factory)
            timings.setdefault(_cell(method, task.family), []).extend(
                [time.monotonic() - started, len(proxy.requests) - calls])

    started = time.monotonic()
    with ScriptedOpenAIServer(responder=forwarding_responder(local_model.base_url)) as proxy:
        settings = _settings(toy_world, proxy, tmp_path / "cache")
        run = tmp_path / "run"
        answer_all(run, settings, proxy)
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
        assert ok >= len(rows) // 2, [row.error for row in rows if row.status == "error"]
        assert {row.family for row in rows if row.status == "ok"} == {task.family for task in toy_tasks()}
        manifest = json.loads((run / "manifest.json").read_text())
        assert manifest["config"]["llm_capabilities"]["smollm2-135m"]["method"]
        agent_requests = len(proxy.requests)
        prompts = proxy.all_text()
        assert POST_MARKER not in prompts
        assert not [paper_id for paper_id in toy_world.post_ids if paper_id in prompts]
        for request in proxy.requests:
            assert request.get("max_tokens") == token_limit(request, settings.llm.max_tokens["agent"])

        evaluate_run(run, release, settings, offline=True)
        offline = _scores(run)
        summary = json.loads((run / "summary.json").read_text())
        repair = {entry["method"]: entry["contract"]
                  for entry in summary["leaderboard"] if entry["family"] == "all"}
        assert set(repair) == {row.method for row in rows if row.status == "ok"}
        assert len(offline) == len(rows) and all(score.metrics for score in offline if score.status == "ok")
        judged: list[Score] = []
        to_judge = judged_rows(rows, methods)
        assert {row.family for row in to_judge} == {row.family for row in rows if row.status == "ok"}
        if ok == len(rows):
            assert len({row.method for row in to_judge}) == len(to_judge)
        for row in to_judge:  # one judged run per row: its judging time is its own
            judged_run = tmp_path / "judged" / f"{row.method}-{row.family}"
            write_jsonl(judged_run / ANSWERS_FILE, [row])
            shutil.copy(run / "manifest.json", judged_run / "manifest.json")
            row_started, calls = time.monotonic(), len(proxy.requests)
            evaluate_run(judged_run, release, settings, offline=False)
            timings[_cell(row.method, row.family)].extend(
                [time.monotonic() - row_started, len(proxy.requests) - calls])
            judged += _scores(judged_run)
        for score in judged:
            for name, result in score.metrics.items():
                assert result.error or result.value is not None or not result.available, (score.key, name)
        judge_requests = len(proxy.requests) - agent_requests
        assert judge_requests >= len(to_judge)
        for request in proxy.requests[agent_requests:]:
            assert request.get("max_tokens") == token_limit(request, settings.llm.max_tokens["judge"])
        assert POST_MARKER not in proxy.all_text()
        total_s = time.monotonic() - started

        before = len(proxy.requests)
        answer_all(run, settings, proxy)
        evaluate_run(run, release, settings, offline=True)
        assert len(proxy.requests) == before, "rerunning the run and its offline evaluation made calls"
        transport = [name for score in judged for name, result in score.metrics.items()
                     if result.error and result.error_kind == "transport"]
        for judged_run in sorted((tmp_path / "judged").iterdir()):
            evaluate_run(judged_run, release, settings, offline=False)
        if not transport:
            assert len(proxy.requests) == before, "a rerun of a finished evaluation must make no calls"
    errors = [f"{row.method}/{row.family}: {row.error}" for row in rows if row.status == "error"]
    judge_errors = [f"{score.method}/{score.family}: {name} ({result.error_kind})" for score in judged
                    for name, result in score.metrics.items() if result.error]
    print(f"\nreal-model stage: {ok}/{len(rows)} rows ok, {agent_requests} answering + {judge_requests} "
          f"judge requests; answering {answered_s:.0f} s, total {total_s:.0f} s; errors: {errors}; "
          f"judge metric errors: {judge_errors}")
    print("per row (answer s, answer calls, judge s, judge calls): " + "; ".join(
        f"{cell} {spent[0]:.0f}s/{spent[1]:.0f} + {spent[2]:.0f}s/{spent[3]:.0f}"
        for cell, spent in timings.items() if len(spent) >= 4))
    print("repair rate per method: " + ", ".join(
        f"{method} {100 * rates['rate']:.0f}% (repaired {rates['repaired']}, invalid {rates['invalid']})"
        for method, rates in sorted(repair.items())))
