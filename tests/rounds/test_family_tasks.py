"""Family tasks in rounds: frozen from pre-cutoff papers only, resolved exactly as a release would resolve the
same option set, void where the builder's gates find no clear answer, and scored only when resolved."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from foresci.core.errors import UserError
from foresci.core.io import iter_jsonl
from foresci.rounds.family_tasks import FAMILIES, Frozen, freeze_tasks, resolve_tasks
from foresci.rounds.ledger import load_round, round_dir
from foresci.rounds.submit import round_tasks, submit
from foresci.tasks.builders.common import Built
from foresci.tasks.domain_inputs import evidence_for_windows
from foresci.tasks.families.direction_forecasting.builder import build_direction_tasks
from foresci.tasks.families.strategic_planning.builder import build_planning_tasks
from foresci.tasks.families.venue_positioning.builder import build_venue_tasks
from foresci.tasks.windows import make_window
from tests.rounds.helpers import make_ledger, task_answers_file, toy_settings, toy_tick
from tests.tasks.toy import CUTOFF, ToyKB

ROUND = f"r-{CUTOFF.isoformat()}"


class AuditedKB(ToyKB):
    """The whole toy world (papers after the cutoff too), recording the latest paper it handed out."""

    def __init__(self, leak: bool = False) -> None:
        super().__init__(until=None)
        self.leak, self.latest = leak, date.min

    def papers(self, until: date | None = None, since: date | None = None, domain: str | None = None,
               statuses: tuple[str, ...] = ("core", "support")) -> list[Any]:
        found = super().papers(until=None if self.leak else until, since=since, domain=domain)
        self.latest = max([self.latest, *(paper.announced for paper in found)])
        return found


def _freeze(kb: Any) -> list[Frozen]:
    settings = toy_settings()
    snapshots = {"toy": ToyKB(until=CUTOFF).snapshot}
    return freeze_tasks(kb, CUTOFF, snapshots, FAMILIES, ["3m", "6m"], 3, settings.tasks, "1:r")[0]


def _dump(frozen: list[Frozen]) -> list[str]:
    return [json.dumps([item.task.model_dump(mode="json"), item.record], sort_keys=True) for item in frozen]


def test_freeze_reads_nothing_after_the_cutoff() -> None:
    whole = AuditedKB()
    frozen = _freeze(whole)
    assert date(2025, 12, 1) <= whole.latest <= CUTOFF  # read up to the cutoff, never past it
    assert {item.task.family for item in frozen} == set(FAMILIES)
    assert {item.task.horizon for item in frozen} == {"3m", "6m", "venue_cycle"}
    assert all(item.task.window_start > item.task.cutoff == CUTOFF for item in frozen)
    assert _dump(frozen) == _dump(_freeze(ToyKB(until=CUTOFF)))  # the future changes nothing
    with pytest.raises(UserError, match="after the round's cutoff"):
        _freeze(AuditedKB(leak=True))  # a KB that hands out later papers is caught, not used


def _release_pool(horizon: str) -> tuple[list[Built], Any]:
    """What a release at CUTOFF builds for ``horizon`` on the whole toy world (before selection)."""
    kb, settings = ToyKB(), toy_settings().tasks
    papers = kb.papers(until=make_window(CUTOFF, "6m").end)
    evidence = evidence_for_windows(kb.snapshot, papers, kb.embeddings([p.paper_id for p in papers]),
                                    [make_window(CUTOFF, horizon)])[0]
    if horizon == "venue_cycle":
        return build_venue_tasks(evidence, settings, "toy", 10), evidence
    return (build_direction_tasks(evidence, settings, "toy", 10)
            + build_planning_tasks(evidence, settings, "toy", 10)), evidence


@pytest.mark.parametrize("horizon", ["3m", "venue_cycle"])
def test_resolution_equals_the_release_for_the_same_option_set(horizon: str) -> None:
    built, _ = _release_pool(horizon)
    assert {item.task.family for item in built} >= ({"venue_positioning"} if horizon == "venue_cycle"
                                                     else {"direction_forecasting", "strategic_planning"})
    frozen = []
    for item in built:
        record: dict[str, Any] = {"horizon": horizon}
        if item.task.family == "venue_positioning":
            record |= {"node_id": item.hidden.stats["node_id"], "options": item.hidden.stats["options"]}
        else:
            record["options"] = {c.option_id: c.node_id for c in item.task.candidates}
        frozen.append(Frozen(item.task, record))
    snapshots = {"toy": ToyKB(until=CUTOFF).snapshot}
    rows = resolve_tasks(frozen, horizon, ToyKB(), toy_settings().tasks, snapshots)
    assert [row["status"] for row in rows] == ["resolved"] * len(built)
    for row, item in zip(rows, built, strict=True):
        assert row["hidden"] == item.hidden.model_dump(mode="json")


def test_decisive_rule_matches_the_builders_gates_and_every_task_is_scored(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path)
    toy_tick(ledger, CUTOFF)
    folder = round_dir(ledger, ROUND)
    submit(ledger, ROUND, ToyKB(until=CUTOFF),
           task_answers=task_answers_file(tmp_path / "t.jsonl", round_tasks(folder), "mine"))
    toy_tick(ledger, None)
    paths = sorted((folder / "resolutions").glob("tasks-*.jsonl"))
    rows = [row for path in paths for row in iter_jsonl(path)]
    assert len(rows) == load_round(ledger, ROUND).tasks
    assert all(row["status"] == "resolved" and row["reason"] is None for row in rows)  # no outcome voids
    loose = {row["task_id"] for row in rows if not row["decisive"]}
    assert loose and all(row["note"] and row["hidden"] is None for row in rows if row["task_id"] in loose)
    assert all(abs(sum(row["outcome"].values()) - 1.0) < 1e-9 for row in rows)
    # a task that is not decisive is one the release drops: no built task of the window has its options
    built, _ = _release_pool("3m")
    built_sets = {(item.task.family, frozenset(c.node_id for c in item.task.candidates)) for item in built}
    for task in round_tasks(folder):  # (bottleneck tasks: tests/rounds/test_bottleneck_rounds.py)
        if task.horizon == "3m" and task.family in ("direction_forecasting", "strategic_planning"):
            key = (task.family, frozenset(c.node_id for c in task.candidates))
            assert (key in built_sets) == (task.task_id not in loose), task.task_id
    scores = list(iter_jsonl(folder / "task_scores.jsonl"))
    assert {row["task_id"] for row in scores} == {row["task_id"] for row in rows}  # every task scored
    assert {row["task_id"] for row in scores if row["metric"] == "mbrier"} == {row["task_id"] for row in rows}
    assert not any(row["metric"] == "fta" and row["task_id"] in loose for row in scores)
    counts = json.loads((ledger / "board.json").read_text())["rounds"][0]["tasks"]
    assert (counts["frozen"], counts["void"], counts["resolved"]) == (len(rows), 0, len(rows))
    assert counts["decisive"] == len(rows) - len(loose)
    top1 = json.loads((ledger / "board.json").read_text())["family_boards"]["top1"]
    assert {entry["method"] for entry in top1["methods"]} == {"mine"}  # recency reads the KB: none here


def test_tasks_are_not_resolved_before_their_window_closes(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path)
    toy_tick(ledger, CUTOFF)
    folder = round_dir(ledger, ROUND)
    actions = toy_tick(ledger, date(2026, 3, 30))
    assert not any("tasks-" in action for action in actions)
    assert not list(folder.glob("resolutions/tasks-*"))
    actions = toy_tick(ledger, date(2026, 3, 31))  # the 3m window closed; the venue cycle has not
    assert any(action.startswith(f"resolved {ROUND} tasks-3m") for action in actions)
    assert not (folder / "resolutions" / "tasks-venue_cycle.jsonl").exists()
    with pytest.raises(UserError, match="has not closed"):
        from foresci.rounds.family_tasks import load_frozen

        frozen, settings, snapshots = load_frozen(folder / "public")
        resolve_tasks(frozen, "venue_cycle", ToyKB(until=date(2026, 3, 31)), settings, snapshots)


def test_task_answers_refused_after_the_deadline(tmp_path: Path) -> None:
    from foresci.rounds.submit import DeadlineError

    ledger = make_ledger(tmp_path)
    toy_tick(ledger, CUTOFF)
    made = task_answers_file(tmp_path / "t.jsonl", round_tasks(round_dir(ledger, ROUND)), "late")
    with pytest.raises(DeadlineError, match="closed"):
        submit(ledger, ROUND, ToyKB(until=date(2026, 1, 2)), task_answers=made)
    assert not (round_dir(ledger, ROUND) / "submissions" / "late").exists()
