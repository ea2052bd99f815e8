"""concept_emergence in rounds, on a generated emergence world: ``ce-`` tasks and ``ceq-`` questions frozen
from pre-cutoff papers only (the same bytes from a KB cut at the cutoff and from one holding the window),
resolved by the family's target count once the window has closed and never before, void where no single
pair leads, scored on the family boards and the Brier board, answered by the naive baselines."""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from foresci.core.errors import UserError
from foresci.core.io import iter_jsonl
from foresci.core.settings import Settings
from foresci.emergence.build import emergence_set
from foresci.emergence.concepts import concept_papers
from foresci.emergence.config import load_emergence_settings
from foresci.emergence.questions import pair_option
from foresci.emergence.resolve import pair_window_counts
from foresci.kb.models import Paper
from foresci.rounds.family_tasks import PreCutoffReader, load_frozen
from foresci.rounds.ledger import LedgerConfig, init_ledger, round_dir
from foresci.rounds.open import open_round
from foresci.rounds.submit import DeadlineError, round_questions, round_tasks, submit
from foresci.rounds.tick import tick
from foresci.sim.emergence import EmergenceWorldConfig, generate_emergence_world
from foresci.tasks.families.concept_emergence.forecasts import resolve_emergence_questions
from foresci.tasks.families.concept_emergence.rounds import (
    MIN_STRATUM,
    STRATA,
    EmergenceFreeze,
    emergence_outcome,
    resolve_emergence_tasks,
    strata_of,
)
from foresci.tasks.forecast import resolve_questions
from foresci.tasks.windows import make_window
from foresci.taxonomy.models import Snapshot
from tests.rounds.helpers import file_bytes, task_answers_file

CONFIG = EmergenceWorldConfig(seed=6, difficulty=0.0, concepts=60, planted_pairs=150, papers_per_pair=4,
                              min_papers_per_pair=1, papers_per_month=60, months_before=6)
DOMAIN = "synthetic"
WORLD = generate_emergence_world(CONFIG)
CUTOFF = CONFIG.cutoff
WINDOW = make_window(CUTOFF, "3m")
ROUND = f"r-{CUTOFF.isoformat()}"


class WorldKB:
    """The part of the KB API rounds read, over the world's papers up to ``until`` (None: all of them);
    ``clock`` pins the KB's last announcement day (default ``until``; a KB holding later papers than its
    clock says), and
    ``leak`` hands out every paper whatever ``until`` asks. Records the latest paper it handed out."""

    def __init__(self, until: date | None = None, clock: date | None = None, leak: bool = False) -> None:
        self._papers = [paper for paper in WORLD.papers if until is None or paper.announced <= until]
        self.domains = [DOMAIN]
        self.max_date = max(paper.announced for paper in self._papers)
        self.last_announcement = clock or until or self.max_date
        self.fingerprint, self.path, self.leak = f"world-{until}", "world", leak
        self.latest = date.min

    def papers(self, until: date | None = None, since: date | None = None, domain: str | None = None,
               statuses: tuple[str, ...] = ("core", "support")) -> list[Paper]:
        until = None if self.leak else until
        found = [paper for paper in self._papers if (until is None or paper.announced <= until)
                 and (since is None or paper.announced >= since)]
        self.latest = max([self.latest, *(paper.announced for paper in found)])
        return found

    def embeddings(self, paper_ids: list[str]) -> Any:
        return np.zeros((len(paper_ids), 4), dtype=np.float32)


SNAPSHOTS = {DOMAIN: Snapshot(domain=DOMAIN, cutoff=CUTOFF)}  # no taxonomy nodes: the world is all emergence


def _ledger(root: Path) -> Path:
    ledger = root / "ledger"
    init_ledger(ledger, LedgerConfig(schedule="manual", windows=["3m"], questions=2, family_tasks=6,
                                     emergence_questions=8, families=["concept_emergence"], min_items=2,
                                     bootstrap=20, seed=1))
    return ledger


