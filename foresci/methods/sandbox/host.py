"""Run a plug-in in its own confined process, one process per request, and serve its tool channel.

:func:`sandboxed_spec` asks a fresh process what the plug-in is (its name, flags, whether it forecasts)
and returns a :class:`~foresci.methods.registry.MethodSpec` whose ``answer`` and ``forecast`` start a new
process for each task or question: no state survives from one task to the next, so what a plug-in read at
one cutoff cannot reach a task with an earlier one. The process gets the public task (or question) and a
socket; foresci answers its tool and model requests (:mod:`foresci.methods.sandbox.desk`) until it sends
its result. A process that dies, reaches a limit (:class:`SandboxLimitExceeded`), or a plug-in that raises
(``sys.exit`` included), makes that task's error row, naming what happened and the tail of what it
printed. bubblewrap starts with an empty environment: nothing of foresci's reaches the sandbox.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
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
    locate_path,
    locate_plugin,
    with_extensions,
)
from foresci.methods.sandbox.desk import serve
from foresci.methods.sandbox.frames import ChannelError, FrameTooLarge, receive_frame, send_frame
from foresci.methods.sandbox.warden import Warden

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


class SandboxLimitExceeded(RuntimeError):
    """A plug-in's process reached one of its per-task limits (:mod:`foresci.core.sandbox_settings`) and
    was killed; the message names the limit and its setting."""


def limits_of(settings: Any) -> Any:
    """The sandbox limits of ``settings`` (the run's), or their defaults with the environment's
    ``FORESCI_SANDBOX__*`` values where no settings are at hand."""
    if settings is not None and getattr(settings, "sandbox", None) is not None:
        return settings.sandbox
    from foresci.core.light_settings import load_light_settings

    return load_light_settings().sandbox


SANDBOX_ENVIRONMENT = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
"""bubblewrap's own environment: nothing of foresci's (its process is the sandbox's ``/proc/1``)."""

CLOSED_GRACE_S = 5.0  # how long a process that closed its channel may take to exit before it is killed


def _end(process: Any) -> int | None:
    """Wait a little for ``process`` to end; its exit code, or None when it did not and was killed."""
    try:
        return int(process.wait(timeout=CLOSED_GRACE_S))
    except subprocess.TimeoutExpired:  # its message is the whole command line: never shown
        process.kill()
        process.wait()
        return None


def run_sandboxed(program: PluginProgram, request: dict[str, Any], tools: Any = None, llm: Any = None,
                  timings: Timings | None = None, limits: Any = None) -> dict[str, Any]:
    """Start the plug-in's process, send ``request``, serve its tool and model calls, return its result.

    The process runs under ``limits`` (:class:`~foresci.core.sandbox_settings.SandboxSettings`), watched
    by a :class:`~foresci.methods.sandbox.warden.Warden`; one that reaches a limit is killed and raises
    :class:`SandboxLimitExceeded` naming it."""
    timings = timings or Timings()
    limits = limits if limits is not None else limits_of(None)
    started = time.monotonic()
    ours, theirs = socket.socketpair()
    worker = [sys.executable, "-m", WORKER_MODULE]
    output_read, output_write = os.pipe()
    try:
        command = bwrap_command(worker, program.code, protected_paths(), theirs.fileno(),
                                tmp_bytes=limits.tmp_mb * 1024 * 1024)
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=output_write,
                                   stderr=output_write, pass_fds=(theirs.fileno(),),
                                   start_new_session=True, env=SANDBOX_ENVIRONMENT)
    except BaseException:
        os.close(output_read)
        raise
    finally:
        theirs.close()
        os.close(output_write)
    warden = Warden(process, output_read, limits, program.label)
    warden.start()
    try:
        with ours:
            try:
                return _converse(ours, program, request, limits, tools, llm, timings, started)
            except FrameTooLarge as error:
                process.kill()
                raise SandboxLimitExceeded(
                    f"plug-in {program.label}: sent a message of {error.size} bytes, over its cap of "
                    f"{limits.max_answer_bytes} bytes (sandbox.max_answer_bytes)") from None
            except OSError as error:  # the channel closed or broke (ChannelError, a reset, a broken pipe)
                code = _end(process)
                warden.stop()
                if warden.reason is not None:
                    raise SandboxLimitExceeded(f"plug-in {program.label}: {warden.reason}") from None
                printed = warden.tail()[-OUTPUT_TAIL:]
                if printed.startswith("bwrap:"):
                    raise SandboxUnavailable(f"plug-in {program.label}: bubblewrap failed: {printed}") \
                        from None
                if code is None:
                    raise PluginCrashed(f"plug-in {program.label}: closed its channel without a result and "
                                        f"was still running {CLOSED_GRACE_S:g} s later: killed") from None
                reason = error if isinstance(error, ChannelError) else "the channel broke"
                raise PluginCrashed(f"plug-in {program.label}: its process ended without a result "
                                    f"(exit code {code}; {reason}); it printed: {printed!r}") from None
    finally:
        if process.poll() is None:
            _end(process)
        warden.stop()
        os.close(output_read)
        timings.total_s = time.monotonic() - started


def _converse(channel: socket.socket, program: PluginProgram, request: dict[str, Any], limits: Any,
              tools: Any, llm: Any, timings: Timings, started: float) -> dict[str, Any]:
    """Send ``request`` and serve the plug-in's requests until it sends its result (or fails)."""
    limited = limits.model_dump(mode="json") if hasattr(limits, "model_dump") else {}
    send_frame(channel, {**request, "program": program.wire, "limits": limited})
    first = True
    while True:
        message = receive_frame(channel, max_bytes=limits.max_answer_bytes)
        if first:
            timings.startup_s = time.monotonic() - started
            first = False
        op = message.get("op")
        if op == "done":
            return message
        if op == "failed":
            raise _failed(program, message)
        called = time.monotonic()
        try:
            reply: dict[str, Any] = {"ok": serve(message, tools, llm)}
        except Exception as error:  # refused or failed: the plug-in sees the exception
            reply = {"error": {"type": type(error).__name__,
                               "message": " ".join(str(error).split())[:2000]}}
        timings.tool_s.append(time.monotonic() - called)
        send_frame(channel, reply)


def _failed(program: PluginProgram, message: dict[str, Any]) -> Exception:
    from foresci.methods.references import MethodLoadError

    if message.get("load_error"):
        return MethodLoadError(str(message["load_error"]))
    if message.get("limit"):
        return SandboxLimitExceeded(f"plug-in {program.label}: {message['limit']}")
    return plugin_failure(str(message.get("type") or "Exception"), str(message.get("message") or ""))


def describe(program: PluginProgram, limits: Any = None) -> dict[str, Any]:
    """What the plug-in declares (name, needs_kb, uses_llm, forecast, shipped, version, the families it
    answers), read in its own process."""
    try:
        return run_sandboxed(program, {"op": "describe"}, limits=limits)
    except PluginCrashed as error:
        raise SandboxUnavailable(f"{error} (pass --trust-plugin to run it inside foresci's process)") \
            from error


def _public_settings(inputs: MethodInput | ForecastInput) -> dict[str, Any] | None:
    return inputs.settings.public_dump() if inputs.settings is not None else None


def _limits(inputs: MethodInput | ForecastInput, default: Any) -> Any:
    return inputs.settings.sandbox if inputs.settings is not None else default


def sandboxed_spec(program: PluginProgram, settings: Any = None) -> MethodSpec:
    """The method ``program`` declares, answering each task and question in a new confined process under
    the sandbox limits of the run's settings (else of ``settings``, else the defaults)."""
    default = limits_of(settings)
    declared = describe(program, default)

    def answer(inputs: MethodInput) -> MethodResult:
        timings = Timings()
        request = {"op": "answer", "task": inputs.task.model_dump(mode="json"), "mode": inputs.mode,
                   "cutoff": inputs.task.cutoff.isoformat(), "model": inputs.model,
                   "settings": _public_settings(inputs), "tools": inputs.tools is not None,
                   "llm": inputs.llm is not None}
        try:
            reply = run_sandboxed(program, request, inputs.tools, inputs.llm, timings,
                                  _limits(inputs, default))
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
            return run_sandboxed(program, request, inputs.tools, inputs.llm, timings,
                                 _limits(inputs, default)).get("forecast")
        finally:
            _record(timings)

    return MethodSpec(name=program.name or str(declared["name"]), answer=answer,
                      needs_kb=bool(declared["needs_kb"]), uses_llm=bool(declared["uses_llm"]),
                      forecast=forecast if declared.get("forecast") else None, shipped=False,
                      source=program.label,
                      isolated=True, version=plugin_version(declared.get("version"), program.reference),
                      families=(frozenset(str(name) for name in declared["families"])
                                if declared.get("families") is not None else None))


def _record(timings: Timings) -> None:
    record("sandbox", startup_ms=round(timings.startup_s * 1000, 1),
           tool_calls=len(timings.tool_s), channel_ms=round(sum(timings.tool_s) * 1000, 1),
           total_ms=round(timings.total_s * 1000, 1))


def program_for(reference: str, label: str, name: str | None = None,
                entry_point: bool = False) -> PluginProgram:
    """The :class:`PluginProgram` of ``path/agent.py:object``, ``path/package:object`` or
    ``module:object`` (its module located without importing it, never from foresci's own import path when
    named by path)."""
    from foresci.methods.references import is_path_reference

    if is_path_reference(reference) and not entry_point:
        where, _, attribute = reference.rpartition(":")
        module, code = locate_path(Path(where))
        return PluginProgram(reference=f"{module}:{attribute}", label=label, code=with_extensions(code),
                             name=name)
    module = reference.partition(":")[0]
    return PluginProgram(reference=reference, label=label, code=with_extensions(locate_plugin(module)),
                         name=name, entry_point=entry_point)
