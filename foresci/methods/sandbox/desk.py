"""foresci's side of the tool channel: the requests a sandboxed plug-in may make, answered in this process.

``tool``: one of the four KB tools of the task (:class:`~foresci.agents.tools.KBTools`, bound to the task
cutoff and tool budget; every call logged into the support artifact and the transcript as for any method).
``calls_left``: the task's remaining tool budget. ``llm``: a text or structured call through the run's
:class:`~foresci.llm.LLMClient` (the API key, the response cache and the transcript stay here; the call
is counted on the row). ``http``: a chat-completion request of the plug-in's own ``ChatOpenAI``, relayed
to the endpoint (:mod:`foresci.methods.sandbox.relay`). Anything else, or arguments of the wrong type, is
refused with an error the plug-in sees as an exception.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

TOOL_ARGUMENTS: dict[str, dict[str, tuple[type, ...]]] = {
    "search": {"query": (str,), "k": (int, type(None))},
    "get_paper": {"paper_id": (str,)},
    "related_papers": {"paper_id": (str,), "k": (int, type(None))},
    "timeline": {"query": (str,), "k": (int,)},
}
MAX_K = 1000


class RequestRefused(ValueError):
    """A request the channel does not serve, or one whose arguments are malformed."""


def _arguments(name: str, message: dict[str, Any]) -> dict[str, Any]:
    allowed = TOOL_ARGUMENTS[name]
    arguments = {key: message[key] for key in allowed if key in message and message[key] is not None}
    for key, value in arguments.items():
        if not isinstance(value, allowed[key]) or isinstance(value, bool):
            raise RequestRefused(f"{name}: argument {key} must be {allowed[key][0].__name__}")
        if key == "k" and isinstance(value, int) and not 1 <= value <= MAX_K:
            raise RequestRefused(f"{name}: k must be between 1 and {MAX_K}")
    return arguments


def _as_json(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list):
        return [_as_json(item) for item in value]
    return value


def schema_stand_in(name: str, json_schema: dict[str, Any]) -> type[BaseModel]:
    """A model the LLM client can ask for on a plug-in's behalf: it sends ``json_schema`` and accepts an
    object that validates against it (checked with ``jsonschema`` where installed; the plug-in's process
    validates against its own model again)."""

    def model_json_schema(cls: type[BaseModel], *args: Any, **kwargs: Any) -> dict[str, Any]:
        return json_schema

    def model_validate(cls: type[BaseModel], obj: Any, *args: Any, **kwargs: Any) -> BaseModel:
        problem = _schema_problem(obj, json_schema)
        if problem:
            raise ValidationError.from_exception_data(name, [
                {"type": "value_error", "loc": (), "input": obj, "ctx": {"error": ValueError(problem)}}])
        return cls.model_construct(**obj)

    namespace = {"model_config": ConfigDict(extra="allow"), "__module__": __name__,
                 "model_json_schema": classmethod(model_json_schema),
                 "model_validate": classmethod(model_validate)}
    identifier = "".join(char if char.isalnum() else "_" for char in name)[:64] or "Schema"
    return type(identifier, (BaseModel,), namespace)


def _schema_problem(data: Any, json_schema: dict[str, Any]) -> str:
    if not isinstance(data, dict):
        return f"expected an object, got {type(data).__name__}"
    try:
        import jsonschema
    except ImportError:
        return ""
    try:
        jsonschema.validate(data, json_schema)
    except jsonschema.ValidationError as error:
        where = ".".join(str(part) for part in error.absolute_path) or "(root)"
        return f"{where}: {error.message[:300]}"
    except jsonschema.SchemaError as error:
        return f"the plug-in's schema is invalid: {error.message[:300]}"
    return ""


def serve(message: dict[str, Any], tools: Any, llm: Any) -> Any:
    """The result of one request from a plug-in's process; raises what the plug-in should see."""
    op = message.get("op")
    if op == "tool":
        name = message.get("name")
        if tools is None:
            raise RequestRefused("this method has no KB tools (needs_kb=False, or name-only mode)")
        if name not in TOOL_ARGUMENTS:
            raise RequestRefused(f"unknown tool {name!r}; the tools are {', '.join(TOOL_ARGUMENTS)}")
        return _as_json(getattr(tools, name)(**_arguments(name, message)))
    if op == "calls_left":
        if tools is None:
            raise RequestRefused("this method has no KB tools")
        return int(tools.calls_left)
    if op == "llm":
        if llm is None:
            raise RequestRefused("this method has no chat model (uses_llm=False)")
        messages = message.get("messages")
        if not isinstance(messages, list):
            raise RequestRefused("llm: messages must be a list")
        if message.get("kind") == "text":
            return llm.invoke_text(messages)
        if message.get("kind") == "structured":
            schema = message.get("schema")
            if not isinstance(schema, dict):
                raise RequestRefused("llm: schema must be a JSON schema object")
            stand_in = schema_stand_in(str(message.get("schema_name") or "Schema"), schema)
            return llm.invoke_structured(messages, stand_in).model_dump(mode="json")
        raise RequestRefused(f"llm: unknown kind {message.get('kind')!r} (text or structured)")
    if op == "http":
        if llm is None:
            raise RequestRefused("this method has no chat model (uses_llm=False)")
        from foresci.methods.sandbox.relay import relay

        body = message.get("body")
        if not isinstance(body, dict):
            raise RequestRefused("http: body must be a JSON object")
        return relay(llm, str(message.get("path")), body)
    raise RequestRefused(f"unknown request {op!r}")
