"""An inspect reply read as a foresci answer row: the JSON object found in prose or a fence, bare or
wrapped; a reply that is no answer is an error row naming the task; a breach of the contract is recorded."""

from __future__ import annotations

from datetime import date

import pytest

from foresci.bridges.inspect_ai.answers import answer_row, reply_object
from foresci.bridges.inspect_ai.dataset import answer_schema, sample_task, task_sample
from foresci.tasks.models import Candidate, Task

TASK = Task(
    task_id="df-1", family="direction_forecasting", domain="toy", cutoff=date(2024, 6, 30), horizon="3m",
    window_start=date(2024, 7, 1), window_end=date(2024, 9, 30), title="Which direction grows?",
    question="Which direction gains the most momentum?",
    candidates=[Candidate(option_id="A", name="graph agents"), Candidate(option_id="B", name="tool use")],
)
SUPPORT = {"queries": ["agents"], "tool_calls": [{"tool": "search_papers", "arguments": {"query": "agents"},
                                                  "result_ids": ["2406.00001"]}],
           "retrieved": [{"paper_id": "2406.00001", "title": "Agents", "announced": "2024-06-02"},
                         {"paper_id": "2407.00009", "title": "Later", "announced": "2024-07-09"}]}


@pytest.mark.parametrize("reply", [
    'I think B.\n```json\n{"direction": "B", "trajectory": "steady", "rationale": "r"}\n```\nDone.',
    'Reasoning {not json} then {"direction": "B", "trajectory": "steady", "rationale": "r"}',
    '{"answer": {"direction": "B", "trajectory": "steady", "rationale": "r"}}',
])
def test_the_answer_object_is_found_bare_fenced_or_wrapped(reply: str) -> None:
    row = answer_row(TASK, reply, None, method="inspect", model="openai/gpt-4o", version="v1", label="x")
    assert row.status == "ok" and row.payload["direction"] == "B" and row.contract == "ok"
    assert (row.method, row.model, row.version, row.label) == ("inspect", "openai/gpt-4o", "v1", "x")
    assert row.evidence is None and row.support is None  # no KB tools: no support


def test_a_reply_without_an_answer_is_an_error_row_naming_the_task() -> None:
    row = answer_row(TASK, "Default output from mockllm/model", None, method="inspect", model="m")
    assert row.status == "error" and row.error and row.error.startswith("task df-1: ")
    assert "no JSON object" in row.error
    with pytest.raises(ValueError, match="no JSON object"):
        reply_object("no braces at all")
    outside = answer_row(TASK, '{"direction": "B"}', None, method="inspect", model="m")
    assert outside.status == "error" and "trajectory" in (outside.error or "")


def test_an_unknown_option_is_kept_and_marked_invalid_and_late_support_is_dropped() -> None:
    reply = '{"direction": "Z", "trajectory": "steady", "rationale": "as [2406.00001] shows"}'
    row = answer_row(TASK, reply, SUPPORT, method="inspect", model="m")
    assert row.status == "ok" and row.contract == "invalid" and row.contract_notes
    assert row.support is not None and [item.paper_id for item in row.support.retrieved] == ["2406.00001"]
    assert row.evidence == "retrieved"
    assert [evidence.paper_ids for evidence in row.support.evidence] == [["2406.00001"]]


def test_a_sample_carries_the_public_task_the_schema_and_no_target() -> None:
    sample = task_sample(TASK, with_tools=True)
    assert sample.id == "df-1" and sample.target == ""
    assert sample_task(sample.metadata) == TASK
    system, user = sample.input  # type: ignore[misc]
    assert "2024-06-30" in system.text and "search_papers" not in user.text and "tools" in system.text
    assert "Which direction gains the most momentum?" in user.text and '"trajectory"' in user.text
    assert set(answer_schema(TASK)["properties"]) >= {"direction", "trajectory", "rationale"}
    with pytest.raises(ValueError, match="no foresci task"):
        sample_task({})
