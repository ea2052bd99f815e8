"""Family tasks frozen prospectively: option sets chosen from pre-cutoff facts, resolved by the family's code.

A release's builders keep only the option sets whose window outcome is decisive (a margin, a lead beyond the
noise, a trajectory, enough venue papers); that needs the window. A round cannot wait, so at open it freezes
option sets drawn from the *same candidate pools* the builders sample (eligible nodes, real directions,
unrelated options; sibling sets for planning; nodes with pre-cutoff venue papers for venue; a node's own
pre-cutoff bottlenecks for the bottleneck family: each family's round hooks, ``TaskFamily.round_tasks``), with
the round's own seed, and writes them with the same public task text and context a release task would carry
(only the task id differs: it hashes the option set, not the winner). Nothing after the cutoff is read: every
paper comes through :class:`PreCutoffReader`, which refuses any paper past the cutoff.

Stratified rule: for each family in ``LedgerConfig.families`` and each of its windows (direction,
planning, bottleneck: the ledger's ``windows``; venue: the venue cycle), ``family_tasks`` tasks taken
round-robin over the domains (sorted), each domain's option sets in the order its seeded sampler drew
them; a domain that runs out is skipped. At resolution (the window closed in the KB) every task gets an
outcome over its options (:func:`resolve_one`: the option that grew most by the family's measure, ties
split; bottleneck: the rising option or "none of these"), and the family's own ``void_reason`` and target
code run on the window's evidence: a set the builder would keep is *decisive* and gets exactly the hidden
target a release at that cutoff would give the same option set; another is scored on its outcome alone
(the gate kept as ``note``). ``void`` is left for outcome-blind reasons, named in the row
(:data:`DATA_NEVER_ARRIVED`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any

from foresci.core.errors import UserError
from foresci.core.io import iter_jsonl, read_json, write_json, write_jsonl
from foresci.kb.screen import CANDIDATE_STATUSES
from foresci.rounds.frozen import DATA_NEVER_ARRIVED, Frozen, PreCutoffReader, resolution_row
from foresci.tasks.builders.common import task_id
from foresci.tasks.config import TaskSettings
from foresci.tasks.domain_inputs import domain_name, evidence_for_windows
from foresci.tasks.evidence import DomainEvidence
from foresci.tasks.families import all_families, get_family
from foresci.tasks.families.round_outcome import Resolved
from foresci.tasks.hidden import parse_hidden_target
from foresci.tasks.lint import lint_task
from foresci.tasks.models import Task
from foresci.tasks.windows import Window, make_window
from foresci.taxonomy.models import Snapshot

TASKS_DIR = "tasks"  # under public/
TASKS_FILE = "tasks.jsonl"
OPTIONS_FILE = "options.jsonl"
SETTINGS_FILE = "task_settings.json"
SNAPSHOT_DIR = "snapshots"
__all__ = ["DATA_NEVER_ARRIVED", "Frozen", "PreCutoffReader", "family_horizons", "freeze_tasks",
           "load_frozen", "open_items", "read_task_resolutions", "resolution_row", "resolve_one",
           "resolve_tasks", "round_families", "task_windows", "write_frozen"]
def family_horizons(family: str, windows: Sequence[str]) -> list[str]:
    """The windows a family's round tasks ask about (its fixed cycle, else ``windows``)."""
    return get_family(family).round_horizons(windows)


def round_families() -> tuple[str, ...]:
    """The registered families that freeze round tasks here (``TaskFamily.round_tasks``)."""
    return tuple(family.name for family in all_families() if family.round_tasks is not None)


def __getattr__(name: str) -> Any:
    if name == "FAMILIES":  # the families registered now that freeze round tasks here
        return round_families()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def open_items(kb: Any, cutoff: date, snapshots: Mapping[str, Snapshot], families: Sequence[str],
               config: Any, seed: str) -> list[Any]:
    """The round items of each of ``families`` that has its own (``TaskFamily.round_items``), opened at
    ``cutoff`` over the domains of ``snapshots``, each reading through its own :class:`PreCutoffReader`
    (``config``: the ledger's; a family asked for nothing opens none)."""
    opened = []
    for name in families:
        family = get_family(name)
        if family.round_items is None:
            continue
        found = family.round_items_hooks().open_items(PreCutoffReader(kb, cutoff), sorted(snapshots), seed,
                                                       config)
        if found is not None:
            opened.append(found)
    return opened


