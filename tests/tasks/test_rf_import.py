"""ResearchForesight import: every family and subtype on hand-made fixtures, then their real release."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from foresci.core.artifacts import read_manifest
from foresci.core.errors import UserError
from foresci.core.io import iter_jsonl
from foresci.kb.models import VENUE_FAMILIES, Paper
from foresci.tasks.audit import audit_tasks
from foresci.tasks.hidden import HiddenTarget
from foresci.tasks.hidden_io import load_hidden
from foresci.tasks.models import Task
from foresci.tasks.release import load_release
from foresci.tasks.rf_import import count_pre_cutoff, import_researchforesight
from foresci.tasks.validate import validate_release
from tests.conftest import require_shared
from tests.tasks.rf_fixtures import write_release


def _load(out: Path) -> tuple[dict[str, Task], dict[str, HiddenTarget]]:
    return {task.task_id: task for task in load_release(out).tasks}, load_hidden(out)


@pytest.fixture()
def fixture_release(tmp_path: Path) -> Path:
    return import_researchforesight(write_release(tmp_path / "rf"), tmp_path / "out")


def test_every_family_and_subtype_is_mapped(fixture_release: Path) -> None:
    tasks, hidden = _load(fixture_release)
    assert {task.family for task in tasks.values()} == {
        "direction_forecasting",
        "bottleneck_opportunity",
        "strategic_planning",
        "venue_positioning",
    }
    direction = tasks["RF-DF-1"]
    names = {candidate.option_id: candidate.name for candidate in direction.candidates}
    assert names == {"A": "api call planning", "B": "tool use verification"}
    assert hidden["RF-DF-1"].primary_direction == "B" and hidden["RF-DF-1"].trajectory == "fragmenting"
    assert tasks["RF-DF-2"].horizon == "3m" and tasks["RF-DF-2"].cutoff == date(2025, 11, 30)
    assert hidden["RF-BO-1"].bottleneck[0] == "Static benchmarks saturate"
    assert hidden["RF-BO-1"].opportunity == ["live agent benchmarks"]
    assert hidden["RF-BO-1"].stats["persistence_match"] is True
    agenda = tasks["RF-SP-1"]
    order = [
        next(c.name for c in agenda.candidates if c.option_id == option)
        for option in hidden["RF-SP-1"].ranking
    ]
    assert order == ["tool retrieval", "tool safety", "tool creation"]
    assert not tasks["RF-SP-2"].candidates and not hidden["RF-SP-2"].ranking
    assert validate_release(fixture_release) == []


def test_comparative_planning_keeps_winner_loser_and_recorded_counts(fixture_release: Path) -> None:
    tasks, hidden = _load(fixture_release)
    parent = hidden["RF-SP-3"]
    names = {candidate.option_id: candidate.name for candidate in tasks["RF-SP-3"].candidates}
    assert [names[option] for option in parent.ranking] == ["Tool use", "Tool use verification"]
    assert parent.stats["option_pre_counts"] == {"A": 140, "B": 12}
    assert parent.stats["persistence_match"] is True and parent.stats["pair_relation"] == "parent_wins"
    smaller = hidden["RF-SP-4"]
    assert smaller.stats["persistence_match"] is False and smaller.stats["pair_relation"] == "other"


def test_venue_tasks_rank_the_five_families_from_their_buckets(fixture_release: Path) -> None:
    tasks, hidden = _load(fixture_release)
    forecast = tasks["RF-VP-1"]
    assert [candidate.name for candidate in forecast.candidates] == list(VENUE_FAMILIES)
    option = {candidate.name: candidate.option_id for candidate in forecast.candidates}
    target = hidden["RF-VP-1"]
    assert target.ranking == [option["CVPR/ICCV/ECCV"], option["ICLR/ICML/NeurIPS"]]
    assert target.trajectory == "fragmenting" and target.stats["top_tied"] is False
    assert target.stats["persistence_match"] is True  # their pre-cutoff buckets: CVPR 6 + ICCV 2 lead
    assert target.stats["direction_records"] == ["Long video generation", "Camera controlled video"]
    planning = hidden["RF-VP-2"]
    assert planning.ranking[0] == option["ACL/EMNLP/NAACL"] and planning.stats["top_tied"] is True
    assert planning.stats["target_named_in_question"] is True


def test_unmapped_fields_and_skipped_families_are_counted(fixture_release: Path) -> None:
    _, hidden = _load(fixture_release)
    summary = read_manifest(fixture_release).counts["import_summary"]
    assert summary["skipped_families"] == {"a_family_from_the_future": 1}
    assert summary["unmapped_fields"]["ground_truth.future_chain"] == 1
    assert summary["unmapped_fields"]["judge"] == 11
    assert "ground_truth.future_chain" in hidden["RF-DF-1"].unmapped
    assert summary["with_candidates"]["venue_positioning"] == 2


def test_a_missing_hidden_file_is_a_one_line_user_error(tmp_path: Path) -> None:
    source = write_release(tmp_path / "rf", with_hidden=False)
    with pytest.raises(UserError) as caught:
        import_researchforesight(source, tmp_path / "out")
    assert "tasks_hidden_eval.jsonl" in str(caught.value) and "\n" not in str(caught.value)


def test_kb_counts_options_at_each_tasks_own_cutoff(tmp_path: Path) -> None:
    def paper(paper_id: str, title: str, day: date) -> Paper:
        return Paper(paper_id=paper_id, title=title, abstract="", announced=day)

    papers = [
        paper("1", "episodic memory compression for agents", date(2025, 7, 1)),
        paper("2", "tool retrieval at scale", date(2025, 8, 1)),
        paper("3", "tool retrieval with graphs", date(2025, 10, 1)),
        paper("4", "tool retrieval benchmarks", date(2025, 11, 1)),
        paper("5", "tool safety audits", date(2025, 8, 20)),
    ]
    out = import_researchforesight(write_release(tmp_path / "rf"), tmp_path / "out", papers)
    _, hidden = _load(out)
    agenda = hidden["RF-SP-1"]  # cutoff 2025-08-31: the October and November papers are after it
    assert agenda.stats["option_pre_counts"] == {"A": 0, "B": 1, "C": 1}
    assert "2025-08-31" in agenda.stats["pre_counts_source"]
    assert hidden["RF-SP-1"].stats.get("persistence_match") is None  # tied leaders: not evaluable
    assert count_pre_cutoff(["tool retrieval"], papers, date(2025, 11, 30)) == {"tool retrieval": 3}


def test_validate_catches_edited_files_and_foreign_hidden_rows(fixture_release: Path) -> None:
    tasks_file = fixture_release / "tasks.jsonl"
    tasks_file.write_text(tasks_file.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert any("content hash differs" in problem for problem in validate_release(fixture_release))
    hidden_file = fixture_release / "hidden.jsonl"
    rows = list(iter_jsonl(hidden_file))
    rows[0]["stats"]["source_family"] = "strategic_research_planning"
    hidden_file.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    problems = validate_release(fixture_release)
    assert any("its hidden row in the source release is strategic_research_planning" in p for p in problems)


def test_audit_reports_imports_without_enforcing(fixture_release: Path) -> None:
    tasks, hidden = _load(fixture_release)
    report = audit_tasks(list(tasks.values()), hidden)
    assert report.gates_enforced is False
    venue = report.families["venue_positioning"]
    assert venue.labels == {"fragmenting": 1}
    planning = report.families["strategic_planning"]
    assert (planning.persistence_matches, planning.persistence_evaluable) == (1, 2)
    assert any("node against its own descendant; the parent wins 1" in line for line in planning.findings)
    bottleneck = report.families["bottleneck_opportunity"]
    assert bottleneck.identical_question_pairs == [["RF-BO-2", "RF-BO-3"]]
    assert report.families["direction_forecasting"].targets_created_after_cutoff == 2


@pytest.fixture(scope="module")
def quarter(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    source = require_shared("releases/researchforesight-quarter")
    return source, import_researchforesight(source, tmp_path_factory.mktemp("rf"))


def test_their_quarter_release_imports_and_validates(quarter: tuple[Path, Path]) -> None:
    source, out = quarter
    tasks, hidden = _load(out)
    raw = {row["task_id"]: row for row in iter_jsonl(source / "tasks_hidden_eval.jsonl")}
    assert len(tasks) == 96 and set(hidden) == set(raw)
    for task_id, target in hidden.items():
        truth = raw[task_id]["ground_truth"]
        if target.family == "direction_forecasting":
            assert target.trajectory == truth["trajectory"]["trajectory_label"]
            assert tasks[task_id].candidates
        if target.family == "strategic_planning":
            assert len(tasks[task_id].candidates) == len(truth["direction_records"])
    assert validate_release(out) == []
    report = audit_tasks(list(tasks.values()), hidden)
    assert report.families["direction_forecasting"].labels == {"fragmenting": 6, "steady": 1}
    assert report.families["direction_forecasting"].single_option_tasks == 7


def test_cli_import_prints_summary_and_audit(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from foresci.cli import app

    source = write_release(tmp_path / "rf")
    result = CliRunner().invoke(app, ["tasks", "import-rf", str(source), str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "unmapped fields" in result.output and "reported, not enforced" in result.output
    audit = CliRunner().invoke(app, ["tasks", "audit", str(tmp_path / "out"), "--json"])
    data = json.loads(audit.output)
    assert data["families"]["strategic_planning"]["largest_option_wins"]["rate"] == 0.5
    assert "smallest_option_wins" in data["how"]


def test_cli_audit_compares_trend_and_persistence_answers(fixture_release: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from foresci.cli import app

    run = tmp_path / "run"
    run.mkdir()
    rows = [
        {
            "task_id": task_id,
            "method": method,
            "status": "ok",
            "payload": {"ranking": [{"option_id": choice}]},
        }
        for task_id, choices in (("RF-SP-1", "AA"), ("RF-SP-3", "AB"), ("RF-SP-4", "BB"))
        for method, choice in zip(("trend", "persistence"), choices, strict=True)
    ]
    rows.append({"task_id": "RF-SP-2", "method": "trend", "status": "error", "payload": {}})
    (run / "answers.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    result = CliRunner().invoke(app, ["tasks", "audit", str(fixture_release), "--run", str(run), "--json"])
    assert result.exit_code == 0, result.output
    planning = json.loads(result.output)["families"]["strategic_planning"]
    assert (planning["method_agreement"]["matches"], planning["method_agreement"]["evaluable"]) == (2, 3)
    assert planning["separates_methods"] is False
