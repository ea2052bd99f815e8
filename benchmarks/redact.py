"""URL masking benchmark: :func:`foresci.core.redact.mask_urls_in` stays linear on adversarial text.

Issue 39.10: 60k letters of repeated ``://`` took 6.6 s (20k: 0.36 s). For each input shape below the
masker runs at N and 4N letters (best of --runs); a linear masker takes about 4 times as long at 4N, a
quadratic one 16 times. Goals (exit status 1 when one is missed):
  * time(4N) / time(N) <= 8 for every shape taking over 50 ms at 4N (below that, timer noise)
  * time(4N) <= 0.5 s for every shape at the default N = 60,000
Printed: each shape's CPU times, their ratio, and the load average.

Examples:
  python benchmarks/redact.py
  python benchmarks/redact.py --letters 100000 --runs 5
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable

from foresci.core.redact import mask_urls_in

MAX_RATIO = 8.0
MAX_SECONDS = 0.5


def shapes() -> dict[str, Callable[[int], str]]:
    """Input shapes by name, each a function of the letter count."""
    return {
        "repeated ://": lambda n: "://" * (n // 3),
        "letters then ://": lambda n: "a" * (n // 2) + "://" * (n // 6),
        "a:// and a space": lambda n: "a:// " * (n // 5),
        "a URL then ://": lambda n: "http://h/" + "://" * (n // 3),
        "?key=v pairs": lambda n: "?token=x" * (n // 8),
        "one long URL": lambda n: "see http://bob:pw@h/?token=s&" + "a" * n,
    }


def best_time(text: str, runs: int) -> float:
    """The fastest of ``runs`` maskings of ``text``, in CPU seconds (steadier than wall time on a busy
    machine)."""
    times = []
    for _ in range(runs):
        started = time.process_time()
        mask_urls_in(text)
        times.append(time.process_time() - started)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--letters", type=int, default=60_000, help="N: the smaller input's length")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    missed = []
    print(f"load average {os.getloadavg()[0]:.2f}; N = {args.letters:,}")
    print(f"{'shape':<20} {'N (s)':>9} {'4N (s)':>9} {'ratio':>7}")
    for name, make in shapes().items():
        small = best_time(make(args.letters), args.runs)
        large = best_time(make(4 * args.letters), args.runs)
        ratio = large / max(small, 1e-6)
        print(f"{name:<20} {small:>9.4f} {large:>9.4f} {ratio:>7.1f}")
        if ratio > MAX_RATIO and large > 0.05:  # under 50 ms the ratio is mostly timer noise
            missed.append(f"{name}: 4N/N = {ratio:.1f} > {MAX_RATIO:g} (quadratic?)")
        if args.letters >= 60_000 and large > MAX_SECONDS:
            missed.append(f"{name}: {large:.3f} s at 4N > {MAX_SECONDS} s")
    for line in missed:
        print(f"MISSED {line}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