def _round_task_id(family: str, evidence: DomainEvidence, decision: Sequence[str]) -> str:
    window = evidence.window
    return task_id(family, evidence.domain, window.horizon, ("round", *decision), window.cutoff.isoformat())


def _frozen(family: str, evidence: DomainEvidence, settings: TaskSettings, wanted: int,
            rng: random.Random) -> list[Frozen]:
    """The family's frozen tasks of one domain's window (its round hook ``freeze``)."""
    made = get_family(family).round_hooks().freeze(
        evidence, settings, wanted, rng, lambda decision: _round_task_id(family, evidence, decision))
    return [Frozen(task, record) for task, record in made]


def freeze_tasks(kb: Any, cutoff: date, snapshots: Mapping[str, Snapshot], families: Sequence[str],
                 windows: Sequence[str], per_window: int, settings: TaskSettings, seed: str,
                 embed: Callable[[Sequence[str]], Any] | None = None) -> tuple[list[Frozen], PreCutoffReader]:
    """Family tasks over the windows after ``cutoff`` from papers on or before it (stratified rule in the
    module docstring); returns them and the reader (its ``latest`` is the last day it read). ``embed``:
    the KB's embedder, for the bottleneck options' same-node check (not checked without one)."""
    from foresci.tasks.domain_inputs import snapshot_vocabulary
    from foresci.tasks.text import content_tokens

    reader = PreCutoffReader(kb, cutoff)
    horizons = sorted({horizon for family in families for horizon in family_horizons(family, windows)})
    frames = [make_window(cutoff, horizon) for horizon in horizons]
    per_domain: dict[str, dict[str, DomainEvidence]] = {}
    for domain in sorted(snapshots):
        papers = reader.papers(domain)
        vectors = reader.embeddings([paper.paper_id for paper in papers])
        found = evidence_for_windows(snapshots[domain], papers, vectors, frames, trajectories=False)
        for evidence in found:
            evidence.embed = embed
        if found:
            per_domain[domain] = {evidence.window.horizon: evidence for evidence in found}
    frozen: list[Frozen] = []
    for family in (name for name in families if get_family(name).round_tasks is not None):  # others: open.py
        for horizon in family_horizons(family, windows):
            queues = []
            for domain, evidences in per_domain.items():
                evidence = evidences[horizon]
                rng = random.Random(f"{seed}:{family}:{domain}:{horizon}")
                made = _frozen(family, evidence, settings, per_window, rng)
                allowed = (frozenset(content_tokens(domain_name(domain)))
                           | snapshot_vocabulary(evidence.snapshot))
                first_seen = {node.node_id: node.first_seen for node in evidence.snapshot.nodes}
                queues.append([item for item in made if not lint_task(
                    item.task, None, evidence.pre_vocabulary, first_seen, allowed)])
            finish = getattr(get_family(family).round_hooks(), "finish", None)
            taken = 0
            while taken < per_window and any(queues):
                for queue in queues:
                    if queue and taken < per_window:
                        item = queue.pop(0)
                        if finish is not None:  # after the leakage lint (e.g. a "none of these" option)
                            item.task = finish(item.task, item.record)
                        item.record.update({"task_id": item.task.task_id, "family": family,
                                            "domain": item.task.domain, "horizon": horizon})
                        frozen.append(item)
                        taken += 1
    return frozen, reader


def write_frozen(folder: Path, frozen: Sequence[Frozen], snapshots: Mapping[str, Snapshot],
                 settings: TaskSettings) -> None:
    """Write the public task files of a round: tasks, option records, the task settings, the snapshots."""
    base = folder / TASKS_DIR
    write_jsonl(base / TASKS_FILE, [item.task for item in frozen])
    write_jsonl(base / OPTIONS_FILE, [item.record for item in frozen])
    write_json(base / SETTINGS_FILE, settings)
    for domain in sorted({item.task.domain for item in frozen}):
        write_json(base / SNAPSHOT_DIR / f"{domain}.json", snapshots[domain])


