"""The sandboxed side of a plug-in: ``python -m foresci.methods.sandbox.worker FD`` inside bubblewrap.

It reads one request from the socket ``FD`` (describe the plug-in, answer a task, or answer a forecast
question), imports the plug-in, runs it and sends the result back. The plug-in's KB tools and chat-model
client are stand-ins whose every call is a request on the same socket, answered by foresci outside the
sandbox (:mod:`foresci.methods.sandbox.host`): the process never holds a KB, a release or an API key.
Anything the plug-in raises, ``sys.exit`` included, goes back as a failure naming its type.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
from datetime import date
from typing import Any

from pydantic import BaseModel

from foresci.methods.sandbox.frames import receive_frame, send_frame


class Channel:
    """The socket to foresci; one request and its reply at a time (plug-ins may call tools from threads)."""

    def __init__(self, connection: socket.socket) -> None:
        self.connection = connection
        self.lock = threading.Lock()

    def call(self, message: dict[str, Any]) -> Any:
        """Send a request and return its result, or raise the error foresci answered with."""
        with self.lock:
            send_frame(self.connection, message)
            reply = receive_frame(self.connection)
        if "error" in reply:
            raise remote_error(reply["error"].get("type", "RuntimeError"), reply["error"].get("message", ""))
        return reply.get("ok")


def remote_error(kind: str, message: str) -> Exception:
    """The exception a failed request raises in the plug-in (the tool budget's own type where known)."""
    if kind == "ToolBudgetExceeded":
        from foresci.agents.tools import ToolBudgetExceeded

        return ToolBudgetExceeded(message)
    if kind in ("LLMError", "LLMOutputError", "LLMRequestError"):
        from foresci.llm import errors

        error_type = getattr(errors, kind)
        return error_type(message) if kind != "LLMOutputError" else error_type(message, [])
    return RuntimeError(f"{kind}: {message}")


class RemoteTools:
    """A task's KB tools (``search``, ``get_paper``, ``related_papers``, ``timeline``, ``calls_left``,
    ``cutoff``), each call answered by foresci outside the sandbox at the task's cutoff and budget."""

    __slots__ = ("_channel", "cutoff")

    def __init__(self, channel: Channel, cutoff: date) -> None:
        self._channel = channel
        self.cutoff = cutoff

    def _papers(self, data: Any) -> Any:
        from foresci.kb.models import Paper

        if data is None:
            return None
        if isinstance(data, list):
            return [Paper.model_validate(item) for item in data]
        return Paper.model_validate(data)

    def search(self, query: str, k: int | None = None) -> list[Any]:
        """Papers (on or before the cutoff) most relevant to ``query``, best first."""
        return self._papers(self._channel.call({"op": "tool", "name": "search", "query": query, "k": k}))

    def get_paper(self, paper_id: str) -> Any:
        """One paper by id, or None when absent or announced after the cutoff."""
        return self._papers(self._channel.call({"op": "tool", "name": "get_paper", "paper_id": paper_id}))

    def related_papers(self, paper_id: str, k: int | None = None) -> list[Any]:
        """Papers close to ``paper_id``, excluding itself, oldest first."""
        return self._papers(self._channel.call({"op": "tool", "name": "related_papers", "paper_id": paper_id,
                                                "k": k}))

    def timeline(self, query: str, k: int = 60) -> dict[str, Any]:
        """Monthly counts of the top-``k`` papers matching ``query`` beside the domain's monthly totals."""
        return dict(self._channel.call({"op": "tool", "name": "timeline", "query": query, "k": k}))

    def calls_left(self) -> int:
        """Tool calls still allowed for this task."""
        return int(self._channel.call({"op": "calls_left"}))

    def as_langchain(self) -> list[Any]:
        """These tools as LangChain tools (``search_papers``, ``get_paper``, ``related_papers``,
        ``timeline``) for a LangGraph agent (:func:`foresci.agents.langchain_tools.kb_langchain_tools`)."""
        from foresci.agents.langchain_tools import kb_langchain_tools

        return kb_langchain_tools(self)


ROLES = {"human": "user", "ai": "assistant", "system": "system", "user": "user", "assistant": "assistant"}


def message_dicts(messages: Any) -> list[dict[str, str]]:
    """Messages (``(role, content)``, ``{"role", "content"}`` or LangChain messages) as plain dicts."""
    import json

    plain: list[dict[str, str]] = []
    for index, message in enumerate(messages):
        if isinstance(message, tuple) and len(message) == 2:
            role, content = message
        elif isinstance(message, dict) and {"role", "content"} <= set(message):
            role, content = message["role"], message["content"]
        elif hasattr(message, "type") and hasattr(message, "content"):
            role, content = message.type, message.content
        else:
            raise TypeError(f"message {index}: expected a BaseMessage, (role, content) or {{role, content}}")
        if role not in ROLES:
            raise ValueError(f"message {index}: unknown role {role!r}")
        plain.append({"role": ROLES[role], "content": content if isinstance(content, str)
                      else json.dumps(content, ensure_ascii=False)})
    return plain


class RemoteLLM:
    """The chat-model client of the ``--model`` backbone, called through foresci (which holds the key,
    the response cache and the transcript): ``invoke_text`` and ``invoke_structured``."""

    def __init__(self, channel: Channel, model: str | None, settings: Any = None) -> None:
        self._channel = channel
        self.model = model
        self._settings = settings
        self._chat: Any = None

    def invoke_text(self, messages: Any) -> str:
        """The model's text answer to ``messages``."""
        return str(self._channel.call({"op": "llm", "kind": "text", "messages": message_dicts(messages)}))

    def invoke_structured(self, messages: Any, schema: type[Any]) -> Any:
        """The model's answer parsed into the pydantic model ``schema``."""
        from pydantic import ValidationError

        data = self._channel.call({"op": "llm", "kind": "structured", "messages": message_dicts(messages),
                                   "schema_name": schema.__name__, "schema": schema.model_json_schema()})
        try:
            return schema.model_validate(data)
        except ValidationError as error:
            from foresci.llm.errors import LLMOutputError

            raise LLMOutputError(f"model {self.model!r}: output does not match {schema.__name__}: "
                                 f"{error.errors()[0].get('msg', 'invalid')}", []) from error

    @property
    def chat(self) -> Any:
        """A LangChain ``ChatOpenAI`` of the backbone whose requests foresci relays (recorded, cached)."""
        if self._chat is None:
            from langchain_openai import ChatOpenAI

            from foresci.methods.sandbox.shim import start_shim

            temperature = self._settings.llm.temperature if self._settings is not None else 0.0
            self._chat = ChatOpenAI(base_url=start_shim(self._channel), model=self.model or "model",
                                    api_key="relayed-by-foresci", temperature=temperature, max_retries=0)
        return self._chat


def as_json(value: Any) -> Any:
    """A model as JSON data; anything else as it is (the channel refuses what is not JSON)."""
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else value


def load_program(program: dict[str, Any]) -> Any:
    """The plug-in's :class:`~foresci.methods.registry.MethodSpec`, imported here in the sandbox."""
    from foresci.methods.loading import load_entry_point, load_object

    if program.get("entry_point"):
        from importlib.metadata import EntryPoint

        return load_entry_point(EntryPoint(name=program["name"], value=program["reference"],
                                           group="foresci.methods"))
    return load_object(program["reference"])


class LazySettings:
    """The run's public settings (secrets masked), built as a ``Settings`` on first use: most plug-ins
    never read them, and importing the settings machinery is a third of a process's start-up."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data
        self._settings: Any = None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if self._settings is None:
            from foresci.core.settings import Settings

            self._settings = Settings.model_validate(self._data)
        return getattr(self._settings, name)


def settings_of(data: dict[str, Any] | None) -> Any:
    """The run's public settings as a lazily built Settings, or None."""
    return LazySettings(data) if data is not None else None


def handle(request: dict[str, Any], channel: Channel) -> dict[str, Any]:
    """Run one request (describe, answer, forecast) and return what goes back."""
    spec = load_program(request["program"])
    if request["op"] == "describe":
        return {"name": spec.name, "needs_kb": spec.needs_kb, "uses_llm": spec.uses_llm,
                "forecast": spec.forecast is not None, "shipped": spec.shipped,
                "version": spec.version,
                "families": sorted(spec.families) if spec.families is not None else None}
    from foresci.methods.registry import ForecastInput, MethodInput, MethodResult

    cutoff = date.fromisoformat(request["cutoff"])
    tools = RemoteTools(channel, cutoff) if request.get("tools") else None
    settings = settings_of(request.get("settings"))
    llm = RemoteLLM(channel, request.get("model"), settings) if request.get("llm") else None
    if request["op"] == "forecast":
        from foresci.tasks.models import ForecastQuestion

        if spec.forecast is None:
            raise NotImplementedError(f"method {spec.name} does not answer forecast questions")
        question = ForecastQuestion.model_validate(request["question"])
        raw = spec.forecast(question, ForecastInput(tools=tools, llm=llm, settings=settings,  # type: ignore[arg-type]
                                                    model=request.get("model")))
        return {"forecast": as_json(raw)}
    from foresci.tasks.models import Task

    task = Task.model_validate(request["task"])
    inputs = MethodInput(task=task, mode=request["mode"], tools=tools, llm=llm,  # type: ignore[arg-type]
                         settings=settings, model=request.get("model"))
    raw = spec.answer(inputs)
    result = raw if isinstance(raw, MethodResult) else MethodResult(answer=raw)
    return {"answer": as_json(result.answer), "support": as_json(result.support),
            "contract": result.contract, "contract_notes": list(result.contract_notes)}


def apply_limits(limits: dict[str, Any]) -> None:
    """Set this process's resource limits from the run's sandbox settings, before the plug-in is imported:
    address space (``memory_mb``), CPU seconds (a backstop a little above ``cpu_s``: foresci's warden
    counts all the plug-in's processes together), processes (``processes``; the kernel counts them for
    an unprivileged user), file size (``tmp_mb``) and no core files. A plug-in cannot raise them again."""
    import math
    import resource
    import signal

    def lower(which: int, value: int) -> None:
        soft, hard = resource.getrlimit(which)
        hard = value if hard == resource.RLIM_INFINITY else min(hard, value)
        resource.setrlimit(which, (min(value, hard), hard))

    if "memory_mb" in limits:
        lower(resource.RLIMIT_AS, int(limits["memory_mb"]) * 1024 * 1024)
    if "cpu_s" in limits:
        lower(resource.RLIMIT_CPU, math.ceil(float(limits["cpu_s"])) + 2)
    if "processes" in limits:
        lower(resource.RLIMIT_NPROC, int(limits["processes"]))
    if "tmp_mb" in limits:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG), not the process
        lower(resource.RLIMIT_FSIZE, int(limits["tmp_mb"]) * 1024 * 1024)
    lower(resource.RLIMIT_CORE, 0)


