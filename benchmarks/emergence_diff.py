"""Did adding concept_emergence leave the other families' outputs alone? Compares two output folders
(a demo, or a release with its runs) made before and after, with everything concept_emergence added
taken out of the after side.

For every JSONL file under both folders it drops, on the after side, the rows of concept_emergence: a
``task_id`` starting ``ce-``, a ``question_id`` starting ``ceq-``, a ``family`` of concept_emergence, or
a ``method`` that answers only that family (the shipped link-prediction methods); then compares the
rows as multisets after :func:`behaviour_hashes._scrub` (timings, paths, ids of transcripts masked) with
transcript event times (``t_s``) dropped too.
Files only the after side has are listed as added. JSON files (manifests, summaries) are listed as
differing or not without filtering: their differences are expected (counts and leaderboard rows of the
new family and methods) and are for a reader.

Run: ``python benchmarks/emergence_diff.py BEFORE AFTER [--both]``; exit 1 when a filtered JSONL file
differs. ``--both`` drops concept_emergence's rows on the before side too (both sides carry the family:
a change to it alone must leave the rest identical).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from behaviour_hashes import SKIPPED_PARTS, _scrub  # noqa: E402

LINK_METHODS = frozenset({"preferential_attachment", "common_neighbours", "adamic_adar", "jaccard",
                          "resource_allocation", "learned_links"})


def is_emergence(row: dict[str, Any]) -> bool:
    """Whether a row belongs to concept_emergence (its task, question, family or a link method)."""
    method = str(row.get("method", "")).split("@")[0].split("/")[-1]
    params = row.get("params") if isinstance(row.get("params"), dict) else {}
    task = str(row.get("task_id", "") or row.get("key", ""))
    return (task.startswith(("ce-", "ceq-")) or str(row.get("question_id", "")).startswith("ceq-")
            or row.get("family") == "concept_emergence" or params.get("family") == "concept_emergence"
            or method in LINK_METHODS)


def _untimed(value: Any) -> Any:
    """``value`` without transcript event times (``t_s``: seconds since the unit began, a timing)."""
    if isinstance(value, dict):
        return {key: _untimed(item) for key, item in value.items() if key != "t_s"}
    if isinstance(value, list):
        return [_untimed(item) for item in value]
    return value


def rows(path: Path, drop: bool) -> tuple[Counter[str], int]:
    """Scrubbed rows of a JSONL file as a multiset (concept_emergence rows dropped when ``drop``), and how
    many were dropped."""
    kept: Counter[str] = Counter()
    dropped = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if drop and isinstance(row, dict) and is_emergence(row):
            dropped += 1
            continue
        kept[json.dumps(_untimed(_scrub(row)), sort_keys=True)] += 1
    return kept, dropped


def files(root: Path) -> dict[str, Path]:
    return {str(path.relative_to(root)): path for path in sorted(root.rglob("*"))
            if path.suffix in (".json", ".jsonl") and not SKIPPED_PARTS & set(path.relative_to(root).parts)}


def main() -> int:
    before, after = (Path(argument) for argument in sys.argv[1:3])
    both = "--both" in sys.argv[3:]
    old, new = files(before), files(after)
    failed = False
    for name in sorted(set(old) | set(new)):
        if name not in old:
            print(f"added: {name}")
            continue
        if name not in new:
            print(f"MISSING: {name}")
            failed = True
            continue
        if name.endswith(".jsonl"):
            was, _ = rows(old[name], drop=both)
            now, dropped = rows(new[name], drop=True)
            if was == now:
                print(f"same without concept_emergence ({dropped} rows of it): {name}")
            else:
                print(f"DIFFERS without concept_emergence: {name} ({sum((was - now).values())} rows only "
                      f"before, {sum((now - was).values())} only after)")
                failed = True
        else:
            same = _scrub(json.loads(old[name].read_text())) == _scrub(json.loads(new[name].read_text()))
            print(f"{'same' if same else 'differs (JSON, not filtered)'}: {name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
