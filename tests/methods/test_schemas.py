"""``foresci schema export``: the JSON Schemas a non-Python agent codes against, and that they agree with
the validation the runner applies to an agent's reply."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from foresci.cli import app
from foresci.contracts import AgentReply, family_schema
from tests.agents.toy import toy_tasks

ANSWERS: list[tuple[str, dict[str, Any]]] = [
    ("direction_forecasting", {"direction": "A", "trajectory": "steady", "rationale": "r"}),
    ("direction_forecasting", {"direction": "A", "trajectory": "sideways", "rationale": "r"}),
    ("direction_forecasting", {"direction": "A", "trajectory": "steady", "rationale": "r", "confidence": 2}),
    ("bottleneck_opportunity", {"bottleneck": "b", "opportunity": "o", "mechanism": "m"}),
    ("bottleneck_opportunity", {"bottleneck": "b", "opportunity": "o"}),
    ("strategic_planning", {"ranking": [{"option_id": "A"}, {"option_id": "B", "reason": "x"}]}),
    ("strategic_planning", {"ranking": [{"option_id": "A", "score": 1}]}),
    ("venue_positioning", {"ranking": [], "framing": "f", "extra": 1}),
    ("concept_emergence", {"ranking": [{"option_id": "A"}, {"option_id": "B"}], "rationale": "r"}),
    ("concept_emergence", {"ranking": "A then B"}),
]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("schemas")
    result = CliRunner().invoke(app, ["schema", "export", str(folder)])
    assert result.exit_code == 0, result.output
    return folder


def _schema(folder: Path, name: str) -> dict[str, Any]:
    return json.loads((folder / name).read_text())


def _valid(schema: dict[str, Any], data: Any) -> bool:
    try:
        jsonschema.validate(data, schema)
    except jsonschema.ValidationError:
        return False
    return True


def test_export_writes_every_contract(exported: Path) -> None:
    names = sorted(str(path.relative_to(exported)) for path in exported.rglob("*.json"))
    assert names == [
        "answer/bottleneck_opportunity.schema.json", "answer/concept_emergence.schema.json",
        "answer/direction_forecasting.schema.json",
        "answer/strategic_planning.schema.json", "answer/venue_positioning.schema.json",
        "forecast_answer.schema.json", "forecast_question.schema.json", "forecast_reply.schema.json",
        "reply.schema.json",
        "support_artifact.schema.json", "task.schema.json", "tool_request.schema.json",
    ]
    for path in exported.rglob("*.json"):
        jsonschema.Draft202012Validator.check_schema(_schema(exported, str(path.relative_to(exported))))


@pytest.mark.parametrize(("family", "answer"), ANSWERS)
def test_exported_answer_schema_agrees_with_the_runner(exported: Path, family: str,
                                                       answer: dict[str, Any]) -> None:
    schema = _schema(exported, f"answer/{family}.schema.json")
    try:
        family_schema(family).model_validate(answer)
        accepted = True
    except ValidationError:
        accepted = False
    assert _valid(schema, answer) == accepted
    reply = {"answer": answer, "support": {"queries": ["q"], "retrieved": [
        {"paper_id": "2501.00001", "title": "t", "announced": "2025-01-02"}]}}
    assert _valid(_schema(exported, "reply.schema.json"), reply) == accepted
    try:
        AgentReply.model_validate(reply)
        assert accepted
    except ValidationError:
        assert not accepted


def test_task_schema_describes_what_an_http_agent_receives(exported: Path) -> None:
    schema = _schema(exported, "task.schema.json")
    for task in toy_tasks():
        assert _valid(schema, task.model_dump(mode="json"))
    assert not _valid(schema, {**toy_tasks()[0].model_dump(mode="json"), "hidden_target": "x"})
    forecast = _schema(exported, "forecast_answer.schema.json")
    assert _valid(forecast, {"question_id": "q", "p10": 1, "p50": 2, "p90": 3})
    assert not _valid(forecast, {"question_id": "q", "probability": 1.5})
    reply = _schema(exported, "forecast_reply.schema.json")  # what an agent replies: no question_id needed
    assert _valid(reply, {"p10": 1, "p50": 2, "p90": 3}) and _valid(reply, {"probability": 0.2})
    assert not _valid(forecast, {"p10": 1, "p50": 2, "p90": 3}), "the stored row names its question"
    assert not _valid(reply, {"probability": 0.2, "method": "x"}), "the row's fields are foresci's"


def test_tool_request_schema_is_what_the_tools_url_accepts(exported: Path) -> None:
    from foresci.methods.sandbox.http_tools import ToolRequest

    schema = _schema(exported, "tool_request.schema.json")
    requests = [({"tool": "search", "query": "retrieval", "k": 5}, True), ({"tool": "calls_left"}, True),
                ({"tool": "get_paper", "paper_id": "2501.00001"}, True), ({"tool": "read_file"}, False),
                ({"tool": "search", "query": "q", "k": 0}, False), ({"tool": "timeline", "path": "/"}, False)]
    for request, accepted in requests:
        assert _valid(schema, request) == accepted, request
        try:
            ToolRequest.model_validate(request)
            assert accepted, request
        except ValidationError:
            assert not accepted, request


@pytest.mark.parametrize("family", sorted({task.family for task in toy_tasks()}))
def test_llm_requests_leave_out_the_probabilities_a_plugin_may_give(exported: Path, family: str) -> None:
    """A family answer's optional ``probabilities`` is in the exported schema (plug-ins and HTTP agents may
    state it) but not in the schema foresci's own LLM calls send: the real small model filled it with
    invented option ids, and the failed check lost the whole answer."""
    from foresci.core.settings import Settings
    from foresci.llm.client import LLMClient

    full = family_schema(family).model_json_schema()
    assert "probabilities" in full["properties"]
    client = LLMClient(Settings(), role="agent", use_cache=False)
    sent, _ = client.request_schema(full)
    assert "probabilities" not in sent["properties"] and "probabilities" not in json.dumps(sent)
    assert set(sent["properties"]) == set(full["properties"]) - {"probabilities"}
