"""Release build on the toy KB, file round trip, validation and CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from foresci.cli import app
from foresci.core.errors import UserError
from foresci.core.io import iter_jsonl, write_jsonl
from foresci.core.settings import Settings
from foresci.tasks.build import build_release
from foresci.tasks.families import family_names
from foresci.tasks.hidden_io import load_hidden
from foresci.tasks.release import load_release
from foresci.tasks.validate import validate_release
from tests.tasks.toy import CUTOFF, ToyKB


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    kb = ToyKB()
    settings = Settings()
    settings.tasks.min_support = 5
    settings.tasks.enforce_gates = False
    out = tmp_path_factory.mktemp("release")
    return build_release(kb, out, CUTOFF, settings=settings, per_family=6, snapshots={"toy": kb.snapshot})


def test_release_files_round_trip(release: Path) -> None:
    loaded = load_release(release)
    hidden = load_hidden(release)
    assert {task.task_id for task in loaded.tasks} == set(hidden)
    assert loaded.manifest["counts"]["tasks"] == len(loaded.tasks)
    assert set(loaded.manifest["hashes"]) == {"tasks.jsonl", "hidden.jsonl"}
    # the toy KB's few short texts hold no concept used by 5 papers: no concept_emergence task
    assert {task.family for task in loaded.tasks} == set(family_names()) - {"concept_emergence"}
    assert {task.horizon for task in loaded.tasks if task.family == "venue_positioning"} <= {"venue_cycle"}
    assert validate_release(release) == []


def test_tasks_build_names_a_family_left_empty(release: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A family with no task in the release gets one stderr line with the reason (the toy KB holds no
    concept used by 5 papers, so concept_emergence has no candidate); families with tasks get none, and a
    family nobody asked for is not named."""
    from foresci.tasks.cli import _warn_empty_families

    manifest = load_release(release).manifest
    _warn_empty_families(manifest, None)
    lines = capsys.readouterr().err.splitlines()
    assert lines == [line for line in lines if line.startswith("warning: no concept_emergence task: ")]
    assert len(lines) == 1 and "no candidate task in any domain and window" in lines[0]
    _warn_empty_families(manifest, ["direction_forecasting"])
    assert capsys.readouterr().err == ""
    emptied = {**manifest, "counts": {**manifest["counts"],
                                      "by_family": {"strategic_planning": 3}, "rejected_families": {},
                                      "candidates_by_family": {"direction_forecasting": 7}}}
    _warn_empty_families(emptied, ["direction_forecasting", "strategic_planning"])
    assert capsys.readouterr().err.splitlines() == [
        "warning: no direction_forecasting task: its 7 candidate tasks were all dropped while selecting "
        "(lint, near-duplicate options, label and persistence balance)"]


