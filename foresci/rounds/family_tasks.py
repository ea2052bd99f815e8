"""Family tasks frozen prospectively: option sets chosen from pre-cutoff facts, resolved by the family's code.

A release's builders keep only the option sets whose window outcome is decisive (a margin, a lead beyond
the noise, a trajectory, enough venue papers); that needs the window. A round cannot wait, so at open it
freezes option sets drawn from the *same candidate pools* the builders sample (eligible nodes, real
directions, unrelated options; sibling sets for planning; nodes with pre-cutoff venue papers for venue;
a node's own pre-cutoff bottlenecks for bottleneck_opportunity, :mod:`foresci.rounds.bottleneck_tasks`),
with the round's own seed, and writes them with the same public task text and context a release task would
carry (only the task id differs: it hashes the option set, not the winner). Nothing after the cutoff is
read: every paper comes through :class:`PreCutoffReader`, which refuses any paper past the cutoff.

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
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from foresci.core.errors import UserError
from foresci.core.io import iter_jsonl, read_json, write_json, write_jsonl
from foresci.kb.models import VENUE_FAMILIES, Paper
from foresci.kb.screen import CANDIDATE_STATUSES
from foresci.rounds.bottleneck_tasks import BOTTLENECK, add_none_option, bottleneck_tasks, resolve_bottleneck
from foresci.rounds.option_scores import Resolved, split_outcome
from foresci.tasks.builders.common import (
    Built,
    candidates_from,
    direction_candidates,
    display_name,
    eligible_nodes,
    record_dropped_twins,
    sample_option_sets,
    task_id,
)
from foresci.tasks.config import TaskSettings
from foresci.tasks.domain_inputs import domain_name, evidence_for_windows
from foresci.tasks.evidence import DomainEvidence, NodeEvidence
from foresci.tasks.families.direction_forecasting import builder as direction
from foresci.tasks.families.strategic_planning import builder as planning
from foresci.tasks.families.venue_positioning import builder as venue
from foresci.tasks.hidden import HiddenTarget, parse_hidden_target
from foresci.tasks.lint import lint_task
from foresci.tasks.models import Task
from foresci.tasks.windows import Window, make_window
from foresci.taxonomy.models import Snapshot

TASKS_DIR = "tasks"  # under public/
TASKS_FILE = "tasks.jsonl"
OPTIONS_FILE = "options.jsonl"
SETTINGS_FILE = "task_settings.json"
SNAPSHOT_DIR = "snapshots"
DIRECTION, PLANNING, VENUE = "direction_forecasting", "strategic_planning", "venue_positioning"
FAMILIES = (DIRECTION, PLANNING, VENUE, BOTTLENECK)
DATA_NEVER_ARRIVED = "no paper of the domain was announced in the window: its data never arrived"
"""The outcome-blind void: the KB holds no paper of the task's domain in the window."""


class PreCutoffReader:
    """The KB as a round's freeze may read it: papers announced on or before ``cutoff`` only.

    Every paper handed out is checked against the cutoff (a KB returning a later one is an error, not a
    silent leak) and embeddings are given only for papers this reader handed out.
    """

    def __init__(self, kb: Any, cutoff: date) -> None:
        self.kb, self.cutoff = kb, cutoff
        self._handed: set[str] = set()
        self.latest: date | None = None

    def papers(self, domain: str) -> list[Paper]:
        """The domain's candidate papers up to the cutoff."""
        papers = self.kb.papers(until=self.cutoff, domain=domain, statuses=CANDIDATE_STATUSES)
        for paper in papers:
            if paper.announced > self.cutoff:
                raise UserError(f"paper {paper.paper_id} ({paper.announced}) is after the round's cutoff "
                                f"{self.cutoff}", field="cutoff")
            self.latest = max(self.latest or paper.announced, paper.announced)
        self._handed.update(paper.paper_id for paper in papers)
        return papers

    def embeddings(self, paper_ids: Sequence[str]) -> Any:
        """Embeddings of papers this reader handed out."""
        unknown = [paper_id for paper_id in paper_ids if paper_id not in self._handed]
        if unknown:
            raise UserError(f"embedding of {unknown[0]} asked for before the reader handed it out",
                            field="cutoff")
        return self.kb.embeddings(list(paper_ids))


@dataclass
class Frozen:
    """One prospectively frozen task and what resolution needs about it (all pre-cutoff facts)."""

    task: Task
    record: dict[str, Any]


