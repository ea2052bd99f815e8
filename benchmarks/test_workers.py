"""Does pytest-xdist pay on this machine? Run the same tests serially and with N workers, print both.

    python benchmarks/test_workers.py [--workers 2] [--marker "not slow"] [PATH ...]

Each mode runs ``python -m pytest`` in a fresh process (the same interpreter; ``--dist loadfile`` as
``make test`` runs it) and is timed by wall clock and by the CPU seconds of the process tree; the load
average and CPU count are printed beside them. Exits non-zero when the workers are not faster than the
serial run, or when either run fails.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def timed_pytest(paths: list[str], marker: str, workers: int) -> tuple[float, float, int]:
    """(wall s, CPU s of the pytest process tree, exit status) of one pytest run."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", marker,
               "-n", str(workers), *(["--dist", "loadgroup"] if workers else []), *paths]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    status = subprocess.call(command, cwd=REPO, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, status


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=["tests/taxonomy", "tests/evaluation"])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--marker", default="not slow")
    args = parser.parse_args()
    results = {}
    for label, workers in (("serial", 0), (f"-n {args.workers}", args.workers)):
        load = os.getloadavg()[0]
        wall, cpu, status = timed_pytest(args.paths, args.marker, workers)
        results[label] = (wall, status)
        print(f"{label:>8}: wall {wall:7.1f} s  CPU {cpu:7.1f} s  load {load:.2f} -> {os.getloadavg()[0]:.2f}"
              f"  ({os.cpu_count()} CPUs, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')})"
              f"  exit {status}", flush=True)
    serial, parallel = results["serial"], results[f"-n {args.workers}"]
    if serial[1] or parallel[1]:
        print("a pytest run failed")
        return 1
    print(f"speed-up with {args.workers} workers: {serial[0] / parallel[0]:.2f}x ({' '.join(args.paths)})")
    return 0 if parallel[0] < serial[0] else 1


if __name__ == "__main__":
    sys.exit(main())
