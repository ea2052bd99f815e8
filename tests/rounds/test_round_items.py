"""A family's own round items (``TaskFamily.round_items``): a family from outside foresci whose items are
not one option set per domain evidence opens them at a round's open (tasks frozen into the round, questions
into its packages) and resolves them at tick through its hooks; the rounds code names no family."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from foresci.core.settings import Settings
from foresci.rounds.family_tasks import load_frozen, resolve_tasks
from foresci.rounds.ledger import LedgerConfig, init_ledger, load_round, round_dir
from foresci.rounds.open import open_round
from foresci.tasks.families import TaskFamily
from foresci.tasks.families.round_outcome import Frozen, Resolved, resolution_row
from foresci.tasks.models import Candidate, Task
from foresci.tasks.windows import Window, make_window
from tests.rounds.test_emergence_items import CUTOFF, DOMAIN, SNAPSHOTS, WINDOW, WorldKB
from tests.support.families import registered_family

NAME = "itemised_toy_family"
CALLS: list[tuple[str, Any]] = []


class _Answer(BaseModel):
    note: str = ""


class _Itemised(TaskFamily):
    name = NAME
    abbreviation = "it"
    answer_schema = _Answer
    deliverables = ("Say something.",)
    metrics = ("trace_offline",)
    hidden_target = "foresci.tasks.hidden:HiddenTarget"
    round_items = __name__


class _Items:
    """Its items at one round's open: one two-option task per window, no questions."""

    def __init__(self, reader: Any, domains: Sequence[str]) -> None:
        self.reader, self.domains = reader, list(domains)
        reader.papers(self.domains[0])  # reads through the round's pre-cutoff reader

    def round_tasks(self, windows: Sequence[str], per_window: int) -> list[Frozen]:
        made = []
        for horizon in windows:
            window = make_window(self.reader.cutoff, horizon)
            task = Task(task_id=f"it-{horizon}", family=NAME, domain=self.domains[0], cutoff=window.cutoff,
                        horizon=horizon, window_start=window.start, window_end=window.end,
                        title="Which will lead?", question="Which option will lead?",
                        candidates=[Candidate(option_id="A", name="first"),
                                    Candidate(option_id="B", name="second")])
            made.append(Frozen(task, {"task_id": task.task_id, "family": NAME, "domain": task.domain,
                                      "horizon": horizon}))
        return made[:per_window * len(windows)]

    def round_questions(self, window: str, wanted: int, supply: Any) -> list[Any]:
        CALLS.append(("questions", (window, wanted)))
        return []


def open_items(reader: Any, domains: Sequence[str], seed: str, config: Any) -> _Items:
    CALLS.append(("open", (list(domains), seed)))
    return _Items(reader, domains)


def resolve_items(frozen: Sequence[Frozen], window: Window, kb: Any) -> list[dict[str, Any]]:
    return [resolution_row(item, NAME, window.horizon, Resolved(None, {"B": 1.0})) for item in frozen]


@pytest.fixture
def itemised() -> Iterator[None]:
    CALLS.clear()
    with registered_family(_Itemised):
        yield


def test_a_family_from_outside_opens_and_resolves_its_own_round_items(itemised: None, tmp_path: Path) -> None:
    ledger = tmp_path / "ledger"
    init_ledger(ledger, LedgerConfig(schedule="manual", windows=["3m"], questions=2, family_tasks=1,
                                     emergence_questions=5, families=[NAME], min_items=2, bootstrap=20,
                                     seed=1))
    kb = WorldKB(until=CUTOFF)
    round_id = open_round(ledger, kb, Settings(), snapshots=SNAPSHOTS)
    assert [("open", ([DOMAIN], f"1:{round_id}")), ("questions", ("3m", 5))] == CALLS
    frozen, settings, snapshots = load_frozen(round_dir(ledger, round_id) / "public")
    assert [item.task.task_id for item in frozen] == ["it-3m"]
    assert load_round(ledger, round_id).counts["tasks_by_family"] == {NAME: 1}
    assert kb.latest <= CUTOFF
    rows = resolve_tasks(frozen, "3m", WorldKB(until=WINDOW.end), settings, snapshots)
    assert [(row["task_id"], row["family"], row["outcome"]) for row in rows] == [("it-3m", NAME, {"B": 1.0})]
