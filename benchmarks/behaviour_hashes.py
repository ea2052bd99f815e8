"""Content hashes of foresci's outputs, to show a refactor keeps behaviour.

Hashes every JSON/JSONL artifact under the given folders (releases, runs, taxonomies, summaries) after
dropping the fields that legitimately change between two runs of the same code (timings, timestamps,
versions, absolute paths). Record before a change, compare after:

    python benchmarks/behaviour_hashes.py record demo-before/ rf-before/ --out before.json
    python benchmarks/behaviour_hashes.py compare before.json demo-after/ rf-after/

``compare`` prints every file whose content differs (or that appeared or vanished) and exits 1 if any did.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

VOLATILE_KEYS = frozenset({
    "elapsed_s", "seconds", "created_at", "started_at", "finished_at", "timestamp", "wall_s", "cpu_s",
    "git_revision", "package_version", "foresci_version", "duration_s", "written_at", "updated_at",
    "hostname", "pid", "path", "kb_path", "release_path", "run_path", "out", "source_path",
    # ids and fingerprints derived from paths, timings or the scoring revision, not from content
    "id", "transcript", "transcript_id", "fingerprint", "kb_fingerprint", "resolved_with",
})
SUFFIXES = (".json", ".jsonl")
SKIPPED_PARTS = frozenset({"world", "kb", "figures"})


TIMING = re.compile(r"\b\d+(?:\.\d+)? ?(?:s|ms)\b")


def _scrub(value: Any) -> Any:
    """``value`` without volatile fields: timings in text, absolute paths, float noise of summation order.

    Lists of objects (leaderboard rows, diagnostic cases) are compared as multisets, since rows written by
    concurrent workers reach a summary in any order and ties keep that order; lists of plain values
    (rankings, option ids) keep their order.
    """
    if isinstance(value, dict):
        return {key: _scrub(item) for key, item in value.items() if key not in VOLATILE_KEYS}
    if isinstance(value, list):
        items = [_scrub(item) for item in value]
        if items and all(isinstance(item, dict) for item in items):
            items.sort(key=lambda item: json.dumps(item, sort_keys=True))
        return items
    if isinstance(value, float):
        return float(f"{value:.9g}")
    if isinstance(value, str):
        return "<path>" if value.startswith("/") else TIMING.sub("<time>", value)
    return value


def content_hash(path: Path) -> str:
    """The sha256 of a JSON/JSONL file's scrubbed content (keys and rows sorted, volatile fields dropped)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        rows = [_scrub(json.loads(line)) for line in text.splitlines() if line.strip()]
    else:
        rows = [_scrub(json.loads(text))]
    digest = hashlib.sha256()
    # rows of a JSONL file are compared as a set in a fixed order: concurrent workers append in any order
    for line in sorted(json.dumps(row, sort_keys=True, ensure_ascii=False) for row in rows):
        digest.update(line.encode())
        digest.update(b"\n")
    return digest.hexdigest()


def hashes(roots: list[Path]) -> dict[str, str]:
    """``root-name/relative/path`` → content hash for every JSON/JSONL file under ``roots``."""
    table: dict[str, str] = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            relative = path.relative_to(root)
            if path.suffix not in SUFFIXES or not path.is_file() or SKIPPED_PARTS & set(relative.parts):
                continue
            if path.name in {"manifest.json", "run_fingerprint.json"}:
                continue
            table[f"{root.name}/{relative}"] = content_hash(path)
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    record = commands.add_parser("record", help="hash the folders into --out")
    record.add_argument("roots", nargs="+", type=Path)
    record.add_argument("--out", type=Path, required=True)
    compare = commands.add_parser("compare", help="hash the folders and compare with a record")
    compare.add_argument("record", type=Path)
    compare.add_argument("roots", nargs="+", type=Path)
    args = parser.parse_args(argv)
    table = hashes(args.roots)
    if args.command == "record":
        args.out.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
        print(f"{len(table)} files hashed into {args.out}")
        return 0
    before = json.loads(args.record.read_text())
    changed = sorted(name for name in before.keys() & table.keys() if before[name] != table[name])
    gone = sorted(before.keys() - table.keys())
    new = sorted(table.keys() - before.keys())
    for label, names in (("differs", changed), ("missing now", gone), ("new", new)):
        for name in names:
            print(f"{label}: {name}")
    same = len(before.keys() & table.keys()) - len(changed)
    print(f"{same} identical, {len(changed)} differ, {len(gone)} missing, {len(new)} new")
    return 1 if changed or gone or new else 0


if __name__ == "__main__":
    sys.exit(main())
