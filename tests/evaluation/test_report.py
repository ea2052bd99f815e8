"""The report without a browser: Table 2 pivot, pooled runs, Markdown, missing evaluation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from foresci.core.settings import Settings
from foresci.evaluation.report import backbone_pivot, write_report
from foresci.evaluation.runner import evaluate_run
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


def test_rows_in_two_runs_count_once_and_each_run_keeps_its_evaluation_label(
    tmp_path: Path, release_dir: Path, eval_settings: Settings
) -> None:
    from tests.evaluation.test_judges import judge_reply, judged_settings
    from tests.support.openai_server import ScriptedOpenAIServer

    rows = [row for row in answers() if row.family != "forecast"]
    offline_run = write_run(tmp_path / "offline", release_dir, rows)
    evaluate_run(offline_run, None, eval_settings, offline=True, encoder=WordEncoder())
    aris = [row for row in rows if row.method == "aris" and row.mode == "full" and row.task_id == "D1"]
    judged_run = write_run(tmp_path / "judged", release_dir, aris)
    with ScriptedOpenAIServer(responder=judge_reply) as server:
        settings = judged_settings(tmp_path, server, judge_runs=1)
        evaluate_run(judged_run, None, settings, offline=False, encoder=WordEncoder())
    write_report([offline_run, judged_run], tmp_path / "report", eval_settings)
    pooled = json.loads((tmp_path / "report" / "summary.json").read_text())
    overall = {entry["label"]: entry for entry in pooled["leaderboard"] if entry["family"] == "all"}
    assert overall["aris · m1"]["n_rows"] == 4  # D1 is in both runs: counted once (D1, B1, P1, V1)
    assert overall["aris · m1"]["evaluation"] == "mixed (judged 1 of 4)"
    assert overall["native · m1"]["evaluation"] == "offline"
    assert "fact" in overall["aris · m1"]["metrics"]  # the judged D1 row was kept over the offline one
    assert pooled["notes"] and "1 row(s)" in pooled["notes"][0] and "D1|aris|m1|full" in pooled["notes"][0]
    assert pooled["evaluation_text"].startswith("mixed:")
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert "evaluation: mixed:" in markdown and "evaluation: judged" not in markdown
    html = (tmp_path / "report" / "index.html").read_text()
    assert 'id="evaluation-kind">mixed:' in html and "counted once" in html


def test_repair_rate_per_method_in_summary_and_report(
    tmp_path: Path, release_dir: Path, eval_settings: Settings
) -> None:
    rows = [row for row in answers() if row.family != "forecast" and row.status == "ok"]
    flagged = []
    for row in rows:
        if row.method == "aris" and row.task_id in ("P1", "V1"):
            row = row.model_copy(update={"contract": "invalid" if row.task_id == "V1" else "repaired",
                                         "contract_notes": ["the ranking leaves out options ['cv']"]})
        flagged.append(row)
    run = write_run(tmp_path / "run", release_dir, flagged)
    summary = json.loads(
        evaluate_run(run, None, eval_settings, offline=True, encoder=WordEncoder()).read_text()
    )
    overall = {entry["label"]: entry for entry in summary["leaderboard"] if entry["family"] == "all"}
    assert overall["aris · m1"]["contract"] == {"repaired": 1, "invalid": 1, "rate": 0.5}
    assert overall["native · m1"]["contract"]["rate"] == 0.0
    assert summary["contract"] == {"repaired": 1, "invalid": 1, "rate": pytest.approx(2 / 9)}
    write_report([run], tmp_path / "report", eval_settings)
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert "| aris · m1 | 4 | 50% (1 repaired, 1 invalid) |" in markdown
    html = (tmp_path / "report" / "index.html").read_text()
    assert 'data-repair-rate="0.500"' in html and "contract invalid" in html


def test_terminal_leaderboard_fits_80_columns_with_whole_headers(
    tmp_path: Path, release_dir: Path, eval_settings: Settings
) -> None:
    from rich.console import Console

    from foresci.evaluation.metrics import metric_label
    from foresci.evaluation.summary import leaderboard_legend, leaderboard_tables

    rows = [
        row.model_copy(update={"model": "smollm2-135m-instruct-q4_1-gguf"}) if row.model else row
        for row in answers()
    ]
    run = write_run(tmp_path / "run", release_dir, rows)
    summary = json.loads(
        evaluate_run(run, None, eval_settings, offline=True, encoder=WordEncoder()).read_text()
    )
    for entry in summary["leaderboard"]:  # as a judged run would have them
        for name in ("fact", "trace", "pers"):
            entry["metrics"].setdefault(name, {"mean": 0.5, "low": 0.4, "high": 0.6, "n": 3})
    summary["leaderboard"][0]["evaluation"] = "judged"  # mixed: the eval column is shown too
    console = Console(width=80, record=True)
    tables = leaderboard_tables(summary, "all", width=80)
    for table in tables:
        console.print(table)
    console.print(leaderboard_legend(summary, "all"))
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    header_lines = [line for line in text.splitlines() if "method · backbone" in line]
    headers = " ".join(header_lines)
    for name in ("fact", "fta", "trace", "pers", "fact_offline", "trace_offline", "top_choice"):
        assert f" {metric_label(name)} " in f"{headers} ", name
    # the judged metrics beside n, repair and eval; the offline stand-ins in one more table, not three parts
    assert len(tables) == 2 and "…" not in headers
    judged = " ".join(f" {metric_label(name)} " for name in ("fact", "fta", "trace", "pers"))
    assert " repair" in header_lines[0] and " eval" in header_lines[0] and " repair" not in header_lines[1]
    assert all(part in f"{header_lines[0]} " for part in judged.split())
    assert " aris · b1 " in text and "b1 = smollm2-135m-instruct-q4_1-gguf" in text  # keyed, not cut
