"""A round's family tasks under inspect_ai, and an inspect eval log of them read back as a submission.

:func:`round_task` is the adapter a round needs: its public ``tasks/`` folder is no release (no manifest,
no hidden targets until the round resolves), so the inspect ``Task`` is built from the round's frozen
tasks with the bridge's own dataset and KB-tool setup and no scorer (a round scores itself at ``rounds
tick``). ``foresci rounds inspect-task`` writes it as a task file for ``inspect eval``.
:func:`log_rows` reads the log's samples back into answer rows with the bridge's
:func:`~foresci.bridges.inspect_ai.log_import.sample_row` (the function ``foresci inspect import`` uses),
refusing a log made on another round or holding no sample of this one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from foresci.contracts import Answer
from foresci.core.errors import UserError
from foresci.rounds.ledger import check_round, round_dir
from foresci.tasks.models import Task

ROUND_KEY = "foresci_round"
HASH_KEY = "foresci_round_hash"

TASK_FILE = '''"""inspect task of foresci round {round_id} (written by `foresci rounds inspect-task`)."""

from pathlib import Path

from inspect_ai import task

from foresci.rounds.inspect_round import round_task


@task
def foresci_round():
    """The public family tasks of round {round_id}."""
    return round_task(Path({ledger!r}), {round_id!r}, kb={kb!r})
'''


def round_task(ledger: Path | str, round_id: str, kb: str | Path | None = None, solver: Any = None) -> Any:
    """The inspect ``Task`` of a round's frozen family tasks (hashes checked): samples as the bridge
    builds them, the KB tools bound to each task's cutoff when ``kb`` is given, ``generate()`` or
    ``solver``; the round's id and public hash in the task's metadata."""
    from inspect_ai import Task as InspectTask
    from inspect_ai.solver import generate

    from foresci.bridges.inspect_ai.dataset import task_dataset
    from foresci.bridges.inspect_ai.task import DEFAULT_MESSAGE_LIMIT
    from foresci.bridges.inspect_ai.tools import bind_kb_tools
    from foresci.rounds.round_public import round_tasks

    manifest = check_round(Path(ledger), round_id)
    tasks = round_tasks(round_dir(Path(ledger), round_id))
    if not tasks:
        raise UserError(f"round {round_id} froze no family task to ask", field="round_id")
    return InspectTask(
        dataset=task_dataset(tasks, name=round_id, with_tools=kb is not None),
        setup=bind_kb_tools(kb=str(kb)) if kb is not None else None,
        solver=solver or generate(),
        message_limit=DEFAULT_MESSAGE_LIMIT,
        name=f"foresci_{round_id}",
        metadata={ROUND_KEY: round_id, HASH_KEY: manifest.public_hash, "foresci_kb": str(kb) if kb else None},
    )


def write_task_file(ledger: Path, round_id: str, out: Path, kb: Path | None = None) -> Path:
    """Write an inspect task file for the round (``inspect eval FILE --model M``)."""
    check_round(ledger, round_id)
    text = TASK_FILE.format(
        round_id=round_id, ledger=str(Path(ledger).resolve()), kb=str(Path(kb).resolve()) if kb else None
    )
    out.write_text(text, encoding="utf-8")
    return out


def log_rows(path: Path, tasks: list[Task], round_id: str, public_hash: str,
             method: str) -> tuple[list[Answer], dict[str, Any]]:
    """The answer rows of an inspect log made on the round's tasks, in task order, and what the
    submission records of the log (model, inspect version hash, sample counts)."""
    from foresci.bridges.inspect_ai.log_import import log_version, read_log, sample_row

    log = read_log(path)
    if log.status != "success" and not log.samples:
        raise UserError(f"the inspect log holds no samples (status {log.status})", path=path)
    metadata = log.eval.metadata or {}
    if metadata.get(ROUND_KEY) not in (None, round_id):
        raise UserError(f"the inspect log answers round {metadata.get(ROUND_KEY)}, not {round_id}",
                        path=path, field=ROUND_KEY)
    if metadata.get(HASH_KEY) not in (None, public_hash):
        raise UserError("the inspect log was made on other public files than the round's (hash differs)",
                        path=path, field=HASH_KEY)
    by_id = {task.task_id: task for task in tasks}
    version = log_version(log)
    model = log.eval.model
    found: dict[str, Answer] = {}
    skipped: list[str] = []
    for sample in log.samples or []:
        task = by_id.get(str(sample.id))
        if task is None:
            skipped.append(str(sample.id))
            continue
        if sample.epoch != 1:
            continue
        found[task.task_id] = sample_row(
            task, sample, method=method, model=model, version=version, label=None
        )
    if skipped:
        raise UserError(f"samples {', '.join(skipped[:5])} are not tasks of round {round_id}", path=path,
                        field="sample.id")
    if not found:
        raise UserError(f"no sample of the log is a task of round {round_id}", path=path)
    rows = [found[task.task_id] for task in tasks if task.task_id in found]
    record = {"model": model, "inspect_version": version, "inspect_task": log.eval.task,
              "samples": len(rows), "status": log.status}
    return rows, record
