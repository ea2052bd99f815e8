"""The demo's local-model mode (``foresci demo --llm local``): serve the packaged model for the demo's
process under the compact CPU-model profile, and say, per method, how many rows ended as errors."""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from foresci.llm.serve import DEFAULT_LOCAL_MODEL, LocalServer

if TYPE_CHECKING:
    from foresci.core.settings import Settings
    from foresci.tasks.models import ForecastQuestion, Task

ItemT = TypeVar("ItemT")


def _first_per_group(items: list[ItemT], group: Any, per_group: int) -> list[ItemT]:
    taken: Counter[str] = Counter()
    chosen = []
    for item in items:
        key = str(group(item))
        if taken[key] < per_group:
            taken[key] += 1
            chosen.append(item)
    return chosen


def demo_subset(tasks: list[Task], questions: list[ForecastQuestion], per_family: int, n_questions: int
                ) -> tuple[list[Task], list[ForecastQuestion]]:
    """The first ``per_family`` tasks of each family, and ``n_questions`` forecast questions taken in turn
    from each kind (in the order the kinds first appear), in release order."""
    kinds = list(dict.fromkeys(question.kind for question in questions))
    per_kind = -(-n_questions // max(len(kinds), 1))
    picked = _first_per_group(questions, lambda question: question.kind, per_kind)
    by_kind = {kind: [question for question in picked if question.kind == kind] for kind in kinds}
    interleaved = [question for row in zip(*by_kind.values(), strict=False) for question in row]
    leftovers = [question for question in picked if question not in interleaved]
    chosen_tasks = _first_per_group(tasks, lambda task: task.family, per_family)
    return chosen_tasks, (interleaved + leftovers)[:n_questions]

# The compact profile of a CPU model on two cores, per settings section (applied only where the user has
# not set a value): prompt processing is most of a small model's time, so prompts stay short (two evidence
# papers, four tool calls, one review round with one reviewer, one chain, one planned query), output is
# capped (256 tokens for an answer, 160 for a judge), and each rubric metric is judged once with at most two
# extracted claims. One task at a time: the server has one slot, and rows of one task back to back find
# their shared prompt prefix in its cache. No step is skipped.
# Structured replies are bounded (foresci.llm.bounds): each free-text field at most 100 characters and each
# free list at most 2 items, sent in the schema, so the server's grammar closes a field the model would
# otherwise repeat until the token limit (SmolLM2 looped in 4 of 8 ARIS answers of the demo, all lost as
# truncated); the token limit of such a request rises to the longest reply the bounded schema allows.
COMPACT_PROFILE: dict[str, dict[str, Any]] = {
    "llm": {"max_tokens": {"agent": 256, "judge": 160, "builder": 160}, "max_field_chars": 100,
            "max_list_items": 2},
    "agents": {"iterations": 1, "reviewers": 1, "max_evidence_papers": 2, "papers_per_query": 2,
               "tool_budget": 4, "coi_chains": 1, "coi_chain_length": 1, "aris_max_queries": 1,
               "concurrency": 1},
    "evaluation": {"judge_runs": 1, "judge_concurrency": 1, "max_claims": 2},
}


def compact_settings(settings: Settings) -> Settings:
    """``settings`` with :data:`COMPACT_PROFILE` applied (the real-model test stage and the benchmark)."""
    updates = {section: getattr(settings, section).model_copy(update=values)
               for section, values in COMPACT_PROFILE.items()}
    return settings.model_copy(update=updates)


def compact_environment() -> dict[str, str]:
    """:data:`COMPACT_PROFILE` as ``FORESCI_SECTION__FIELD`` variables (JSON for mappings)."""
    return {f"FORESCI_{section.upper()}__{name.upper()}": json.dumps(value) if isinstance(value, dict)
            else str(value) for section, values in COMPACT_PROFILE.items() for name, value in values.items()}


@contextmanager
def local_llm_environment(
    out: Path, model: str = DEFAULT_LOCAL_MODEL, threads: int = 2
) -> Iterator[LocalServer]:
    """Start the local model server and point ``FORESCI_LLM__*`` at it (the environment is restored)."""
    server = LocalServer(model, threads=threads, cache_dir=out / "llm", log=out / "llm" / "server.log")
    changes = {"FORESCI_LLM__BASE_URL": server.base_url, "FORESCI_LLM__MODEL": server.name,
               "FORESCI_LLM__CONTEXT_TOKENS": str(server.ctx), "FORESCI_LLM__ENDPOINT_ID": server.endpoint_id}
    changes.update({key: value for key, value in compact_environment().items() if key not in os.environ})
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


def judged_sample(run_dirs: list[Path], out: Path, tasks: int = 1) -> list[Path]:
    """Copies of ``run_dirs`` under ``out`` holding only the rows of their first ``tasks`` tasks (answers,
    manifest, transcripts), for judging a sample with the local model: each judged row costs about three
    judge calls of 10-60 s on two cores."""
    from foresci.agents.answers import read_answers
    from foresci.core.io import write_jsonl
    from foresci.methods.runner import ANSWERS_FILE

    samples = []
    for run_dir in run_dirs:
        rows = read_answers(run_dir / ANSWERS_FILE)
        keep = list(dict.fromkeys(row.task_id for row in rows))[:tasks]
        sample = out / run_dir.name
        sample.mkdir(parents=True, exist_ok=True)
        write_jsonl(sample / ANSWERS_FILE, [row for row in rows if row.task_id in keep])
        for name in ("manifest.json", "transcripts.jsonl"):
            if (run_dir / name).is_file():
                shutil.copy(run_dir / name, sample / name)
        samples.append(sample)
    return samples
