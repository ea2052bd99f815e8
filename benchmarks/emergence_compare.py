"""Side by side: two ``benchmarks/emergence.py --out`` result files (before / after a vocabulary change).

Prints, per source, cutoff, window and k: candidates, positives, and AUC and precision@100 with 95 %
intervals of each method, before -> after, and the learned - preferential attachment AUC difference.

Run: ``python benchmarks/emergence_compare.py BEFORE.json AFTER.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def _cell(metric: dict[str, Any]) -> str:
    value, low, high = metric.get("value"), metric.get("low"), metric.get("high")
    if value is None:
        return "-"
    return f"{value:.3f} [{low:.3f},{high:.3f}]" if low is not None and high is not None else f"{value:.3f}"


def _key(row: dict[str, Any]) -> tuple[str, str, int, int]:
    return row["source"], row["cutoff"], row["window_months"], row["min_papers"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args()
    before = {_key(row): row for row in json.loads(args.before.read_text(encoding="utf-8"))}
    after = {_key(row): row for row in json.loads(args.after.read_text(encoding="utf-8"))}
    for key in sorted(before.keys() & after.keys()):
        old, new = before[key], after[key]
        print(f"\n{key[0]} {key[1]} {key[2]}m k={key[3]}: candidates {old['total_candidates']} -> "
              f"{new['total_candidates']}, positives {old['positives']} -> {new['positives']}")
        for method in new["scores"]:
            first, second = old["scores"].get(method, {}), new["scores"][method]
            print(f"  {method:<24} AUC {_cell(first.get('auc', {}))} -> {_cell(second['auc'])}   P@100 "
                  f"{_cell(first.get('precision@100', {}))} -> {_cell(second['precision@100'])}")
        lift_old = old["audit"]["learned_minus_preferential_attachment_auc"]
        lift_new = new["audit"]["learned_minus_preferential_attachment_auc"]
        print(f"  learned - PA AUC {_cell(lift_old)} -> {_cell(lift_new)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