@pytest.fixture(scope="module")
def opened(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ledger whose round was opened on the KB cut at the cutoff, the KB-reading baselines in."""
    ledger = _ledger(tmp_path_factory.mktemp("opened"))
    kb = WorldKB(until=CUTOFF)
    open_round(ledger, kb, Settings(), snapshots=SNAPSHOTS, view_for=lambda cutoff: _View(kb, cutoff))
    assert kb.latest <= CUTOFF
    return ledger


def _copy(ledger: Path, root: Path) -> Path:
    import shutil

    return Path(shutil.copytree(ledger, root / "ledger"))


def _tick(ledger: Path, kb: WorldKB) -> list[str]:
    return tick(ledger, kb, Settings(), snapshots=SNAPSHOTS)


def _freeze(kb: WorldKB) -> EmergenceFreeze:
    return EmergenceFreeze(PreCutoffReader(kb, CUTOFF), [DOMAIN], "1:r")


def _dump(freeze: EmergenceFreeze) -> str:
    tasks = [[item.task.model_dump(mode="json"), item.record] for item in freeze.tasks(["3m"], 6)]
    questions = [question.model_dump(mode="json") for question in freeze.questions("3m", 8)]
    return json.dumps([tasks, questions], sort_keys=True)


def test_freeze_reads_nothing_after_the_cutoff_and_the_future_changes_nothing() -> None:
    whole = WorldKB()
    seen = _dump(_freeze(whole))
    assert whole.latest <= CUTOFF < WORLD.papers[-1].announced
    assert seen == _dump(_freeze(WorldKB(until=CUTOFF)))
    with pytest.raises(UserError, match="after the round's cutoff"):
        _dump(_freeze(WorldKB(leak=True)))


def test_round_files_at_open_are_byte_identical_with_a_kb_cut_at_the_cutoff(opened: Path,
                                                                            tmp_path: Path) -> None:
    cut, full = opened, _ledger(tmp_path / "full")
    holding = WorldKB(clock=CUTOFF)  # its clock says the cutoff, its papers run to the window's end
    open_round(full, holding, Settings(), snapshots=SNAPSHOTS, view_for=lambda cutoff: _View(holding, cutoff))
    assert holding.latest <= CUTOFF

    def public(ledger: Path) -> dict[str, bytes]:  # package manifests hold their creation time
        files = file_bytes(round_dir(ledger, ROUND) / "public")
        return {name: data for name, data in files.items() if not name.endswith("manifest.json")}

    assert public(cut) == public(full)
    assert any(name.startswith("tasks/") for name in public(cut))
    questions = [json.loads(line) for line in public(cut)["3m/forecast.jsonl"].splitlines()]
    assert len(questions) == 8 and all(row["question_id"].startswith("ceq-") for row in questions)


def test_strata_split_the_candidates_by_the_pre_cutoff_score() -> None:
    freeze = _freeze(WorldKB(until=CUTOFF))
    snapshot = freeze.snapshot(DOMAIN, "3m")
    strata = strata_of(snapshot)
    sizes = [len(rows) for rows in strata]
    assert len(strata) == len(STRATA) and sum(sizes) == len(snapshot.candidates.pairs)
    assert len(np.unique(np.concatenate(strata))) == sum(sizes) and min(sizes) >= MIN_STRATUM
    frozen = freeze.tasks(["3m"], 6)
    assert len(frozen) == 6
    for index, item in enumerate(frozen):  # every pair from one stratum (the top two alternate), no
        # concept twice in a task (#43: one pair per stratum made the top stratum's pair win by default)
        keys = [key for pair in item.record["pairs"].values() for key in pair]
        assert len(keys) == len(set(keys)) == 8
        assert item.task.task_id.startswith("ce-") and "window_papers" not in item.task.model_dump_json()
        rows = {tuple(snapshot.vocabulary.keys[int(c)] for c in snapshot.candidates.pairs[row]): position
                for position, rows_of in enumerate(strata) for row in rows_of}
        assert [rows[tuple(pair)] for pair in item.record["pairs"].values()] == [index % 2] * 4


def test_resolution_counts_what_the_release_counts_for_the_same_pairs() -> None:
    settings = load_emergence_settings()
    papers = sorted(WORLD.papers, key=lambda paper: (paper.announced, paper.paper_id))
    target = emergence_set(concept_papers(papers, settings.vocabulary), CUTOFF, WINDOW.end, settings)
    pairs = target.snapshot.candidates.pairs
    keys = target.snapshot.vocabulary.keys
    chosen = np.random.default_rng(0).choice(len(pairs), size=200, replace=False)
    chosen = np.concatenate([chosen, np.flatnonzero(target.counts > 0)[:50]])
    window = [paper for paper in papers if CUTOFF < paper.announced <= WINDOW.end]
    named = [(keys[int(pairs[row, 0])], keys[int(pairs[row, 1])]) for row in chosen]
    expected = [int(target.counts[row]) for row in chosen]
    assert pair_window_counts(window, named, settings.vocabulary) == expected
    assert int(target.counts[chosen].max()) >= 1


def test_outcome_rule_voids_where_no_single_pair_leads() -> None:
    assert str(emergence_outcome("t", {"A": 0, "B": 0, "C": 0, "D": 0}, 1)[0]).startswith("nothing emerged")
    tied = emergence_outcome("t", {"A": 2, "B": 2, "C": 0, "D": 1}, 1)[0]
    assert str(tied).startswith("tie at the top: A, B")
    reason, hidden = emergence_outcome("t", {"A": 0, "B": 3, "C": 0, "D": 1}, 1)
    assert reason is None and hidden is not None
    assert hidden.ranking[:2] == ["B", "D"] and sorted(hidden.ranking[2:]) == ["A", "C"]
    assert hidden.window_papers == {"A": 0, "B": 3, "C": 0, "D": 1}


def test_open_tick_resolves_after_the_window_closes_and_never_before(opened: Path, tmp_path: Path) -> None:
    ledger = _copy(opened, tmp_path)
    before = WorldKB(until=CUTOFF)
    folder = round_dir(ledger, ROUND)
    tasks, questions = round_tasks(folder), round_questions(folder, _manifest(ledger))
    assert {task.family for task in tasks} == {"concept_emergence"} and len(tasks) == 6
    assert {question.question_id[:4] for question in questions} == {"ceq-"} and len(questions) == 8
    assert all(0 < float(question.baseline or 0) < 1 for question in questions)
    submit(ledger, ROUND, before, task_answers=task_answers_file(tmp_path / "t.jsonl", tasks, "first-pick"))
    with pytest.raises(DeadlineError, match="closed"):
        submit(ledger, ROUND, WorldKB(until=CUTOFF + timedelta(days=3)),
               task_answers=task_answers_file(tmp_path / "late.jsonl", tasks, "late"))
    day_before = WorldKB(until=WINDOW.end, clock=WINDOW.end - timedelta(days=1))
    actions = _tick(ledger, day_before)
    assert not any("resolved" in action for action in actions)
    assert not (folder / "resolutions").exists()
    with pytest.raises(UserError, match="has not closed"):
        frozen, _, _ = load_frozen(folder / "public")
        from foresci.rounds.family_tasks import resolve_tasks

        resolve_tasks(frozen, "3m", day_before, load_frozen(folder / "public")[1], {})
    closed = WorldKB(until=WINDOW.end)
    actions = _tick(ledger, closed)
    assert f"resolved {ROUND} 3m (8 questions)" in actions
    assert any(action.startswith(f"resolved {ROUND} tasks-3m (6 tasks") for action in actions)
    rows = list(iter_jsonl(folder / "resolutions" / "tasks-3m.jsonl"))
    assert {row["status"] for row in rows} == {"resolved"}, rows  # no outcome voids
    assert {row["decisive"] for row in rows} == {True, False}, rows  # this world gives both
    frozen = load_frozen(folder / "public")[0]
    window = [paper for paper in closed.papers(until=WINDOW.end) if paper.announced > CUTOFF]
    for row, item in zip(rows, frozen, strict=True):
        named = [tuple(item.record["pairs"][option]) for option in sorted(item.record["pairs"])]
        counts = pair_window_counts(window, named, load_emergence_settings().vocabulary)
        if row["decisive"]:
            assert [row["hidden"]["window_papers"][o] for o in sorted(item.record["pairs"])] == counts
            assert row["hidden"]["ranking"][-1] == item.record["none_option"]  # it did not happen
        elif max(counts) < item.record["min_papers"]:  # nothing emerged: "none of these"
            assert row["hidden"] is None and row["outcome"] == {item.record["none_option"]: 1.0}
        else:  # the most-used pairs tie: the outcome is split among them
            options = sorted(item.record["pairs"])
            leaders = [o for o, c in zip(options, counts, strict=True) if c == max(counts)]
            assert row["outcome"] == {o: 1.0 / len(leaders) for o in leaders}, row
    assert rows == resolve_emergence_tasks(frozen, WINDOW, closed)
    outcomes = {row["question_id"]: row["outcome"] for row in iter_jsonl(folder / "resolutions" / "3m.jsonl")}
    assert outcomes == {row.question_id: row.outcome for row in resolve_questions(questions, {}, closed)}
    assert 0 < sum(outcomes.values()) < len(outcomes)  # the strata give both outcomes here
    board = json.loads((ledger / "board.json").read_text())
    scored = {row["task_id"] for row in iter_jsonl(folder / "task_scores.jsonl")}
    assert scored == {row["task_id"] for row in rows}  # every task scored
    top1 = {entry["method"] for entry in board["family_boards"]["top1"]["methods"]}
    fta = {entry["method"] for entry in board["family_boards"]["fta_ranking"]["methods"]}
    assert {"first-pick"} <= top1 and {"first-pick"} <= fta
    brier = {entry["method"] for entry in board["boards"]["brier"]["methods"]}
    assert {"always-0.5", "base-rate", "persistence", "trend"} <= brier
    assert {"persistence", "trend"} <= top1
    assert _tick(ledger, closed) == []  # idempotent


def test_baselines_answer_ce_items_at_open(opened: Path) -> None:
    ledger = opened
    folder = round_dir(ledger, ROUND)
    tasks = {task.task_id for task in round_tasks(folder)}
    questions = {question.question_id for question in round_questions(folder, _manifest(ledger))}
    for method in ("persistence", "trend"):
        base = next((folder / "submissions" / method).iterdir())
        rows = iter_jsonl(base / "task_answers.jsonl")
        answered = {row["task_id"] for row in rows if row["status"] == "ok"}
        assert answered == tasks, method
        forecasts = {row["question_id"]: row for row in iter_jsonl(base / "forecasts.jsonl")}
        assert set(forecasts) == questions, method
        assert all(row["status"] == "ok" and 0 < row["probability"] < 1 for row in forecasts.values())


def test_release_questions_resolve_by_their_names(tmp_path: Path) -> None:
    """A release's ceq- question (no concept keys in params) resolves to its frozen outcome."""
    from foresci.emergence.build import EmergenceSet
    from foresci.tasks.families.concept_emergence.forecasts import binary_questions

    settings = load_emergence_settings()
    papers = sorted(WORLD.papers, key=lambda paper: (paper.announced, paper.paper_id))
    target: EmergenceSet = emergence_set(concept_papers(papers, settings.vocabulary), CUTOFF, WINDOW.end,
                                         settings)
    made = binary_questions(target, DOMAIN, "3m", 1, 12, 0.1, seed=3)
    found = resolve_emergence_questions([question for question, _ in made], WorldKB(until=WINDOW.end))
    assert [row.outcome for row in found] == [resolution.outcome for _, resolution in made]
    assert {row.outcome for row in found} == {0.0, 1.0}
    assert pair_option(target.snapshot, 0).first  # the names the questions carry come from the snapshot


class _View:
    """A KB view at a cutoff over the world KB (what the baselines read)."""

    def __init__(self, kb: WorldKB, cutoff: date) -> None:
        self.kb, self.cutoff = kb, cutoff

    def papers(self, domain: str | None = None, statuses: tuple[str, ...] = ()) -> list[Paper]:
        return self.kb.papers(until=self.cutoff)

    def monthly_counts(self, domain: str | None = None) -> dict[str, int]:
        from collections import Counter

        return dict(sorted(Counter(paper.announced.strftime("%Y-%m") for paper in self.papers()).items()))


def _manifest(ledger: Path) -> Any:
    from foresci.rounds.ledger import load_round

    return load_round(ledger, ROUND)


def test_rounds_init_takes_the_emergence_question_count(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from foresci.cli import app
    from foresci.rounds.ledger import load_config

    result = CliRunner().invoke(app, ["rounds", "init", str(tmp_path / "l"), "--emergence-questions", "3"])
    assert result.exit_code == 0, result.output
    config = load_config(tmp_path / "l")
    assert config.emergence_questions == 3 and "concept_emergence" in config.families


def test_questions_spread_over_the_strata() -> None:
    freeze = _freeze(WorldKB(until=CUTOFF))
    snapshot = freeze.snapshot(DOMAIN, "3m")
    stratum = {tuple(snapshot.vocabulary.keys[int(c)] for c in snapshot.candidates.pairs[row]): position
               for position, rows in enumerate(strata_of(snapshot)) for row in rows}
    questions = freeze.questions("3m", 8)
    assert [stratum[tuple(q.params["concept_keys"])] for q in questions] == [0, 1, 2, 3, 0, 1, 2, 3]
    rates = freeze.stratum_base_rates(DOMAIN, "3m")
    assert [q.baseline for q in questions] == [rates[position % 4] for position in range(8)]
