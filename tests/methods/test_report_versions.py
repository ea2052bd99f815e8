"""``report A B``: a shipped method answered at two versions in two run folders is shown as two entries
(never merged) with their paired differences in the terminal summary and side by side in the HTML; a
method at one version in both folders keeps its name and its identical rows count once."""

from __future__ import annotations

import json
from pathlib import Path

from foresci.contracts import Answer
from foresci.core.io import write_json, write_jsonl
from foresci.core.settings import Settings
from foresci.evaluation.loading import answer_key, short_version
from foresci.evaluation.models import MetricResult, Score
from foresci.evaluation.report import write_report
from foresci.evaluation.summary import build_summary

FAMILY = "strategic_planning"
OLD, NEW = "foresci 0.1.0 prompts aaaa1111", "foresci 0.1.0 prompts bbbb2222"
SAME = "foresci 0.1.0 prompts cccc3333"


def _run(folder: Path, rows: list[tuple[str, str, str, float]]) -> Path:
    """A scored run folder of (task, method, version, top_choice) rows."""
    folder.mkdir(parents=True)
    answers = [Answer(task_id=task, family=FAMILY, method=method, version=version, payload={"ranking": []})
               for task, method, version, _ in rows]
    scores = [Score(task_id=task, family=FAMILY, domain="toy", method=method,
                    key=answer_key(task, method, None, "full"),
                    metrics={"top_choice": MetricResult(name="top_choice", value=value)})
              for task, method, _, value in rows]
    write_jsonl(folder / "answers.jsonl", answers)
    write_jsonl(folder / "scores.jsonl", scores)
    summary = build_summary(scores, Settings().evaluation, {"release": "toy-release", "offline": True})
    write_json(folder / "summary.json", summary)
    return folder


def test_shipped_versions_stay_apart_across_runs_and_are_paired_side_by_side(tmp_path: Path) -> None:
    first = _run(tmp_path / "a", [("t1", "trend", OLD, 1.0), ("t2", "trend", OLD, 0.0),
                                  ("t1", "persistence", SAME, 0.0), ("t2", "persistence", SAME, 1.0)])
    second = _run(tmp_path / "b", [("t1", "trend", NEW, 1.0), ("t2", "trend", NEW, 1.0),
                                   ("t1", "persistence", SAME, 0.0), ("t2", "persistence", SAME, 1.0)])
    index = write_report([first, second], tmp_path / "report", Settings(cache_dir=tmp_path / "cache"))
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    old, new = f"trend@{short_version(OLD)}", f"trend@{short_version(NEW)}"
    overall = {entry["method"]: entry for entry in summary["leaderboard"] if entry["family"] == "all"}
    assert set(overall) == {old, new, "persistence"}
    assert overall[old]["n_rows"] == 2 and overall[new]["n_rows"] == 2
    assert overall["persistence"]["n_rows"] == 2  # identical rows in both folders count once
    notes = " ".join(summary["notes"])
    assert "shown apart" in notes and f"trend -> {old} ({first})" in notes and "counted once" in notes
    (pair,) = [row for row in summary["paired"] if row["metric"] == "top_choice"]
    assert (pair["a"], pair["b"], pair["n"]) == (old, new, 2)
    assert (pair["a_mean"], pair["b_mean"], pair["mean_difference"]) == (0.5, 1.0, 0.5)
    assert (pair["b_better"], pair["b_worse"]) == (1, 0)

    html = index.read_text()
    table = html[html.index('id="paired-table"'):]
    table = table[:table.index("</table>")]
    assert old in table and new in table and "+0.500" in table and "<td>0.500</td><td>1.000</td>" in table


def test_one_run_keeps_its_names_and_has_no_side_by_side(tmp_path: Path) -> None:
    only = _run(tmp_path / "a", [("t1", "trend", OLD, 1.0), ("t2", "trend", OLD, 0.0)])
    index = write_report([only], tmp_path / "report", Settings(cache_dir=tmp_path / "cache"))
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    assert "paired" not in summary and 'id="paired-table"' not in index.read_text()
