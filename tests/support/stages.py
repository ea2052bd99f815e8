"""Run the stages of ``make test`` one after another and print how long each took.

Usage: ``python3 tests/support/stages.py "NAME=COMMAND" ["NAME=COMMAND" ...]``. Each command runs in a
shell; the first one that fails stops the run. The table of stage wall times, CPU seconds of the stage's
processes (user + system, which a busy machine inflates far less than wall time) and the load average at
the start and end of each stage is printed at the end, also after a failure, and the exit status is the
failed stage's. Standard library only: it runs before the virtual environment exists.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass


@dataclass
class Stage:
    """One named shell command and, once run, its outcome."""

    name: str
    command: str
    seconds: float | None = None
    cpu_seconds: float = 0.0
    status: int | None = None
    load_before: float = 0.0
    load_after: float = 0.0


def parse_stage(argument: str) -> Stage:
    """``NAME=COMMAND`` -> Stage; a missing name or command is an error naming the argument."""
    name, separator, command = argument.partition("=")
    if not separator or not name.strip() or not command.strip():
        raise SystemExit(f"stages.py: expected NAME=COMMAND, got {argument!r}")
    return Stage(name.strip(), command.strip())


def run_stage(stage: Stage) -> int:
    """Run one stage's command, recording its wall time and the 1-minute load around it."""
    print(f"\n=== stage: {stage.name}: {stage.command}", flush=True)
    stage.load_before = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    stage.status = subprocess.call(stage.command, shell=True)
    stage.seconds = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    stage.cpu_seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    stage.load_after = os.getloadavg()[0]
    print(f"=== stage {stage.name}: {_clock(stage.seconds)}, exit {stage.status}", flush=True)
    return stage.status


def table(stages: list[Stage]) -> str:
    """The stage timings as a fixed-width table, with the total of the stages that ran."""
    width = max(len("stage"), *(len(stage.name) for stage in stages))
    lines = [f"{'stage':<{width}}  {'wall':>9}  {'CPU':>9}  {'load 1m start->end':>18}  result"]
    for stage in stages:
        if stage.seconds is None:
            lines.append(f"{stage.name:<{width}}  {'-':>9}  {'-':>9}  {'':>18}  not run")
            continue
        result = "ok" if stage.status == 0 else f"FAILED ({stage.status})"
        load = f"{stage.load_before:.2f} -> {stage.load_after:.2f}"
        lines.append(f"{stage.name:<{width}}  {_clock(stage.seconds):>9}  {_clock(stage.cpu_seconds):>9}  "
                     f"{load:>18}  {result}")
    total = sum(stage.seconds or 0.0 for stage in stages)
    cpu = sum(stage.cpu_seconds for stage in stages)
    lines.append(f"{'total':<{width}}  {_clock(total):>9}  {_clock(cpu):>9}  ({os.cpu_count()} CPUs)")
    return "\n".join(lines)


def _clock(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m {rest:02d}s"


def main(arguments: list[str]) -> int:
    stages = [parse_stage(argument) for argument in arguments]
    if not stages:
        raise SystemExit("stages.py: no stages given (NAME=COMMAND ...)")
    status = 0
    for stage in stages:
        status = run_stage(stage)
        if status != 0:
            break
    print("\n=== stage timings\n" + table(stages), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
