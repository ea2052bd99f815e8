"""A foresci release as an inspect ``Task``.

    from inspect_ai import eval
    from foresci.bridges.inspect_ai.task import release_task

    eval(release_task("work/release", kb="work/kb"), model="openai/gpt-4o-mini")

Samples are the release's public tasks (:mod:`.dataset`) and its forecast questions (:mod:`.questions`,
scored with CRPS, Brier and coverage); with ``kb`` the setup solver puts the four KB
tools, bound to each sample's cutoff, in ``state.tools`` (:mod:`.tools`); the default solver is
``generate()``, which calls tools until the model answers (any other solver or agent may replace it: the
setup still runs); the scorer is foresci's offline metrics (:mod:`.scorer`). ``foresci inspect task``
writes a task file for ``inspect eval``.
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.solver import Solver, generate

from foresci.bridges.inspect_ai.dataset import task_dataset
from foresci.bridges.inspect_ai.questions import FORECAST, question_sample
from foresci.bridges.inspect_ai.scorer import foresci_scorer, scored_metric_names
from foresci.bridges.inspect_ai.tools import bind_kb_tools
from foresci.tasks.release import load_release

DEFAULT_MESSAGE_LIMIT = 40


def release_task(release: str | Path, kb: str | Path | None = None, *, families: list[str] | None = None,
                 limit: int | None = None, solver: Solver | None = None,
                 message_limit: int = DEFAULT_MESSAGE_LIMIT) -> Task:
    """The inspect task of ``release`` (a folder from ``foresci tasks build``; its hidden targets and
    resolutions are read by the scorer only). ``kb``: the KB the tools search (``foresci kb build``;
    without it the model answers from the brief alone). ``families``/``limit``: a subset of the samples,
    in release order: the tasks, then the forecast questions (``forecast.jsonl``; the family name
    ``forecast`` selects them)."""
    release_dir = Path(release)
    loaded = load_release(release_dir)
    tasks = [task for task in loaded.tasks if families is None or task.family in families]
    questions = [question for question in loaded.questions if families is None or FORECAST in families]
    if families is not None and not tasks and not questions:
        raise ValueError(f"{release_dir / 'tasks.jsonl'}: no task of the families {', '.join(families)}")
    if limit is not None:
        tasks, questions = tasks[:limit], questions[:max(0, limit - len(tasks))]
    if not tasks and not questions:
        raise ValueError(f"{release_dir / 'tasks.jsonl'}: the release has no task to ask")
    names = scored_metric_names({task.family for task in tasks} | ({FORECAST} if questions else set()))
    return Task(
        dataset=MemoryDataset([*task_dataset(tasks, release_dir.name, with_tools=kb is not None),
                               *(question_sample(question, kb is not None) for question in questions)],
                              name=release_dir.name),
        setup=bind_kb_tools(kb=str(kb)) if kb is not None else None,
        solver=solver or generate(),
        scorer=foresci_scorer(str(release_dir), str(kb) if kb is not None else None, names),
        message_limit=message_limit,
        name=f"foresci_{release_dir.name}",
        metadata={"foresci_release": str(release_dir), "foresci_kb": str(kb) if kb is not None else None},
    )