def limit_reached(error: BaseException, limits: dict[str, Any]) -> str | None:
    """The limit ``error`` says the plug-in reached (memory, writable space, processes), in words."""
    import errno

    if isinstance(error, MemoryError) and "memory_mb" in limits:
        return f"reached its memory limit of {limits['memory_mb']} MiB (sandbox.memory_mb)"
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT) \
            and "tmp_mb" in limits:
        return f"filled its writable space of {limits['tmp_mb']} MiB (sandbox.tmp_mb)"
    if isinstance(error, BlockingIOError) and error.errno == errno.EAGAIN and "processes" in limits:
        return f"reached its limit of {limits['processes']} processes and threads (sandbox.processes)"
    return None


def failure(error: BaseException, limits: dict[str, Any] | None = None) -> dict[str, Any]:
    """What goes back for an exception the plug-in raised (``sys.exit`` and Ctrl-C included)."""
    from foresci.methods.references import MethodLoadError

    if isinstance(error, SystemExit):
        message = f"the plug-in called sys.exit({error.code!r})"
    else:
        message = " ".join(str(error).split())[:2000]
    load_error = error.message if isinstance(error, MethodLoadError) else None
    return {"op": "failed", "type": type(error).__name__, "message": message, "load_error": load_error,
            "limit": limit_reached(error, limits or {})}


def main(argv: list[str]) -> int:
    """Serve one request on the socket named by ``argv[1]``."""
    connection = socket.socket(fileno=int(argv[1]))
    channel = Channel(connection)
    request = receive_frame(connection)
    limits = request.get("limits") or {}
    apply_limits(limits)
    try:
        reply: dict[str, Any] = {"op": "done", **handle(request, channel)}
    except BaseException as error:  # noqa: BLE001 — every failure, sys.exit included, goes back as one
        reply = failure(error, limits)
    try:
        with channel.lock:
            send_frame(connection, reply)
    except (TypeError, ValueError) as error:  # a result that is not JSON
        with channel.lock:
            send_frame(connection, {"op": "failed", "type": "MethodOutputError", "load_error": None,
                                    "message": f"the plug-in's result is not JSON data: {error}"})
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # threads the plug-in left running end with the process


if __name__ == "__main__":
    main(sys.argv)