def test_gates_drop_a_family_whose_winners_all_share_a_label(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """The family is left out of the files, and `tasks build` says so with the gate failures (its audit
    printout covers only what was written: at cutoff 2025-06-30 the real KB's direction family vanished
    without a word)."""
    from foresci.tasks.cli import _warn_rejected_families

    kb = ToyKB()
    settings = Settings()
    settings.tasks.min_support = 5
    build_release(kb, tmp_path, CUTOFF, settings=settings, per_family=6, snapshots={"toy": kb.snapshot})
    loaded = load_release(tmp_path)
    rejected = loaded.manifest["counts"]["rejected_families"]
    assert "accelerating" in " ".join(rejected["direction_forecasting"])
    assert "direction_forecasting" not in {task.family for task in loaded.tasks}
    assert set(load_hidden(tmp_path)) == {task.task_id for task in loaded.tasks}
    _warn_rejected_families(loaded.manifest)
    warning = capsys.readouterr().err
    assert warning.startswith("warning: left out family direction_forecasting (")
    assert "accelerating" in warning


def test_build_refuses_an_open_window(tmp_path: Path) -> None:
    kb = ToyKB(until=CUTOFF)
    with pytest.raises(UserError, match="has not closed"):
        build_release(kb, tmp_path, CUTOFF, snapshots={"toy": kb.snapshot})


def test_validate_catches_mismatch_and_leak(release: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    rows = list(iter_jsonl(release / "tasks.jsonl"))
    hidden = list(iter_jsonl(release / "hidden.jsonl"))
    leaked = next(row for row in hidden if row["stats"].get("post_cutoff_terms"))
    target = next(row for row in rows if row["task_id"] == leaked["task_id"])
    target["question"] += " Hint: " + leaked["stats"]["post_cutoff_terms"][0]
    write_jsonl(broken / "tasks.jsonl", rows)
    other = next(row for row in hidden if row is not leaked)
    kept = [row for row in hidden if row is not other]
    write_jsonl(broken / "hidden.jsonl", [*kept, {**other, "task_id": "orphan"}])
    problems = validate_release(broken)
    assert any("post-cutoff term" in problem for problem in problems)
    assert any("orphan" in problem for problem in problems)
    assert any("no hidden target" in problem for problem in problems)


def test_cli_show_validate_audit(release: Path) -> None:
    runner = CliRunner()
    shown = runner.invoke(app, ["tasks", "show", str(release)])
    assert shown.exit_code == 0 and f"({len(load_release(release).tasks)} tasks;" in shown.output
    assert "not reviewed" in " ".join(shown.output.split())
    first = load_release(release).tasks[0].task_id
    one = runner.invoke(app, ["tasks", "show", str(release), "--task", first])
    assert one.exit_code == 0 and first in one.output and "post_cutoff_terms" not in one.output
    assert runner.invoke(app, ["tasks", "validate", str(release)]).output.strip() == (
        "valid; review: not reviewed (foresci tasks review)")
    audit = runner.invoke(app, ["tasks", "audit", str(release)])
    assert audit.exit_code == 0 and "persistence match" in audit.output


def test_show_at_80_columns_cuts_no_name(release: Path) -> None:
    shown = CliRunner().invoke(app, ["tasks", "show", str(release)], env={"COLUMNS": "80"})
    assert shown.exit_code == 0, shown.output
    assert "…" not in shown.output
    words = set(shown.output.split())
    for task in load_release(release).tasks:
        assert {task.task_id, task.family, task.horizon} <= words


def test_families_choose_what_is_built_and_which_windows_must_have_closed(tmp_path: Path) -> None:
    from foresci.tasks.windows import make_window

    settings = Settings()
    settings.tasks.min_support = 5
    settings.tasks.enforce_gates = False
    kb = ToyKB(until=make_window(CUTOFF, "3m").end)  # the 3m window closed, the venue cycle not yet
    warnings: list[str] = []
    out = build_release(kb, tmp_path / "all", CUTOFF, windows=("3m",), settings=settings, per_family=6,
                        snapshots={"toy": kb.snapshot}, progress=warnings.append)
    families = {task.family for task in load_release(out).tasks}
    assert "venue_positioning" not in families and {"strategic_planning", "direction_forecasting"} <= families
    assert any("left out venue_positioning" in line and "venue_cycle window" in line for line in warnings)
    with pytest.raises(UserError, match=r"venue_positioning reads the venue_cycle window .* has not closed"):
        build_release(kb, tmp_path / "venue", CUTOFF, windows=("3m",), settings=settings, per_family=6,
                      snapshots={"toy": kb.snapshot}, families=["venue_positioning"])
    with pytest.raises(UserError, match=r"the 6m window \(2026-01-01\.\.2026-06-30\) has not closed"):
        build_release(kb, tmp_path / "six", CUTOFF, windows=("3m", "6m"), settings=settings, per_family=6,
                      snapshots={"toy": kb.snapshot})
    chosen = ["strategic_planning", "bottleneck_opportunity"]
    out = build_release(kb, tmp_path / "two", CUTOFF, windows=("3m",), settings=settings, per_family=6,
                        snapshots={"toy": kb.snapshot}, families=chosen)
    loaded = load_release(out)
    assert {task.family for task in loaded.tasks} == set(chosen)
    assert loaded.manifest["inputs"]["families"] == chosen
    result = CliRunner().invoke(app, ["tasks", "build", str(tmp_path), "--cutoff", "2025-01-31", "--out",
                                      str(tmp_path / "x"), "--families", "direction_forecasting,nope"],
                                 env={"COLUMNS": "300"}, terminal_width=300)
    assert result.exit_code == 2 and "unknown task family 'nope'" in result.output, result.output


def test_tasks_build_names_the_check_that_dropped_every_built_task(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A family whose question template adds a word no pre-cutoff paper uses gets all its tasks dropped by
    the leakage lint; `tasks build` says so, with the count, the word and the fix (template_text()),
    instead of "its builder found no option set that passes its checks"."""
    from foresci.tasks.cli import _warn_empty_families
    from foresci.tasks.families import base as registry
    from foresci.tasks.families import register_family
    from foresci.tasks.families.direction_forecasting.family import DirectionForecasting

    class LeakyDirection(DirectionForecasting):
        name = "leaky_direction"
        abbreviation = "ld"

        def build(self, evidence, settings, domain_name, wanted):  # type: ignore[no-untyped-def]
            built = super().build(evidence, settings, domain_name, wanted)
            for item in built:
                item.task = item.task.model_copy(update={"family": self.name,
                                                         "question": item.task.question + " Zorblax?"})
            return built

    register_family(LeakyDirection)
    try:
        kb = ToyKB()
        settings = Settings()
        settings.tasks.min_support = 5
        settings.tasks.enforce_gates = False
        build_release(kb, tmp_path, CUTOFF, settings=settings, per_family=6, snapshots={"toy": kb.snapshot},
                      families=["leaky_direction"], forecast_questions=0)
        manifest = load_release(tmp_path).manifest
        _warn_empty_families(manifest, ["leaky_direction"])
    finally:
        registry._REGISTRY.pop(LeakyDirection.name, None)
        registry._family_tuple.cache_clear()
    built = manifest["counts"]["no_candidate"]["leaky_direction"]["built"]
    assert built > 0
    line = capsys.readouterr().err.strip()
    assert line.startswith(f"warning: no leaky_direction task: no candidate task: all {built} built tasks "
                           f"were dropped: {built} by the leakage lint (e.g. 'public words never seen before "
                           "the cutoff: "), line
    assert "zorblax" in line and "template_text()" in line
    assert "found no option set" not in line
