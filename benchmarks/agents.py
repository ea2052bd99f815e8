"""LLM calls and tokens per task for each method, measured against the scripted OpenAI server.

Builds the toy world of the agents tests into a real KB, answers its four tasks (one per family) with
each LLM method under the default settings (research_agent: 2 iterations x 2 reviewers), and prints
calls, prompt and completion tokens per task (tokens as the scripted server counts them: characters/4).
The scripted model's refined draft equals its draft, so research_agent stops after its first round
(draft + 2 reviews + refine = 4 calls, not 1 + 2 x 3 = 7). Then it reruns everything and checks that the
response cache makes zero model calls. react's scripted model searches once (search_papers and timeline
in one turn), reports its findings in a second turn, then answers.

Goals (exit 1 when missed): calls per task match each graph's design; a rerun makes no calls.

Run: ``python benchmarks/agents.py``
"""

from __future__ import annotations

import sys
import time

from scripted_toy import scripted_toy, toy_tasks

from foresci.agents.answers import read_answers
from foresci.methods.runner import ANSWERS_FILE, run_release

DESIGN_CALLS = {"native": 1, "hybrid_rag": 1, "coi": 2, "research_agent": 4, "aris": 3, "react": 3}


def main() -> int:
    """Print the per-method table; exit 1 on a missed goal."""
    failures: list[str] = []
    with scripted_toy() as toy:
        root, settings, factory, server = toy.root, toy.settings, toy.view_factory, toy.server
        tasks = toy_tasks()
        print(
            f"{'method':>15} | {'calls+cached/task':>17} {'prompt tok/task':>15} {'completion tok/task':>19} "
            f"{'s/task':>7} | rerun calls"
        )
        for method, design in DESIGN_CALLS.items():
            out = root / "runs" / method
            started = time.monotonic()
            run_release(tasks, out, settings, [method], view_factory=factory)
            elapsed = (time.monotonic() - started) / len(tasks)
            rows = read_answers(out / ANSWERS_FILE)
            calls = sum(row.llm_calls for row in rows) / len(rows)
            cached = sum(row.cache_hits for row in rows) / len(rows)
            prompt = sum(row.prompt_tokens for row in rows) / len(rows)
            completion = sum(row.completion_tokens for row in rows) / len(rows)
            before = len(server.requests)
            summary = run_release(
                tasks, root / "runs" / f"{method}-rerun", settings, [method], view_factory=factory
            )
            rerun_calls = len(server.requests) - before
            hits = summary.usage["scripted-model"]["cache_hits"]
            print(
                f"{method:>15} | {calls:>8.1f} + {cached:>6.1f} {prompt:>15.0f} {completion:>19.0f} "
                f"{elapsed:>7.2f} | "
                f"{rerun_calls} (cache hits {hits})"
            )
            if any(row.status != "ok" for row in rows):
                failures.append(f"{method}: error rows {[row.error for row in rows if row.status != 'ok']}")
            if calls + cached != design:
                failures.append(
                    f"{method}: {calls} calls + {cached} cache hits per task, design says {design}"
                )
            if rerun_calls:
                failures.append(f"{method}: rerun made {rerun_calls} calls (cache should answer all)")
    for failure in failures:
        print(f"MISSED: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
