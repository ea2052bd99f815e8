"""ResearchForesight import: field mapping and the audit's findings on their real release."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from foresci.io import iter_jsonl
from foresci.kb.models import Paper
from foresci.tasks.audit import audit_tasks
from foresci.tasks.hidden_io import load_hidden
from foresci.tasks.release import load_release
from foresci.tasks.rf_import import count_pre_cutoff, import_researchforesight
from foresci.tasks.validate import validate_release
from tests.conftest import require_shared


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    source = require_shared("releases/researchforesight-quarter")
    return source, import_researchforesight(source, tmp_path_factory.mktemp("rf"))


def test_fields_are_mapped_and_the_rest_recorded(imported: tuple[Path, Path]) -> None:
    source, out = imported
    tasks, hidden = load_release(out).tasks, load_hidden(out)
    raw = {row["task_id"]: row for row in iter_jsonl(source / "tasks_hidden_eval.jsonl")}
    assert len(tasks) == 96 and set(hidden) == set(raw)
    assert {task.family for task in tasks} == {"direction_forecasting", "bottleneck_opportunity",
                                               "strategic_planning"}
    assert all(task.cutoff == date(2025, 11, 30) and task.horizon == "3m" for task in tasks)
    assert all(task.source == "researchforesight" for task in tasks)
    for task_id, target in hidden.items():
        truth = raw[task_id]["ground_truth"]
        assert target.slots and target.claims
        if target.family == "direction_forecasting":
            assert target.trajectory == truth["trajectory"]["trajectory_label"]
            assert target.slots[0].variants[0] == truth["future_terminal"]["display_name"].replace("_", " ")
            assert "ground_truth.historical_stats" in target.unmapped
        if target.family == "bottleneck_opportunity" and truth["historical_limitation_cluster"]:
            assert target.bottleneck[0] == truth["historical_limitation_cluster"][0]["name"]
        if target.family == "strategic_planning":
            counts = [record.get("future_paper_count") for record in truth["direction_records"]]
            assert len(target.ranking) == len(counts)
    assert validate_release(out) == []


def test_audit_finds_their_concentrations(imported: tuple[Path, Path]) -> None:
    _, out = imported
    report = audit_tasks(load_release(out).tasks, load_hidden(out))
    direction = report.families["direction_forecasting"]
    assert direction.labels["fragmenting"] == 6 and direction.top_label_share is not None
    assert direction.top_label_share > 0.5 and not direction.passed
    assert any("created after the cutoff" in finding for finding in direction.findings)
    planning = report.families["strategic_planning"]
    assert any("no ranked option" in finding for finding in planning.findings)


def test_pre_cutoff_counting_ignores_later_papers() -> None:
    def paper(paper_id: str, text: str, day: date) -> Paper:
        return Paper(paper_id=paper_id, title=text, abstract="", announced=day)

    papers = [paper("1", "multi agent debate frameworks", date(2025, 5, 1)),
              paper("2", "debate frameworks for multi agent systems", date(2025, 11, 30)),
              paper("3", "multi agent debate frameworks", date(2025, 12, 2))]
    assert count_pre_cutoff(["multi agent debate frameworks"], papers, date(2025, 11, 30)) == {
        "multi agent debate frameworks": 2}


def test_cli_import_prints_the_audit(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from foresci.cli import app

    source = require_shared("releases/researchforesight-quarter")
    result = CliRunner().invoke(app, ["tasks", "import-rf", str(source), str(tmp_path / "rf")])
    assert result.exit_code == 0, result.output
    assert "fragmenting=6 (86%)" in result.output and "imported 96 tasks" in result.output
