"""The release's bulk link-prediction set through run, eval and report: ``foresci run`` writes the pair
scores of the methods that score pairs (public side only), ``foresci eval`` scores them against the hidden
window papers into summary.json's ``emergence`` section, ``foresci report`` shows the table; a release
without a bulk set and methods that score no pairs write nothing."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from typer.testing import CliRunner

from foresci.cli import build_app
from foresci.core.io import iter_jsonl, write_jsonl
from foresci.emergence.bulk import HIDDEN_FILE, PUBLIC_FILE, baseline_scores, score_bulk
from foresci.emergence.config import load_emergence_settings
from foresci.emergence.run_scores import SCORES_FILE, write_emergence_scores
from foresci.evaluation.emergence import emergence_summary, emergence_table, merge_sections
from foresci.kb.models import Paper
from foresci.sim.emergence import generate_emergence_world
from foresci.tasks.config import TaskSettings
from foresci.tasks.evidence import DomainEvidence
from foresci.tasks.families.concept_emergence.release import emergence_release_parts
from foresci.tasks.text import vocabulary
from foresci.tasks.windows import make_window
from foresci.taxonomy.models import Snapshot
from tests.emergence.world import CONFIG, CutoffView

SETTINGS = load_emergence_settings()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Paper]]:
    """(a release folder holding only a bulk set and no task, the world's papers)."""
    generated = generate_emergence_world(CONFIG)
    papers = list(generated.papers)
    pre_texts = [paper.text for paper in papers if paper.announced <= CONFIG.cutoff]
    evidence = DomainEvidence(domain="synthetic", snapshot=Snapshot.model_construct(),
                              window=make_window(CONFIG.cutoff, "3m"),
                              papers={paper.paper_id: paper for paper in papers}, assignment={}, nodes={},
                              reference_baseline=0, reference_window=0, reference_monthly={},
                              pre_vocabulary=vocabulary(pre_texts))
    parts = emergence_release_parts([evidence], TaskSettings(), forecast_questions=0)
    release = tmp_path_factory.mktemp("bulk-release")
    for name, rows in (*parts.public_files.items(), *parts.hidden_files.items()):
        write_jsonl(release / name, rows)
    (release / "tasks.jsonl").write_text("")
    return release, papers


def test_run_writes_scores_of_pair_methods_only_and_keeps_them(world: tuple[Path, list[Paper]],
                                                               tmp_path: Path) -> None:
    release, papers = world
    public = list(iter_jsonl(release / PUBLIC_FILE))
    views = []

    def view_for(cutoff: date) -> CutoffView:
        views.append(cutoff)
        return CutoffView(papers, cutoff, type("KB", (), {"path": "world-6-run", "fingerprint": "f"})())

    assert write_emergence_scores(release, tmp_path, ["trend", "persistence"], view_for) is None
    assert write_emergence_scores(tmp_path, tmp_path, ["adamic_adar"], view_for) is None  # no bulk set
    assert not (tmp_path / SCORES_FILE).exists()
    done = write_emergence_scores(release, tmp_path, ["trend", "adamic_adar", "learned_links"], view_for)
    assert done is not None and done.problems == [] and done.kept == []
    assert views == [CONFIG.cutoff]  # learned_links read the KB at the set's cutoff only
    rows = list(iter_jsonl(tmp_path / SCORES_FILE))
    assert {row["method"] for row in rows} == {"adamic_adar", "learned_links"}
    adamic = {row["pair_id"]: row["score"] for row in rows if row["method"] == "adamic_adar"}
    assert adamic == pytest.approx(baseline_scores(public, "adamic_adar"))
    learned = [row["score"] for row in rows if row["method"] == "learned_links"]
    assert done.scored == {"adamic_adar": len(public), "learned_links": len(learned)} and learned
    assert all(0.0 <= score <= 1.0 for score in learned)
    before = (tmp_path / SCORES_FILE).read_bytes()
    again = write_emergence_scores(release, tmp_path, ["adamic_adar", "learned_links", "jaccard"], None)
    assert again is not None and again.kept == ["adamic_adar", "learned_links"] and list(again.scored) == [
        "jaccard"]
    after = (tmp_path / SCORES_FILE).read_bytes().splitlines(keepends=True)
    assert b"".join(line for line in after if b'"jaccard"' not in line) == before  # kept rows unchanged
    lonely = tmp_path / "no-kb"
    missing = write_emergence_scores(release, lonely, ["learned_links"], None)
    assert missing is not None and "needs a KB" in missing.problems[0]
    old = tmp_path / "old-release"
    old.mkdir()
    write_jsonl(old / PUBLIC_FILE, [{key: value for key, value in row.items() if key != "jaccard"}
                                    for row in public])
    partial = write_emergence_scores(old, old / "run", ["jaccard", "adamic_adar"], None)
    assert partial is not None and list(partial.scored) == ["adamic_adar"]
    assert "jaccard" in partial.problems[0]


def test_eval_scores_each_method_like_emergence_score(world: tuple[Path, list[Paper]],
                                                      tmp_path: Path) -> None:
    release, papers = world
    assert emergence_summary(tmp_path, release) is None  # the run scored no bulk set
    kb = type("KB", (), {"path": "world-6-eval", "fingerprint": "f"})()
    write_emergence_scores(release, tmp_path, ["preferential_attachment", "learned_links"],
                           lambda cutoff: CutoffView(papers, cutoff, kb))
    section = emergence_summary(tmp_path, release)
    assert section is not None
    rows = {(row["method"], row["min_papers"]): row for row in section["rows"]}
    assert set(rows) == {(method, k) for method in ("preferential_attachment", "learned_links")
                         for k in SETTINGS.targets.positive_min_papers}
    public = list(iter_jsonl(release / PUBLIC_FILE))
    counts = [row["window_papers"] for row in iter_jsonl(release / HIDDEN_FILE)]
    for k in SETTINGS.targets.positive_min_papers:
        expected = score_bulk(release, baseline_scores(public, "preferential_attachment"), k,
                              SETTINGS.scoring)["synthetic:3m"]
        row = rows[("preferential_attachment", k)]
        assert row["auc"] == expected["auc"].as_dict()
        assert row["precision@100"] == expected["precision@100"].as_dict()
        assert row["positives"] == sum(count >= k for count in counts) and row["pairs"] == len(public)
    learned = rows[("learned_links", 1)]
    assert learned["auc"]["low"] <= learned["auc"]["value"] <= learned["auc"]["high"]
    assert learned["auc"]["value"] > 0.8  # difficulty 0: every planted pair is announced before t
    assert 0 < learned["scored"] <= learned["pairs"]
    pooled = merge_sections([section, None, {**section, "rows": section["rows"][:1]}])
    assert pooled is not None and pooled["rows"] == section["rows"]  # a row of two runs counted once
    table = emergence_table(section)
    assert table is not None and len(table["rows"]) == len(section["rows"])
    public_copy = tmp_path / "public-copy"
    public_copy.mkdir()
    (public_copy / PUBLIC_FILE).write_bytes((release / PUBLIC_FILE).read_bytes())
    hidden_missing = emergence_summary(tmp_path, public_copy)
    assert hidden_missing is not None and hidden_missing["rows"] == [] and "missing" in hidden_missing["note"]


def test_cli_run_eval_report_carry_the_bulk_set(world: tuple[Path, list[Paper]], tmp_path: Path) -> None:
    release, _ = world
    app, runner = build_app(), CliRunner()
    run = tmp_path / "run"
    result = runner.invoke(app, ["run", str(release), "-m", "adamic_adar", "-m", "jaccard", "--out", str(run),
                                 "--no-progress"])
    assert result.exit_code == 0, result.output
    manifest = json.loads((run / "manifest.json").read_text())
    assert SCORES_FILE in manifest["hashes"]
    assert not any("window_papers" in row for row in iter_jsonl(run / SCORES_FILE))
    result = runner.invoke(app, ["eval", str(run), "--offline"])
    assert result.exit_code == 0, result.output
    summary = json.loads((run / "summary.json").read_text())
    methods = {row["method"] for row in summary["emergence"]["rows"]}
    assert methods == {"adamic_adar", "jaccard"}
    result = runner.invoke(app, ["report", str(run), "--out", str(tmp_path / "report")])
    assert result.exit_code == 0, result.output
    markdown = (tmp_path / "report" / "report.md").read_text()
    html = (tmp_path / "report" / "index.html").read_text()
    first = summary["emergence"]["rows"][0]
    shown = f"{first['auc']['value']:.3f} [{first['auc']['low']:.3f}, {first['auc']['high']:.3f}]"
    assert "## Concept emergence: bulk link prediction" in markdown and shown in markdown
    assert 'id="emergence-table"' in html and shown in html
