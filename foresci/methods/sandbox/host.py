"""Run a plug-in in its own confined process, one process per request, and serve its tool channel.

:func:`sandboxed_spec` asks a fresh process what the plug-in is (its name, flags, whether it forecasts)
and returns a :class:`~foresci.methods.registry.MethodSpec` whose ``answer`` and ``forecast`` start a new
process for each task or question: no state survives from one task to the next, so what a plug-in read at
one cutoff cannot reach a task with an earlier one. The process gets the public task (or question) and a
socket; foresci answers its tool and model requests (:mod:`foresci.methods.sandbox.desk`) until it sends
its result. A process that dies, or a plug-in that raises (``sys.exit`` included), makes that task's error
row, naming what happened and the tail of what it printed.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from foresci.core.transcripts import record
from foresci.methods.identity import plugin_version
from foresci.methods.registry import ForecastInput, MethodInput, MethodResult, MethodSpec
from foresci.methods.sandbox.confine import (
    PluginCode,
    SandboxUnavailable,
    bwrap_command,
    locate_plugin,
    with_extensions,
)
from foresci.methods.sandbox.desk import serve
from foresci.methods.sandbox.frames import ChannelError, receive_frame, send_frame

WORKER_MODULE = "foresci.methods.sandbox.worker"
OUTPUT_TAIL = 600


class PluginFailure(RuntimeError):
    """A plug-in's process reported an exception (the row names the plug-in's own exception type)."""


class PluginCrashed(RuntimeError):
    """A plug-in's process ended without a result."""


def plugin_failure(kind: str, message: str) -> PluginFailure:
    """A :class:`PluginFailure` whose type name is the plug-in's own (so rows read ``KeyError: ...``)."""
    name = kind if kind.isidentifier() else "PluginFailure"
    error_type = type(name, (PluginFailure,), {"__module__": "plugin"})
    return error_type(message)


@dataclass(frozen=True)
class PluginProgram:
    """A plug-in to run sandboxed: ``reference`` (``module:object``) and its code's folders."""

    reference: str
    label: str
    code: PluginCode
    name: str | None = None
    entry_point: bool = False

    @property
    def wire(self) -> dict[str, Any]:
        """What the process needs to import it."""
        return {"reference": self.reference, "name": self.name, "entry_point": self.entry_point}


@dataclass
class Timings:
    """Where a sandboxed request's time went (for the benchmark and the transcript)."""

    startup_s: float = 0.0
    tool_s: list[float] = field(default_factory=list)
    total_s: float = 0.0


def protected_paths() -> list[Path]:
    """The folders the run protects (release, KB, run, caches; :func:`foresci.methods.wall.protect`)."""
    from foresci.methods.wall import protected_roots

    return protected_roots()


def _tail(log: Any) -> str:
    log.flush()
    log.seek(0, os.SEEK_END)
    size = log.tell()
    log.seek(max(0, size - 4 * OUTPUT_TAIL))
    text = " ".join(log.read().decode("utf-8", "replace").split())
    return text[-OUTPUT_TAIL:]


def run_sandboxed(program: PluginProgram, request: dict[str, Any], tools: Any = None, llm: Any = None,
                  timings: Timings | None = None) -> dict[str, Any]:
    """Start the plug-in's process, send ``request``, serve its tool and model calls, return its result."""
    timings = timings or Timings()
    started = time.monotonic()
    ours, theirs = socket.socketpair()
    worker = [sys.executable, "-m", WORKER_MODULE]
    with tempfile.TemporaryFile() as log:
        try:
            command = bwrap_command(worker, program.code, protected_paths(), theirs.fileno())
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                       pass_fds=(theirs.fileno(),), start_new_session=True)
        finally:
            theirs.close()
        try:
            with ours:
                send_frame(ours, {**request, "program": program.wire})
                first = True
                while True:
                    try:
                        message = receive_frame(ours)
                    except ChannelError as error:
                        code = process.wait(timeout=30)
                        raise PluginCrashed(f"plug-in {program.label}: its process ended without a result "
                                            f"(exit code {code}; {error}); it printed: {_tail(log)!r}") \
                            from error
                    if first:
                        timings.startup_s = time.monotonic() - started
                        first = False
                    op = message.get("op")
                    if op == "done":
                        return message
                    if op == "failed":
                        raise _failed(program, message, log)
                    called = time.monotonic()
                    try:
                        reply: dict[str, Any] = {"ok": serve(message, tools, llm)}
                    except Exception as error:  # refused or failed: the plug-in sees the exception
                        reply = {"error": {"type": type(error).__name__,
                                           "message": " ".join(str(error).split())[:2000]}}
                    timings.tool_s.append(time.monotonic() - called)
                    send_frame(ours, reply)
        finally:
            if process.poll() is None:
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            timings.total_s = time.monotonic() - started


