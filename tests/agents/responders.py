"""Scripted model behaviour for method tests: valid answers that use the options and ids it is shown."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.support.openai_server import Reply, request_text, requested_schema

PAPER_ID = re.compile(r"\[(\d{4}\.\d{5})\]")
OPTION_LINE = re.compile(r"^- ([A-Z][A-Z0-9]*): ", re.MULTILINE)


def schema_name(request: dict[str, Any]) -> str | None:
    """The title of the schema a request asks for (json_schema name or tool name)."""
    response_format = request.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        return str(response_format["json_schema"]["name"])
    if response_format.get("type") == "json_object":
        for message in reversed(request["messages"]):
            content = str(message.get("content", ""))
            if message["role"] == "system" and content.startswith("Answer with one JSON object"):
                return str(json.loads(content.split("\n", 1)[1])["title"])
    _, tool = requested_schema(request)
    return tool


def offered_tools(request: dict[str, Any]) -> list[str]:
    """The names of the tools a request offers the model."""
    return [str(tool["function"]["name"]) for tool in request.get("tools") or []]


def searching_turn(request: dict[str, Any]) -> Any:
    """A react turn: first search the first option's name and read its timeline, then report findings."""
    if any(message["role"] == "tool" for message in request["messages"]):
        shown = "\n".join(str(message.get("content", "")) for message in request["messages"]
                          if message["role"] == "tool")
        ids = list(dict.fromkeys(re.findall(r"^\[(\d{4}\.\d{5})\]", shown, re.MULTILINE)))
        return f"Findings: the first option is well covered [{ids[0]}]." if ids else "Findings: none."
    names = [match.split(" - ")[0] for match in re.findall(r"^- [A-Z][A-Z0-9]*: (.+)$", request_text(request),
                                                            re.MULTILINE)]
    query = names[0] if names else "language agents"
    return Reply.calls(("search_papers", {"query": query}), ("timeline", {"query": query}))


def answering_responder(request: dict[str, Any]) -> Any:
    """A model that answers every schema validly, citing the first paper ids it was shown; offered the KB
    tools (react), it searches once and then reports (:func:`searching_turn`)."""
    if "search_papers" in offered_tools(request):
        return searching_turn(request)
    text = request_text(request)
    shown = "\n".join(
        str(message.get("content", "")) for message in request["messages"] if message["role"] == "user"
    )
    ids = list(dict.fromkeys(PAPER_ID.findall(shown)))  # not the example id of the system prompt
    options = list(dict.fromkeys(OPTION_LINE.findall(text)))
    cite = f" [{ids[0]}]" if ids else ""
    name = schema_name(request)
    if name is None:
        return f"Work along this chain is speeding up{cite}. Weakness: thin evidence."
    if name == "DirectionAnswer":
        return {
            "direction": options[0] if options else "A",
            "trajectory": "accelerating",
            "rationale": f"It grows fastest{cite}.",
            "signals": ["share rising"],
            "confidence": 0.6,
        }
    if name == "BottleneckAnswer":
        return {
            "bottleneck": "context window limits",
            "opportunity": "long-horizon agents",
            "mechanism": f"longer memory enables long tasks{cite}",
            "evidence_summary": f"recurring{cite}",
        }
    if name in ("PlanningAnswer", "VenueAnswer"):
        ranking = [{"option_id": option, "reason": f"evidence{cite}"} for option in options]
        if name == "PlanningAnswer":
            return {"ranking": ranking, "milestones": ["m1"], "risks": ["r1"], "go_no_go": "go"}
        return {"ranking": ranking, "framing": "f", "reviewer_risks": ["r"], "evidence_upgrades": ["u"]}
    if name == "QueryPlan":
        return {"queries": ["graph memory agents", "tool routing"]}
    if name == "EvidencePlan":
        return {"claims": [{"claim": "graph memory is rising", "paper_ids": ids[:2] + ["9999.99999"]}]}
    raise AssertionError(f"unexpected schema {name}")
