"""Every family's candidate tasks from a domain's window evidence, and why the tasks a builder made were
dropped on the way (the leakage lint, a release check), so a family left with no candidate can say which
check took them, with a count and an example."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from foresci.tasks.builders.common import Built
from foresci.tasks.config import TaskSettings
from foresci.tasks.domain_inputs import domain_name, snapshot_vocabulary
from foresci.tasks.evidence import DomainEvidence
from foresci.tasks.families import family_names, get_family
from foresci.tasks.lint import lint_task
from foresci.tasks.release_checks import screen, take_refusals
from foresci.tasks.text import content_tokens

LINT = "leakage lint"
REFUSED = "refused by the builder"
UNSEEN_WORDS = "public words never seen before the cutoff"


@dataclass
class Drops:
    """One family's built tasks and what dropped them: per check, how many and the first example."""

    built: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    examples: dict[str, str] = field(default_factory=dict)

    def add(self, check: str, example: str) -> None:
        """Count one task (or, for the builder's own refusals, one option set) dropped by ``check``."""
        self.counts[check] = self.counts.get(check, 0) + 1
        self.examples.setdefault(check, example)

    def merge(self, other: Drops) -> None:
        """Add ``other``'s tasks and drops (examples: the first one seen stays)."""
        self.built += other.built
        for check, count in other.counts.items():
            self.counts[check] = self.counts.get(check, 0) + count
            self.examples.setdefault(check, other.examples[check])

    def record(self) -> dict[str, Any]:
        """The manifest's record: built tasks, and per check its count and one example."""
        return {"built": self.built, "checks": {check: {"count": count, "example": self.examples[check]}
                                                 for check, count in self.counts.items()}}


def _lint_drop(problem: str) -> str:
    """A lint problem without its "task ID: " prefix (the example a user reads)."""
    return problem.split(": ", 1)[1] if problem.startswith("task ") and ": " in problem else problem


def candidate_pool(evidences: Sequence[DomainEvidence], settings: TaskSettings, per_family: int,
                   families: Sequence[str] | None = None,
                   seconds: dict[str, float] | None = None,
                   drops: dict[str, Drops] | None = None) -> tuple[dict[str, list[Built]], list[str]]:
    """Run every family's builder (default: every registered family) on the evidence of each window the
    family reads (its ``horizons``); drop tasks the leakage lint flags.

    Every candidate that passes the lint then meets the release checks (:func:`foresci.tasks.
    release_checks.screen`); one that fails any is dropped, and its findings join the problems as
    "check:NAME: task id: detail" (with the builders' own refusals, e.g. concept pairs never drawn).

    Returns the candidates per family and the lint problems of dropped tasks. ``seconds``: where to add
    each family's build time (builder and lint, summed over domains and windows). ``drops``: where to
    count, per family, the tasks built and the check that dropped each one (the first failing check).
    """
    chosen = [get_family(name) for name in (family_names() if families is None else families)]
    pools: dict[str, list[Built]] = {family.name: [] for family in chosen}
    problems: list[str] = []
    tally = drops if drops is not None else {}
    for evidence in evidences:
        name = domain_name(evidence.domain)
        allowed = frozenset(content_tokens(name)) | snapshot_vocabulary(evidence.snapshot)
        first_seen = {node.node_id: node.first_seen for node in evidence.snapshot.nodes}
        for family in chosen:
            if evidence.window.horizon not in family.horizons:
                continue
            dropped = tally.setdefault(family.name, Drops())
            started = time.perf_counter()
            for item in family.build(evidence, settings, name, per_family):
                dropped.built += 1
                found = lint_task(item.task, item.hidden, evidence.pre_vocabulary, first_seen, allowed)
                if found:
                    problems.extend(found)
                    dropped.add(LINT, _lint_drop(found[0]))
                    continue
                failed = screen(item.task, item.hidden, evidence, settings)
                if failed:
                    problems.extend(f"check:{check}: {item.task.task_id}: {detail}"
                                    for check, detail in failed)
                    dropped.add(f"release check {failed[0][0]}", failed[0][1])
                    continue
                pools[family.name].append(item)
            refusals = take_refusals(evidence.domain, evidence.window.horizon)
            for line in refusals:
                check, _, detail = line.removeprefix("check:").partition(": ")
                dropped.add(f"{REFUSED} ({check})", detail)
            problems.extend(refusals)
            if seconds is not None:
                seconds[family.name] = seconds.get(family.name, 0.0) + time.perf_counter() - started
    return pools, problems


def merge_drops(parts: Sequence[Mapping[str, Drops]]) -> dict[str, Drops]:
    """Per family, the drops of several domains added up."""
    merged: dict[str, Drops] = {}
    for part in parts:
        for family, dropped in part.items():
            merged.setdefault(family, Drops()).merge(dropped)
    return merged


def no_candidate_record(pools: Mapping[str, Sequence[Built]], drops: Mapping[str, Drops]) -> dict[str, Any]:
    """The manifest's record of the families left with no candidate task: what their builders made and
    which checks dropped it (empty when every family has candidates, so such a manifest is unchanged)."""
    return {family: drops[family].record() for family, items in pools.items()
            if not items and family in drops and drops[family].counts}


def why_no_candidate(record: Mapping[str, Any]) -> str:
    """One line saying which checks dropped a family's every built task (``record``: an entry of
    :func:`no_candidate_record`), with counts and an example, and what to do about an unseen word."""
    built = int(record.get("built", 0))
    checks: Mapping[str, Any] = record.get("checks", {})
    named = []
    for check, entry in sorted(checks.items(), key=lambda pair: -int(pair[1]["count"])):
        named.append(f"{entry['count']} by the {check} (e.g. {entry['example']!r})")
    if built:
        line = f"all {built} built tasks were dropped: " + "; ".join(
            text for text in named if not text.split(" by the ", 1)[1].startswith(REFUSED))
        refused = [text for text in named if text.split(" by the ", 1)[1].startswith(REFUSED)]
        if refused:
            line += "; the builder also refused option sets: " + "; ".join(refused)
    else:
        line = "its builder built no task; option sets refused: " + "; ".join(named)
    if any(entry["example"].startswith(UNSEEN_WORDS) for check, entry in checks.items() if check == LINT):
        line += ("; words the family's question templates add belong in its template_text() (the lint "
                 "allows them)")
    return line