def _failed(program: PluginProgram, message: dict[str, Any], log: Any) -> Exception:
    from foresci.methods.loading import MethodLoadError

    if message.get("load_error"):
        return MethodLoadError(str(message["load_error"]))
    kind, text = str(message.get("type") or "Exception"), str(message.get("message") or "")
    if "bwrap:" in _tail(log):
        return SandboxUnavailable(f"plug-in {program.label}: bubblewrap failed: {_tail(log)}")
    return plugin_failure(kind, text)


def describe(program: PluginProgram) -> dict[str, Any]:
    """What the plug-in declares (name, needs_kb, uses_llm, forecast, shipped), read in its own process."""
    try:
        return run_sandboxed(program, {"op": "describe"})
    except PluginCrashed as error:
        raise SandboxUnavailable(f"{error} (pass --trust-plugin to run it inside foresci's process)") \
            from error


def _public_settings(inputs: MethodInput | ForecastInput) -> dict[str, Any] | None:
    return inputs.settings.public_dump() if inputs.settings is not None else None


def sandboxed_spec(program: PluginProgram) -> MethodSpec:
    """The method ``program`` declares, answering each task and question in a new confined process."""
    declared = describe(program)

    def answer(inputs: MethodInput) -> MethodResult:
        timings = Timings()
        request = {"op": "answer", "task": inputs.task.model_dump(mode="json"), "mode": inputs.mode,
                   "cutoff": inputs.task.cutoff.isoformat(), "model": inputs.model,
                   "settings": _public_settings(inputs), "tools": inputs.tools is not None,
                   "llm": inputs.llm is not None}
        try:
            reply = run_sandboxed(program, request, inputs.tools, inputs.llm, timings)
        finally:
            _record(timings)
        return MethodResult(answer=reply["answer"], support=reply.get("support"),
                            contract=reply.get("contract"),
                            contract_notes=list(reply.get("contract_notes") or []))

    def forecast(question: Any, inputs: ForecastInput) -> Any:
        timings = Timings()
        request = {"op": "forecast", "question": question.model_dump(mode="json"),
                   "cutoff": question.cutoff.isoformat(), "model": inputs.model,
                   "settings": _public_settings(inputs), "tools": inputs.tools is not None,
                   "llm": inputs.llm is not None}
        try:
            return run_sandboxed(program, request, inputs.tools, inputs.llm, timings).get("forecast")
        finally:
            _record(timings)

    return MethodSpec(name=program.name or str(declared["name"]), answer=answer,
                      needs_kb=bool(declared["needs_kb"]), uses_llm=bool(declared["uses_llm"]),
                      forecast=forecast if declared.get("forecast") else None, shipped=False,
                      source=program.reference if not program.entry_point else program.label,
                      isolated=True, version=plugin_version(declared.get("version"), program.reference))


def _record(timings: Timings) -> None:
    record("sandbox", startup_ms=round(timings.startup_s * 1000, 1),
           tool_calls=len(timings.tool_s), channel_ms=round(sum(timings.tool_s) * 1000, 1),
           total_ms=round(timings.total_s * 1000, 1))


def program_for(reference: str, label: str, name: str | None = None,
                entry_point: bool = False) -> PluginProgram:
    """The :class:`PluginProgram` of ``module:object`` (its module located without importing it)."""
    module = reference.partition(":")[0]
    return PluginProgram(reference=reference, label=label, code=with_extensions(locate_plugin(module)),
                         name=name, entry_point=entry_point)
