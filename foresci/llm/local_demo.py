"""The demo's local-model mode (``foresci demo --llm local``): serve the packaged model for the demo's
process and say, per method, how many rows ended as errors."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from foresci.llm.serve import DEFAULT_LOCAL_MODEL, LocalServer

# Lighter work for a CPU model on two cores (only where the user has not set these): one judging run,
# one review round with one reviewer, shorter evidence lists and claim lists.
DEMO_DEFAULTS = {
    "FORESCI_EVALUATION__JUDGE_RUNS": "1", "FORESCI_EVALUATION__MAX_CLAIMS": "4",
    "FORESCI_AGENTS__REVIEWERS": "1", "FORESCI_AGENTS__ITERATIONS": "1",
    "FORESCI_AGENTS__MAX_EVIDENCE_PAPERS": "4", "FORESCI_AGENTS__PAPERS_PER_QUERY": "4",
    "FORESCI_AGENTS__COI_CHAINS": "2", "FORESCI_AGENTS__ARIS_MAX_QUERIES": "2",
}


@contextmanager
def local_llm_environment(
    out: Path, model: str = DEFAULT_LOCAL_MODEL, threads: int = 2
) -> Iterator[LocalServer]:
    """Start the local model server and point ``FORESCI_LLM__*`` at it (the environment is restored)."""
    server = LocalServer(model, threads=threads, cache_dir=out / "llm", log=out / "llm" / "server.log")
    changes = {"FORESCI_LLM__BASE_URL": server.base_url, "FORESCI_LLM__MODEL": server.name,
               "FORESCI_LLM__CONTEXT_TOKENS": str(server.ctx)}
    changes.update({key: value for key, value in DEMO_DEFAULTS.items() if key not in os.environ})
    previous = {key: os.environ.get(key) for key in changes}
    with server:
        os.environ.update(changes)
        try:
            yield server
        finally:
            for key, value in previous.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def error_rate_lines(run_dirs: list[Path]) -> list[str]:
    """'method (mode): errors/rows' per method of the runs, with the most common error reason."""
    from foresci.agents.answers import read_answers

    lines = []
    for run_dir in run_dirs:
        rows = read_answers(run_dir / "answers.jsonl")
        for method in sorted({row.method for row in rows}):
            mine = [row for row in rows if row.method == method]
            errors = [row.error or "" for row in mine if row.status == "error"]
            reason = Counter(error.split(":", 1)[0] for error in errors).most_common(1)
            why = f" (mostly {reason[0][0]})" if reason else ""
            lines.append(f"{method} ({mine[0].mode}): {len(errors)}/{len(mine)} error rows{why}")
    return lines
