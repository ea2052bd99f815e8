"""Chat messages in the one form that is hashed and sent: ``[{"role": ..., "content": ...}]``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

MessageLike = Any  # a langchain BaseMessage, a (role, content) tuple or a {"role", "content"} dict


def normalise_messages(messages: Sequence[MessageLike]) -> list[dict[str, str]]:
    """Messages as ``[{"role": ..., "content": ...}]`` (the form that is hashed and sent)."""
    from langchain_core.messages import BaseMessage

    roles = {"human": "user", "ai": "assistant", "system": "system", "user": "user", "assistant": "assistant"}
    normalised: list[dict[str, str]] = []
    for index, message in enumerate(messages):
        if isinstance(message, BaseMessage):
            role, content = message.type, message.content
        elif isinstance(message, tuple) and len(message) == 2:
            role, content = message
        elif isinstance(message, dict) and {"role", "content"} <= set(message):
            role, content = message["role"], message["content"]
        else:
            raise TypeError(f"message {index}: expected a BaseMessage, (role, content) or {{role, content}}")
        if role not in roles:
            raise ValueError(f"message {index}: unknown role {role!r}")
        normalised.append({"role": roles[role], "content": content if isinstance(content, str) else
                           json.dumps(content, ensure_ascii=False)})
    return normalised