def family_horizons(family: str, windows: Sequence[str]) -> list[str]:
    """The windows a family's round tasks ask about."""
    return ["venue_cycle"] if family == VENUE else list(windows)


def _round_task_id(family: str, evidence: DomainEvidence, decision: Sequence[str]) -> str:
    window = evidence.window
    return task_id(family, evidence.domain, window.horizon, ("round", *decision), window.cutoff.isoformat())


def _direction_tasks(evidence: DomainEvidence, settings: TaskSettings, wanted: int,
                     rng: random.Random) -> list[Frozen]:
    pool = direction_candidates(evidence, settings)
    name = domain_name(evidence.domain)
    made: list[Frozen] = []
    for options in sample_option_sets(pool, settings.candidates_per_task, settings.attempts_per_task, rng):
        if len(made) >= wanted:
            break
        named = candidates_from(options, rng)
        identifier = _round_task_id(DIRECTION, evidence, [item.node_id for item in options])
        task = direction.public_task(evidence, options, named, name, identifier)
        made.append(Frozen(task, {"options": {c.option_id: item.node_id for c, item in named}}))
    return made


def _planning_tasks(evidence: DomainEvidence, settings: TaskSettings, wanted: int,
                    rng: random.Random) -> list[Frozen]:
    """Sibling sets (children of one node) and mixed sets of the domain, as the builder samples them."""
    pool = direction_candidates(evidence, settings)
    name = domain_name(evidence.domain)
    by_parent: dict[str | None, list[NodeEvidence]] = {}
    for item in pool:
        by_parent.setdefault(item.node.parent_id, []).append(item)
    size = settings.candidates_per_task
    drawn: list[tuple[list[NodeEvidence], str]] = []
    for parent_id in sorted(by_parent, key=lambda value: value or ""):
        siblings = by_parent[parent_id]
        if min(size, len(siblings)) < 3:
            continue
        scope = display_name(evidence.nodes[parent_id].node) if parent_id in evidence.nodes else name
        drawn += [(options, scope) for options in
                  sample_option_sets(siblings, min(size, len(siblings)), settings.attempts_per_task, rng)]
    drawn += [(options, name) for options in sample_option_sets(pool, size, settings.attempts_per_task, rng)]
    rng.shuffle(drawn)
    made: list[Frozen] = []
    seen: set[tuple[str, ...]] = set()
    for options, scope in drawn:
        key = tuple(item.node_id for item in options)
        if len(made) >= wanted or key in seen:
            continue
        seen.add(key)
        named = planning.name_options(evidence, options, rng)
        identifier = _round_task_id(PLANNING, evidence, list(key))
        task = planning.public_task(evidence, options, named, scope, name, identifier)
        made.append(Frozen(task, {"options": {c.option_id: item.node_id for c, item in named},
                                  "scope": scope}))
    return made


def _venue_tasks(evidence: DomainEvidence, settings: TaskSettings, wanted: int,
                 rng: random.Random) -> list[Frozen]:
    """Eligible nodes with pre-cutoff venue papers; the five venue families as options (shuffled)."""
    nodes = [item for item in eligible_nodes(evidence, settings) if item.pre_venues]
    rng.shuffle(nodes)
    name = domain_name(evidence.domain)
    made = []
    for item in nodes[:wanted]:
        families = list(VENUE_FAMILIES)
        rng.shuffle(families)
        identifier = _round_task_id(VENUE, evidence, [item.node_id])
        task = venue.public_task(evidence, item, families, name, identifier)
        made.append(Frozen(task, {"node_id": item.node_id,
                                  "options": {c.name: c.option_id for c in task.candidates}}))
    return made


def _bottleneck_tasks(evidence: DomainEvidence, settings: TaskSettings, wanted: int,
                      rng: random.Random) -> list[Frozen]:
    """Eligible nodes with their own pre-cutoff bottlenecks as options (:mod:`.bottleneck_tasks`)."""
    made = bottleneck_tasks(evidence, settings, wanted, rng,
                            lambda decision: _round_task_id(BOTTLENECK, evidence, decision))
    return [Frozen(task, record) for task, record in made]


