"""Transcript size and completeness per method, measured against the scripted OpenAI server.

Builds the toy world of the agents tests into a real KB, answers its four tasks (one per family) with each
LLM method under the default settings, and prints per answer row: bytes of the answers.jsonl row, bytes of
its stored transcript, bytes the same transcript takes with every message written out in each event
(what storing each message once saves), model calls and cache hits in the transcript. Then it reruns
every method into a fresh folder with the same response cache.

Goals (exit 1 when missed): every model call of a row is in its transcript (llm_call events = the row's
llm_calls); the stored form is at most 1 % larger than the expanded one (rows of one call have nothing to
share and pay only for the index); a rerun's transcripts show cache hits and
no call.

Run: ``python benchmarks/transcripts.py``
"""

from __future__ import annotations

import sys
from pathlib import Path

from scripted_toy import scripted_toy, toy_tasks

from foresci.agents.answers import read_answers
from foresci.core.io import dumps_line
from foresci.core.transcript_log import TRANSCRIPTS_FILE, read_transcripts
from foresci.methods.runner import ANSWERS_FILE, run_release

METHODS = ("native", "hybrid_rag", "coi", "research_agent", "aris")


def _measure(out: Path) -> dict[str, float]:
    rows = read_answers(out / ANSWERS_FILE)
    transcripts = read_transcripts(out / TRANSCRIPTS_FILE)
    stored_lines = (out / TRANSCRIPTS_FILE).read_text(encoding="utf-8").splitlines()
    expanded = sum(  # the same line with every message written out in each event, no message table
        len(dumps_line({key: value for key, value in t.items() if key != "messages"}).encode())
        for t in transcripts.values()
    )
    events = [transcripts[row.transcript or ""]["events"] for row in rows]
    return {
        "rows": len(rows),
        "row_bytes": (out / ANSWERS_FILE).stat().st_size / len(rows),
        "stored_bytes": sum(len(line.encode()) for line in stored_lines) / len(rows),
        "expanded_bytes": expanded / len(rows),
        "calls": sum(1 for row in events for event in row if event["kind"] == "llm_call") / len(rows),
        "row_calls": sum(row.llm_calls for row in rows) / len(rows),
        "hits": sum(1 for row in events for event in row if event["kind"] == "cache_hit") / len(rows),
    }


def main() -> int:
    """Print the per-method table; exit 1 on a missed goal."""
    failures: list[str] = []
    with scripted_toy() as toy:
        root, settings, factory = toy.root, toy.settings, toy.view_factory
        print(f"{'method':>15} | {'row B':>7} {'transcript B':>12} {'expanded B':>10} {'saved':>6} "
              f"{'calls':>5} {'hits':>5} | rerun calls, hits (per row)")
        for method in METHODS:
            run_release(toy_tasks(), root / method, settings, [method], view_factory=factory)
            run_release(toy_tasks(), root / f"{method}-rerun", settings, [method], view_factory=factory)
            first, rerun = _measure(root / method), _measure(root / f"{method}-rerun")
            saved = 1 - first["stored_bytes"] / first["expanded_bytes"]
            print(f"{method:>15} | {first['row_bytes']:>7.0f} {first['stored_bytes']:>12.0f} "
                  f"{first['expanded_bytes']:>10.0f} {saved:>6.0%} {first['calls']:>5.1f} "
                  f"{first['hits']:>5.1f} | {rerun['calls']:.1f}, {rerun['hits']:.1f}")
            if first["calls"] != first["row_calls"]:
                failures.append(f"{method}: {first['calls']} llm_call events per row, rows say "
                                f"{first['row_calls']}")
            if first["stored_bytes"] > 1.01 * first["expanded_bytes"]:  # one-call rows: only the index costs
                failures.append(f"{method}: stored transcripts over 1 % larger than expanded ones")
            if rerun["calls"] or not rerun["hits"]:
                failures.append(f"{method}: rerun transcripts show {rerun['calls']} calls, "
                                f"{rerun['hits']} hits")
    for failure in failures:
        print(f"MISSED: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
