"""foresci's watch over one sandboxed plug-in process: its limits, enforced from outside the sandbox.

A :class:`Warden` thread, started beside the process, reads what the plug-in prints through a pipe
(keeping only the tail, counting the rest) and every :data:`POLL_S` seconds reads the process tree under
bubblewrap in ``/proc``: how many processes and threads it holds, the CPU time they used (reaped children
included) and their resident memory. When the wall deadline passes or a limit is reached it kills the
sandbox (bubblewrap's own process; the sandbox dies with it) and keeps the reason, which the host reports
as the task's error row. Nothing of this runs inside the sandbox, so the plug-in cannot stop it; inside,
the worker also sets per-process resource limits (:func:`foresci.methods.sandbox.worker.apply_limits`)
that the kernel enforces at once (an allocation over the memory limit fails there with ``MemoryError``).
"""

from __future__ import annotations

import os
import select
import threading
import time
from collections import deque
from typing import Any

POLL_S = 0.1
TAIL_BYTES = 4096
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")


_HAS_CHILDREN_FILES = os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children")


def _children(pid: int) -> list[int]:
    """The children of ``pid`` (``/proc/PID/task/TID/children``, or every process's parent where the
    kernel has no such file)."""
    found: list[int] = []
    if not _HAS_CHILDREN_FILES:
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    with open(f"/proc/{name}/stat") as handle:
                        if int(handle.read().rpartition(")")[2].split()[1]) == pid:
                            found.append(int(name))
                except (OSError, IndexError, ValueError):
                    continue
        return found
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for thread in threads:
        try:
            with open(f"/proc/{pid}/task/{thread}/children") as handle:
                found += [int(child) for child in handle.read().split()]
        except OSError:
            continue
    return found


def tree_usage(root: int) -> tuple[int, float, int]:
    """Threads (of every process), CPU seconds (live processes and the children they reaped) and
    resident bytes of the process tree under ``root``."""
    threads, ticks, resident = 0, 0, 0
    pending, seen = [root], set()
    while pending:
        pid = pending.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            with open(f"/proc/{pid}/stat") as handle:
                fields = handle.read().rpartition(")")[2].split()
            with open(f"/proc/{pid}/statm") as handle:
                resident += int(handle.read().split()[1]) * _PAGE_BYTES
        except (OSError, IndexError, ValueError):
            continue
        # fields after the name: state=0 ... utime=11 stime=12 cutime=13 cstime=14 num_threads=17
        ticks += sum(int(value) for value in fields[11:15])
        threads += int(fields[17])
        pending += _children(pid)
    return threads, ticks / _CLOCK_TICKS, resident


class Warden(threading.Thread):
    """Watch ``process`` (bubblewrap) against ``limits`` (:class:`~foresci.core.sandbox_settings.
    SandboxSettings`), draining its output pipe ``output_fd``; :attr:`reason` says why it was killed."""

    def __init__(self, process: Any, output_fd: int, limits: Any, label: str) -> None:
        super().__init__(daemon=True, name=f"sandbox warden {label}")
        self.process = process
        self.output_fd = output_fd
        self.limits = limits
        self.label = label
        self.reason: str | None = None
        self.printed = 0
        self._tail: deque[bytes] = deque()
        self._tail_size = 0
        self._deadline = time.monotonic() + limits.deadline_s
        self._done = threading.Event()

    def tail(self) -> str:
        """The last :data:`TAIL_BYTES` bytes the plug-in printed, as one line of text."""
        return " ".join(b"".join(self._tail).decode("utf-8", "replace").split())

    def _keep(self, chunk: bytes) -> None:
        self.printed += len(chunk)
        self._tail.append(chunk)
        self._tail_size += len(chunk)
        while self._tail_size - len(self._tail[0]) >= TAIL_BYTES:
            self._tail_size -= len(self._tail.popleft())

    def _kill(self, reason: str) -> None:
        if self.reason is None:
            self.reason = reason
        if self.process.poll() is None:
            self.process.kill()

    def _check(self) -> None:
        limits = self.limits
        if time.monotonic() > self._deadline:
            self._kill(f"ran past its wall deadline of {limits.deadline_s:g} s (sandbox.deadline_s)")
            return
        threads, cpu, resident = tree_usage(self.process.pid)
        # bubblewrap's two processes outside the plug-in's count toward neither limit
        if threads - 2 > limits.processes:
            self._kill(f"reached its limit of {limits.processes} processes and threads (sandbox.processes)")
        elif cpu > limits.cpu_s:
            self._kill(f"used its CPU time limit of {limits.cpu_s:g} s (sandbox.cpu_s)")
        elif resident > limits.memory_mb * 1024 * 1024:
            self._kill(f"reached its memory limit of {limits.memory_mb} MiB (sandbox.memory_mb)")

    def run(self) -> None:
        """Drain the output and check the limits until the output pipe closes and the process ended."""
        open_pipe = True
        next_check = 0.0
        while not self._done.is_set():
            if open_pipe:
                ready, _, _ = select.select([self.output_fd], [], [], POLL_S)
                if ready:
                    chunk = os.read(self.output_fd, 1 << 16)
                    if not chunk:
                        open_pipe = False
                    else:
                        self._keep(chunk)
                        if self.printed > self.limits.max_output_bytes:
                            self._kill(f"printed more than its output cap of {self.limits.max_output_bytes} "
                                       "bytes (sandbox.max_output_bytes)")
            else:
                self._done.wait(POLL_S)
            if self.process.poll() is not None:
                if not open_pipe:
                    return
                continue  # read what is left in the pipe
            now = time.monotonic()
            if now >= next_check:
                next_check = now + POLL_S
                self._check()

    def stop(self) -> None:
        """End the watch (the process has ended) and wait for the thread."""
        self._done.set()
        self.join(timeout=5)