def load_frozen(public: Path) -> tuple[list[Frozen], TaskSettings, dict[str, Snapshot]]:
    """A round's frozen family tasks (none when the round froze none)."""
    base = public / TASKS_DIR
    if not (base / TASKS_FILE).is_file():
        return [], TaskSettings(), {}
    tasks = [Task.model_validate(row) for row in iter_jsonl(base / TASKS_FILE)]
    records = list(iter_jsonl(base / OPTIONS_FILE))
    snapshots = {path.stem: Snapshot.model_validate_json(path.read_text(encoding="utf-8"))
                 for path in sorted((base / SNAPSHOT_DIR).glob("*.json"))}
    settings = TaskSettings.model_validate(read_json(base / SETTINGS_FILE))
    return [Frozen(task, record) for task, record in zip(tasks, records, strict=True)], settings, snapshots


def task_windows(frozen: Sequence[Frozen], cutoff: date) -> dict[str, Window]:
    """horizon -> its window, for the horizons the round's tasks ask about."""
    horizons = sorted({item.record["horizon"] for item in frozen})
    return {horizon: make_window(cutoff, horizon) for horizon in horizons}


def resolve_tasks(frozen: Sequence[Frozen], horizon: str, kb: Any, settings: TaskSettings,
                  snapshots: Mapping[str, Snapshot],
                  embed: Callable[[Sequence[str]], Any] | None = None) -> list[dict[str, Any]]:
    """Resolve the tasks of one horizon (its window closed in ``kb``): one row per task, ``resolved`` with
    the family's hidden target or ``void`` with the gate that failed (``embed``: as for the freeze)."""
    from foresci.kb.store import last_announcement

    chosen = [item for item in frozen if item.record["horizon"] == horizon]
    if not chosen:
        return []
    window = make_window(chosen[0].task.cutoff, horizon)
    if (latest := last_announcement(kb)) < window.end:
        raise UserError(f"the KB ends on {latest}; the {horizon} window to {window.end} has not closed",
                        field="window")
    own = sorted({item.task.family for item in chosen
                  if get_family(item.task.family).round_items is not None})
    items = {family: [item for item in chosen if item.task.family == family] for family in own}
    chosen = [item for item in chosen if item.task.family not in items]
    rows: list[dict[str, Any]] = []
    for domain in sorted({item.task.domain for item in chosen}):
        papers = kb.papers(until=window.end, domain=domain, statuses=CANDIDATE_STATUSES)
        found = evidence_for_windows(snapshots[domain], papers,
                                     kb.embeddings([paper.paper_id for paper in papers]), [window])
        evidence = found[0]
        evidence.embed = embed
        for item in (item for item in chosen if item.task.domain == domain):
            resolved = (Resolved.voided(DATA_NEVER_ARRIVED) if evidence.reference_window == 0
                        else resolve_one(item, evidence, settings))
            rows.append(resolution_row(item, item.task.family, horizon, resolved))
    for family, frozen_items in items.items():  # a family's own round items resolve themselves
        rows += get_family(family).round_items_hooks().resolve_items(frozen_items, window, kb)
    return rows


def resolve_one(item: Frozen, evidence: DomainEvidence, settings: TaskSettings) -> Resolved:
    """One frozen task on window evidence: the outcome over its options and the family's hidden target
    where the builder's gates find the window decisive (the family's round hook ``resolve``)."""
    family = get_family(item.task.family)
    if family.round_tasks is None:
        raise UserError(f"no prospective resolution for family {family.name!r}", field="family")
    resolved: Resolved = family.round_hooks().resolve(item.task, item.record, evidence, settings)
    return resolved


def read_task_resolutions(paths: Sequence[Path]) -> dict[str, dict[str, Any]]:
    """task id -> its resolution row (``hidden`` parsed) from the given resolution files."""
    rows: dict[str, dict[str, Any]] = {}
    for path in paths:
        if path.is_file():
            for row in iter_jsonl(path):
                if row.get("hidden") is not None:
                    row = {**row, "hidden": parse_hidden_target(row["hidden"])}
                rows[str(row["task_id"])] = row
    return rows
