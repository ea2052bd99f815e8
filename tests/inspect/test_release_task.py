"""A foresci release run end to end under inspect_ai with its ``mockllm/model``: samples carry only the
public task, the KB tools never return a paper after the task's cutoff, the scorer's values are foresci's
offline metrics, and the log imported into a run folder scores the same under ``foresci eval --offline``."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from foresci.agents.answers import read_answers
from foresci.contracts import family_schema
from foresci.tasks.release import load_release
from tests.inspect.scripted_agent import USAGE, scripted_answer, scripted_model
from tests.methods.conftest import Foresci
from tests.realllm.world import SmallWorld

pytestmark = pytest.mark.slow


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


@pytest.fixture(scope="module")
def evaluated(small_world: SmallWorld, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The inspect log of the world's release answered by the scripted model with the KB tools."""
    from inspect_ai import eval as inspect_eval

    from foresci.bridges.inspect_ai.task import release_task

    tasks = load_release(small_world.release_dir).tasks
    logs = tmp_path_factory.mktemp("inspect-logs")
    task = release_task(small_world.release_dir, kb=small_world.kb_dir)
    return inspect_eval(task, model=scripted_model(tasks), log_dir=str(logs), display="none")[0]


def test_samples_hold_the_public_task_and_no_target(evaluated: Any, small_world: SmallWorld) -> None:
    from inspect_ai.log import read_eval_log

    log = read_eval_log(evaluated.location)
    assert log.status == "success", log.error
    tasks = {task.task_id: task for task in load_release(small_world.release_dir).tasks}
    assert sorted(str(sample.id) for sample in log.samples) == sorted(tasks)
    public = {text for task in tasks.values() for text in _strings(task.model_dump(mode="json"))}
    hidden_texts = {text for line in (small_world.release_dir / "hidden.jsonl").read_text().splitlines()
                    for text in _strings(json.loads(line)) if len(text) > 30} - public
    assert hidden_texts, "the release's hidden rows hold target texts to look for"
    for sample in log.samples:
        assert sample.target == ""
        shown = json.dumps([message.model_dump(mode="json") for message in sample.messages])
        shown += json.dumps(sample.metadata)
        assert not [text for text in hidden_texts if text in shown], sample.id
        assert sample.metadata["foresci_task"] == tasks[str(sample.id)].model_dump(mode="json")


def test_kb_tools_answer_at_the_cutoff_and_their_support_is_stored(evaluated: Any,
                                                                    small_world: SmallWorld) -> None:
    from inspect_ai.log import read_eval_log

    from foresci.kb.store import KnowledgeBase

    log = read_eval_log(evaluated.location)
    tasks = {task.task_id: task for task in load_release(small_world.release_dir).tasks}
    kb = KnowledgeBase.open(small_world.kb_dir, small_world.settings)
    try:
        for sample in log.samples:
            cutoff = tasks[str(sample.id)].cutoff
            tool_messages = [message for message in sample.messages if message.role == "tool"]
            assert [message.function for message in tool_messages] == ["search_papers"]
            support = sample.store["foresci_support"]
            assert support["tool_calls"][0]["tool"] == "search_papers" and support["retrieved"]
            for item in support["retrieved"]:
                assert item["announced"] <= cutoff.isoformat()
                assert f"[{item['paper_id']}]" in tool_messages[0].text
            later = [kb.paper_id_at(row) for row in range(kb.size) if kb.announced_at(row) > cutoff]
            assert later and not [paper_id for paper_id in later if paper_id in tool_messages[0].text]
    finally:
        kb.close()


def test_imported_answers_score_as_the_log_under_foresci_eval(evaluated: Any, small_world: SmallWorld,
                                                              foresci: Foresci, tmp_path: Path) -> None:
    run = tmp_path / "run"
    imported = foresci("inspect", "import", evaluated.location, "--release", str(small_world.release_dir),
                       "--out", str(run), "--label", "mock")
    assert imported.returncode == 0, imported.stderr[-3000:]
    rows = read_answers(run / "answers.jsonl")
    tasks = {task.task_id: task for task in load_release(small_world.release_dir).tasks}
    assert {row.task_id for row in rows} == set(tasks)
    for row in rows:
        assert row.status == "ok" and row.method == "inspect" and row.model == "mockllm/model"
        assert row.label == "mock" and row.version and row.version.startswith("inspect:")
        task = tasks[row.task_id]
        expected = family_schema(task.family).model_validate(scripted_answer(task)).model_dump(mode="json")
        assert row.payload == expected
        assert row.llm_calls == 2 and row.prompt_tokens == 2 * USAGE["input_tokens"]
        assert row.evidence == "retrieved" and row.support and row.support.tool_calls

    evaluated_run = foresci("eval", str(run), "--offline")
    assert evaluated_run.returncode == 0, evaluated_run.stderr[-3000:]
    foresci_scores = {row["task_id"]: row["metrics"]
                      for row in map(json.loads, (run / "scores.jsonl").read_text().splitlines())}
    compared = 0
    for sample in evaluated.samples:
        values = sample.scores["foresci"].value
        metrics = foresci_scores[str(sample.id)]
        for name, value in values.items():
            stored = metrics.get(name)
            if math.isnan(value):
                assert stored is None or stored["value"] is None or not stored["available"], (sample.id, name)
                continue
            assert stored is not None, (sample.id, name)
            assert stored["value"] == pytest.approx(value, abs=1e-12), (sample.id, name)
            compared += 1
    assert compared >= 2 * len(evaluated.samples)
    names = {score.name for score in evaluated.results.scores}
    assert "top_choice" in names and "fta" in names

    reported = foresci("report", str(run), "--out", str(tmp_path / "report"))
    assert reported.returncode == 0, reported.stderr[-3000:]
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    assert {entry["method"] for entry in summary["leaderboard"]} == {f"mock/inspect@{rows[0].version}"}

    again = foresci("inspect", "import", evaluated.location, "--release", str(small_world.release_dir),
                    "--out", str(run), "--label", "mock")
    assert again.returncode == 0 and len(read_answers(run / "answers.jsonl")) == len(rows)