SAMPLERS = {DIRECTION: _direction_tasks, PLANNING: _planning_tasks, VENUE: _venue_tasks,
            BOTTLENECK: _bottleneck_tasks}


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
    for family in (family for family in families if family in SAMPLERS):  # concept_emergence: open.py
        for horizon in family_horizons(family, windows):
            queues = []
            for domain, evidences in per_domain.items():
                evidence = evidences[horizon]
                rng = random.Random(f"{seed}:{family}:{domain}:{horizon}")
                made = SAMPLERS[family](evidence, settings, per_window, rng)
                allowed = (frozenset(content_tokens(domain_name(domain)))
                           | snapshot_vocabulary(evidence.snapshot))
                first_seen = {node.node_id: node.first_seen for node in evidence.snapshot.nodes}
                queues.append([item for item in made if not lint_task(
                    item.task, None, evidence.pre_vocabulary, first_seen, allowed)])
            taken = 0
            while taken < per_window and any(queues):
                for queue in queues:
                    if queue and taken < per_window:
                        item = queue.pop(0)
                        if family == BOTTLENECK:
                            item.task = add_none_option(item.task, item.record)
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
    from foresci.rounds.emergence_items import NAME as EMERGENCE
    from foresci.rounds.emergence_items import resolve_emergence_tasks

    chosen = [item for item in frozen if item.record["horizon"] == horizon]
    if not chosen:
        return []
    window = make_window(chosen[0].task.cutoff, horizon)
    if (latest := last_announcement(kb)) < window.end:
        raise UserError(f"the KB ends on {latest}; the {horizon} window to {window.end} has not closed",
                        field="window")
    emergence = [item for item in chosen if item.task.family == EMERGENCE]
    chosen = [item for item in chosen if item.task.family != EMERGENCE]
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
    return rows + (resolve_emergence_tasks(emergence, window, kb) if emergence else [])


def resolution_row(item: Frozen, family: str, horizon: str, resolved: Resolved) -> dict[str, Any]:
    """The row ``resolutions/tasks-<window>.jsonl`` keeps of one task: ``status`` (``void`` only for an
    outcome-blind ``reason``), ``outcome`` (option id -> share), ``decisive`` (a hidden target: top-1 and
    FTA as a release scores them), ``note`` (why not decisive) and the ``hidden`` target."""
    hidden = resolved.hidden
    return {"task_id": item.task.task_id, "family": family, "domain": item.task.domain, "horizon": horizon,
            "status": "void" if resolved.void is not None else "resolved", "reason": resolved.void,
            "outcome": resolved.outcome, "decisive": hidden is not None, "note": resolved.note,
            "hidden": None if hidden is None else hidden.model_dump(mode="json")}


def resolve_one(item: Frozen, evidence: DomainEvidence, settings: TaskSettings) -> Resolved:
    """One frozen task on window evidence: the outcome over its options (the option that grew most, ties
    split), and the family's hidden target where the builder's gates find the window decisive."""
    task, record = item.task, item.record
    if task.family == BOTTLENECK:
        return resolve_bottleneck(task, record, evidence, settings)
    if task.family == VENUE:
        node = evidence.nodes[record["node_id"]]
        outcome = split_outcome({option: float(node.window_venues.get(name, 0))
                                 for name, option in dict(record["options"]).items()})
        reason = venue.void_reason(node, settings)
        if reason is not None:
            return Resolved(None, outcome, note=reason)
        prior = venue.domain_window_venues(evidence)
        venue_hidden, _ = venue.venue_target(evidence, node, dict(record["options"]), prior, task.task_id)
        return Resolved(None, outcome, venue_hidden)
    named = [(candidate, evidence.nodes[str(candidate.node_id)]) for candidate in task.candidates]
    options = sorted((node for _, node in named), key=lambda node: node.node_id)
    outcome = split_outcome({candidate.option_id: node.growth for candidate, node in named})
    target: HiddenTarget
    if task.family == DIRECTION:
        reason = direction.void_reason(options, settings)
        if reason is not None:
            return Resolved(None, outcome, note=reason)
        target, _, _ = direction.direction_target(evidence, options, named, settings, task.task_id)
    elif task.family == PLANNING:
        reason = planning.void_reason(options, settings, evidence)
        if reason is not None:
            return Resolved(None, outcome, note=reason)
        target, _ = planning.planning_target(evidence, options, named, str(task.context["domain_name"]),
                                             task.task_id)
    else:
        raise UserError(f"no prospective resolution for family {task.family!r}", field="family")
    record_dropped_twins([Built(task=task, hidden=target, decision_key=())], evidence, settings)
    return Resolved(None, outcome, target)


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
