"""Tool-calling conversations in the form ``LLMClient`` hashes, caches and sends.

A conversation with tools holds, beside plain messages, assistant messages that call tools and the tool
results answering them. :func:`normalise_tool_messages` turns any mix of langchain messages, ``(role,
content)`` tuples and dicts into plain dicts (``tool_calls`` on assistant messages, ``tool_call_id`` on
tool results), which is what the response cache keys on; :func:`to_langchain_messages` turns them back
into what ``ChatOpenAI`` sends. A reply is cached as :func:`reply_record` and rebuilt by
:func:`reply_message`, so a cached step hands the graph the same tool calls (ids included) as the live one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

from foresci.llm.messages import normalise_messages


def _text(content: Any) -> str:
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)


def _calls(tool_calls: Sequence[Any]) -> list[dict[str, Any]]:
    return [{"id": call.get("id"), "name": call["name"], "args": call.get("args", {})} for call in tool_calls]


def normalise_tool_messages(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """Messages as dicts: ``role`` and ``content``, plus ``tool_calls`` or ``tool_call_id`` where present."""

    normalised: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, AIMessage):
            entry: dict[str, Any] = {"role": "assistant", "content": _text(message.content)}
            if message.tool_calls:
                entry["tool_calls"] = _calls(message.tool_calls)
            normalised.append(entry)
        elif isinstance(message, ToolMessage):
            normalised.append({"role": "tool", "content": _text(message.content),
                               "tool_call_id": message.tool_call_id})
        elif isinstance(message, dict) and message.get("role") == "tool":
            normalised.append({"role": "tool", "content": _text(message["content"]),
                               "tool_call_id": str(message["tool_call_id"])})
        elif isinstance(message, dict) and message.get("tool_calls"):
            normalised.append({"role": "assistant", "content": _text(message.get("content") or ""),
                               "tool_calls": _calls(message["tool_calls"])})
        else:
            normalised.extend(normalise_messages([message]))
    return normalised


def to_langchain_messages(messages: Sequence[dict[str, Any]]) -> list[BaseMessage]:
    """Normalised dicts back to the langchain messages ``ChatOpenAI`` sends."""
    converted: list[BaseMessage] = []
    for message in messages:
        role, content = message["role"], message["content"]
        if role == "tool":
            converted.append(ToolMessage(content=content, tool_call_id=message["tool_call_id"]))
        elif role == "assistant":
            calls = [{"id": call["id"], "name": call["name"], "args": call["args"], "type": "tool_call"}
                     for call in message.get("tool_calls", [])]
            converted.append(AIMessage(content=content, tool_calls=calls))
        elif role == "system":
            converted.append(SystemMessage(content=content))
        else:
            converted.append(HumanMessage(content=content))
    return converted


def tool_specs(tools: Sequence[Any]) -> list[dict[str, Any]]:
    """The OpenAI ``tools`` field for langchain tools, pydantic models or OpenAI tool dicts."""
    return [convert_to_openai_tool(tool) for tool in tools]


def reply_record(message: Any) -> dict[str, Any]:
    """The cacheable part of a tool-calling reply: its text, valid tool calls and finish reason."""
    metadata = getattr(message, "response_metadata", None) or {}
    return {"content": _text(getattr(message, "content", "") or ""),
            "tool_calls": _calls(getattr(message, "tool_calls", None) or []),
            "invalid_tool_calls": len(getattr(message, "invalid_tool_calls", None) or []),
            "finish_reason": metadata.get("finish_reason")}


def reply_message(record: dict[str, Any]) -> AIMessage:
    """The ``AIMessage`` of a cached :func:`reply_record`."""
    calls = [{"id": call["id"], "name": call["name"], "args": call["args"], "type": "tool_call"}
             for call in record.get("tool_calls", [])]
    return AIMessage(content=record.get("content", ""), tool_calls=calls,
                     response_metadata={"finish_reason": record.get("finish_reason")})
