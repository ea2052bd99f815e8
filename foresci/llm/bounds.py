"""Bounded structured output: caps on free text and free lists in the JSON schema sent, and the reply
length those caps allow.

A small model asked for free text often loops ("The mechanism linking the two is ... The mechanism
linking the two is ...") until the token limit cuts the reply, and the cut reply is lost. With
:func:`bounded_schema` every free-text string of the schema sent carries ``maxLength`` and every list
without a size of its own carries ``maxItems``; a server that turns the schema into a grammar (llama.cpp's
function calling, ``json_object`` with a schema, GBNF) then closes each field at its cap, so the reply
always ends as valid JSON. :func:`reply_token_bound` is the longest reply such a schema allows, in tokens,
so the token limit can be set where that reply fits.

Strings with an ``enum``, ``const``, ``pattern`` or ``format`` and lists with a size (a ranking holds
every option exactly once) are left alone. Parsing still uses the unbounded pydantic schema: the caps
shape the request, never what is accepted.
"""

from __future__ import annotations

import copy
import math
from typing import Any

# Characters per token of a worst-case reply: free text in a small model's tokenizer, with invented words
# and ids, runs about 3 characters a token; 2.5 leaves room.
REPLY_CHARS_PER_TOKEN = 2.5
_NUMBER_CHARS = 24
_SLACK_TOKENS = 16


UNASKED = "x-foresci-unasked"
"""A property carrying this key (true) is left out of the schema a request sends: an optional field a model
is not asked for (a family answer's ``probabilities``, :mod:`foresci.tasks.option_probabilities`)."""


def without_unasked(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` without the properties marked :data:`UNASKED` (in the schema and its ``$defs``; a copy,
    or ``schema`` itself when none is marked)."""
    if UNASKED not in str(schema):
        return schema
    trimmed = copy.deepcopy(schema)
    for node in [trimmed, *(trimmed.get("$defs") or {}).values()]:
        properties = node.get("properties")
        if not isinstance(properties, dict):
            continue
        dropped = [name for name, value in properties.items()
                   if isinstance(value, dict) and value.get(UNASKED)]
        for name in dropped:
            properties.pop(name)
        if dropped and isinstance(node.get("required"), list):
            node["required"] = [name for name in node["required"] if name not in dropped]
    return trimmed


def bounded_schema(schema: dict[str, Any], max_chars: int | None, max_items: int | None) -> dict[str, Any]:
    """``schema`` with ``maxLength`` on free-text strings and ``maxItems`` on unsized lists (a copy;
    ``schema`` itself when both caps are None)."""
    if max_chars is None and max_items is None:
        return schema
    bounded = copy.deepcopy(schema)
    _bound(bounded, max_chars, max_items)
    for definition in (bounded.get("$defs") or {}).values():
        _bound(definition, max_chars, max_items)
    return bounded


def _bound(node: Any, max_chars: int | None, max_items: int | None) -> None:
    if isinstance(node, list):
        for item in node:
            _bound(item, max_chars, max_items)
        return
    if not isinstance(node, dict):
        return
    kind = node.get("type")
    if kind == "string" and max_chars is not None and not {"enum", "const", "pattern", "format"} & set(node):
        node["maxLength"] = min(int(node.get("maxLength", max_chars)), max_chars)
    if kind == "array" and max_items is not None and "maxItems" not in node:
        node["maxItems"] = max(int(node.get("minItems", 0)), max_items)
    for key, value in node.items():
        if key != "$defs" and isinstance(value, dict | list):
            _bound(value, max_chars, max_items)


def reply_char_bound(schema: dict[str, Any]) -> int | None:
    """The most characters a compact JSON reply valid under ``schema`` can take (None when unbounded)."""
    return _chars(schema, schema.get("$defs") or {}, 0)


def reply_token_bound(schema: dict[str, Any]) -> int | None:
    """:func:`reply_char_bound` in tokens (generously), or None when the schema allows any length."""
    chars = reply_char_bound(schema)
    return None if chars is None else math.ceil(chars / REPLY_CHARS_PER_TOKEN) + _SLACK_TOKENS


def _chars(node: dict[str, Any], definitions: dict[str, Any], depth: int) -> int | None:
    if depth > 20:
        return None
    if "$ref" in node:
        target = definitions.get(str(node["$ref"]).rsplit("/", 1)[-1])
        return None if target is None else _chars(target, definitions, depth + 1)
    if "enum" in node or "const" in node:
        values = node.get("enum", [node.get("const")])
        return max((len(str(value)) + 2 for value in values), default=2)
    for union in ("anyOf", "oneOf"):
        if union in node:
            sizes = [_chars(option, definitions, depth + 1) for option in node[union]]
            return None if any(size is None for size in sizes) else max(size or 0 for size in sizes)
    kind = node.get("type")
    if kind == "string":
        return None if "maxLength" not in node else int(node["maxLength"]) + 2
    if kind in ("number", "integer"):
        return _NUMBER_CHARS
    if kind == "boolean":
        return 5
    if kind == "null":
        return 4
    if kind == "array":
        items = node.get("items")
        if "maxItems" not in node or not isinstance(items, dict):
            return None
        size = _chars(items, definitions, depth + 1)
        return None if size is None else 2 + int(node["maxItems"]) * (size + 1)
    if kind == "object":
        properties = node.get("properties") or {}
        if node.get("additionalProperties") not in (False, None) or not properties:
            return None
        total = 2
        for name, value in properties.items():
            size = _chars(value, definitions, depth + 1)
            if size is None:
                return None
            total += len(name) + 4 + size
        return total
    return None
