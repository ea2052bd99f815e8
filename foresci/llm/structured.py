"""Structured output over an OpenAI-compatible endpoint: how each method asks, and how a reply is read.

Methods (every one sends the schema; none relies on the model guessing it):

- ``json_schema``: ``response_format={"type": "json_schema", ...}`` (OpenAI, vLLM, llama.cpp's C++ server);
- ``function_calling``: one tool whose parameters are the schema, forced with ``tool_choice``;
- ``json_mode``: ``response_format={"type": "json_object", "schema": ...}`` (llama-cpp-python, Anyscale)
  plus the schema in a system message;
- ``grammar``: a GBNF grammar compiled from the schema in the request's ``grammar`` field
  (llama-cpp-python and llama.cpp servers; needs the ``llama_cpp`` package on the client side).

All fields go in the request body directly (``extra_body``), so the reply comes back as a plain chat
completion whose ``finish_reason`` and usage are read here, whatever the method.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

METHOD_ORDER = ("json_schema", "function_calling", "json_mode", "grammar")
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)


class MethodUnavailable(RuntimeError):
    """This client cannot form the request for a method (e.g. no ``llama_cpp`` for ``grammar``)."""


def schema_instruction(json_schema: dict[str, Any]) -> str:
    """The system message that states the schema in words and JSON (json_mode and grammar)."""
    return ("Answer with one JSON object (no prose, no code fence) that validates against this JSON schema:\n"
            + json.dumps(json_schema, ensure_ascii=False))


def request_fields(method: str, name: str, json_schema: dict[str, Any]) -> dict[str, Any]:
    """The request-body fields that ask ``method`` for output matching ``json_schema``."""
    if method == "json_schema":
        return {"response_format": {"type": "json_schema",
                                    "json_schema": {"name": name, "schema": json_schema, "strict": False}}}
    if method == "function_calling":
        return {"tools": [{"type": "function", "function": {
                    "name": name, "description": f"Return the {name} object.", "parameters": json_schema}}],
                "tool_choice": {"type": "function", "function": {"name": name}}}
    if method == "json_mode":
        return {"response_format": {"type": "json_object", "schema": json_schema}}
    if method == "grammar":
        return {"grammar": gbnf_from_schema(json_schema)}
    raise ValueError(f"unknown structured output method {method!r}; expected one of {METHOD_ORDER}")


def gbnf_from_schema(json_schema: dict[str, Any]) -> str:
    """A GBNF grammar for ``json_schema`` (llama.cpp's converter; the ``local-llm`` extra ships it)."""
    try:
        from llama_cpp.llama_grammar import json_schema_to_gbnf
    except ImportError as error:
        raise MethodUnavailable("the grammar method needs llama_cpp (pip install 'foresci[local-llm]')") \
            from error
    return str(json_schema_to_gbnf(json.dumps(json_schema)))


@dataclass
class ReadReply:
    """One reply as structured output: the raw text, the parsed JSON (or why not) and whether it was cut."""

    raw: str
    data: Any = None  # parsed JSON; may be present on a truncated reply (a cut that still parses)
    problem: str = ""
    truncated: bool = False
    finish_reason: str | None = None


def read_reply(message: Any, max_tokens: int | None) -> ReadReply:
    """Parse an AIMessage into JSON; a reply cut at the token limit is marked truncated.

    A cut-off tool call counts as truncated too, also when the server reports
    ``finish_reason=tool_calls``: its arguments do not parse and it used the whole token budget.
    """
    metadata = getattr(message, "response_metadata", None) or {}
    finish_reason = metadata.get("finish_reason")
    usage = getattr(message, "usage_metadata", None) or {}
    used_all = max_tokens is not None and int(usage.get("output_tokens", 0) or 0) >= max_tokens
    tool_calls = getattr(message, "tool_calls", None) or []
    invalid_calls = getattr(message, "invalid_tool_calls", None) or []
    if tool_calls:
        data = tool_calls[0].get("args", {})
        return ReadReply(json.dumps(data, ensure_ascii=False), data=data, truncated=finish_reason == "length",
                         finish_reason=finish_reason)
    if invalid_calls:
        raw = str(invalid_calls[0].get("args") or "")
        truncated = finish_reason == "length" or used_all
        return ReadReply(raw, problem=_problem(raw, truncated, finish_reason, max_tokens, "tool call"),
                         truncated=truncated, finish_reason=finish_reason)
    content = getattr(message, "content", "")
    raw = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    try:
        data = parse_json_object(raw)
    except ValueError:
        truncated = finish_reason == "length" or used_all
        return ReadReply(raw, problem=_problem(raw, truncated, finish_reason, max_tokens, "output"),
                         truncated=truncated, finish_reason=finish_reason)
    return ReadReply(raw, data=data, truncated=finish_reason == "length", finish_reason=finish_reason)


def _problem(raw: str, truncated: bool, finish_reason: str | None, max_tokens: int | None, what: str) -> str:
    if truncated:
        return f"{what} truncated at the token limit (max_tokens={max_tokens}, finish_reason={finish_reason})"
    if not raw.strip():
        return f"empty {what} (finish_reason={finish_reason})"
    return f"{what} is not valid JSON"


def parse_json_object(text: str) -> Any:
    """The JSON value in ``text``: bare, inside a code fence, or the outermost ``{...}`` in prose."""
    stripped = _FENCE.sub("", text.strip()).strip()
    if not stripped:
        raise ValueError("empty output")
    try:
        return json.loads(stripped)
    except json.JSONDecodeError:
        start, end = stripped.find("{"), stripped.rfind("}")
        if start < 0 or end <= start:
            raise ValueError("no JSON object in the output") from None
        try:
            return json.loads(stripped[start:end + 1])
        except json.JSONDecodeError as error:
            raise ValueError(f"invalid JSON: {error}") from None
