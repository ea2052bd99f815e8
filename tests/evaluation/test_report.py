"""The report without a browser: Table 2 pivot, pooled runs, Markdown, missing evaluation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from foresci.evaluation.report import backbone_pivot, write_report
from foresci.evaluation.runner import evaluate_run
from foresci.settings import Settings
from tests.evaluation.conftest import WordEncoder
from tests.evaluation.fixtures import answers, write_run


def test_pivot_and_pooled_runs(tmp_path: Path, release_dir: Path, eval_settings: Settings) -> None:
    rows = answers()
    first = write_run(tmp_path / "a", release_dir, [row for row in rows if row.method == "aris"])
    second = write_run(tmp_path / "b", release_dir, [row for row in rows if row.method != "aris"])
    for run in (first, second):
        evaluate_run(run, None, eval_settings, offline=True, encoder=WordEncoder())
    index = write_report([first, second], tmp_path / "report", eval_settings)
    pooled = json.loads((tmp_path / "report" / "summary.json").read_text())
    labels = {entry["label"] for entry in pooled["leaderboard"] if entry["family"] == "all"}
    assert labels == {"aris · m1", "aris · m1 (name_only)", "native · m1", "persistence"}
    lift = {(row["metric"], row["method"]): row for row in pooled["diagnostics"]["foresight_lift"]}
    assert ("fta", "aris") in lift and "vs_persistence" in lift[("fta", "aris")]  # across the two runs
    pivot = backbone_pivot([entry for entry in pooled["leaderboard"] if entry["family"] == "all"])
    assert pivot["backbones"] == ["m1", "non-LLM"]
    assert pivot["metrics"] == [
        "fact_offline",
        "fta",
        "trace_offline",
    ]  # no judged Fact/Trace, no Pers offline
    cells = {row["method"]: row["cells"] for row in pivot["rows"]}
    assert set(cells["persistence"]) == {"non-LLM"} and cells["native"]["m1"]["trace_offline"] == "–"
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert "| persistence |" in markdown and "## Leaderboard: strategic_planning" in markdown
    assert 'id="backbone-pivot"' in index.read_text()


def test_report_needs_an_evaluated_run(tmp_path: Path, run_dir: Path, eval_settings: Settings) -> None:
    with pytest.raises(FileNotFoundError, match="foresci eval"):
        write_report([run_dir], tmp_path / "report", eval_settings)


def test_taxonomy_growth_plots_are_embedded(tmp_path: Path, run_dir: Path, eval_settings: Settings) -> None:
    from datetime import date

    from foresci.taxonomy.induce import TaxonomyHistory
    from foresci.taxonomy.models import Node, Snapshot
    from foresci.taxonomy.store import save_taxonomy

    snapshots = [
        Snapshot(
            domain="toy",
            cutoff=date(2025, month, 28),
            slice_index=index,
            paper_count=10 * (index + 1),
            nodes=[
                Node(node_id=f"n{k}", label=f"node {k}", monthly_counts={"2025-01": k + 1, "2025-02": k})
                for k in range(index + 2)
            ],
            reference_monthly={"2025-01": 20, "2025-02": 20},
        )
        for index, month in enumerate((1, 2))
    ]
    history = TaxonomyHistory(domain="toy", cutoff=date(2025, 2, 28), snapshots=snapshots)
    taxonomy = save_taxonomy(history, tmp_path / "taxonomy")
    evaluate_run(run_dir, None, eval_settings, offline=True, encoder=WordEncoder())
    html = write_report(
        [run_dir], tmp_path / "report", eval_settings, taxonomy_dirs=(taxonomy, tmp_path / "missing")
    ).read_text()
    assert 'alt="toy: taxonomy growth"' in html and 'alt="toy: node growth"' in html
    assert "no growth plots" in html  # the missing folder becomes a note
