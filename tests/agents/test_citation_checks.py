"""Every id an answer cites is checked against the KB at the task cutoff (issue #11 item 3).

Uses the agents' toy KB (a real KB, cutoff 2025-06-30, papers on both sides of it) with the evaluation
fixture release, whose tasks share that cutoff.
"""

from __future__ import annotations

import json
from pathlib import Path

from foresci.contracts import Evidence, RetrievedItem, SupportArtifact
from foresci.core.io import iter_jsonl, write_json
from foresci.core.settings import Settings
from foresci.evaluation.models import Score
from foresci.evaluation.report import write_report
from foresci.evaluation.runner import evaluate_run
from tests.agents.conftest import ToyWorld
from tests.evaluation.conftest import WordEncoder
from tests.evaluation.fixtures import CUTOFF, direction_answer, write_release, write_run

TEXT = "Memory-augmented agents gain momentum in the window. The trajectory is accelerating."


def test_citations_are_checked_against_the_kb_at_the_cutoff(toy_world: ToyWorld, tmp_path: Path) -> None:
    assert toy_world.view().cutoff == CUTOFF  # type: ignore[attr-defined]
    seen, unseen, late = toy_world.pre_ids[0], toy_world.pre_ids[1], toy_world.post_ids[0]
    support = SupportArtifact(
        queries=["memory agents"],
        retrieved=[RetrievedItem(paper_id=seen, title="Graph memory", announced=CUTOFF)],
        evidence=[Evidence(claim="Memory-augmented agents gain momentum in the window.", paper_ids=[seen])],
    )
    clean = direction_answer("aris", f"{TEXT} See [{seen}].", support)
    # cites a paper after the cutoff (with a version suffix), an id no KB holds, and an unretrieved paper
    flagged = direction_answer(
        "hybrid_rag", f"{TEXT} See [{seen}], [{late}v2], arXiv:2599.99999 and {unseen}.", support
    )
    flagged.payload["signals"] = [f"growth reported in {late}"]
    native = direction_answer("native", f"{TEXT} As 2599.99999 shows.", None)
    release = write_release(tmp_path / "release")
    run_dir = write_run(tmp_path / "run", release, [clean, flagged, native])
    write_json(run_dir / "manifest.json", {"inputs": {"release": str(release), "kb": str(toy_world.kb_path)}})
    settings = Settings(cache_dir=tmp_path / "cache", evaluation={"bootstrap_samples": 50})
    evaluate_run(run_dir, None, settings, offline=True, encoder=WordEncoder())  # the run's KB is used
    scores = {row["key"]: Score.model_validate(row) for row in iter_jsonl(run_dir / "scores.jsonl")}
    good, bad = scores["D1|aris|m1|full"], scores["D1|hybrid_rag|m1|full"]
    assert good.citations is not None and bad.citations is not None
    assert good.citations["cited"] == good.citations["valid"] == 1
    assert bad.citations["checked_against"] == "kb"
    assert bad.citations["after_cutoff_ids"] == [late]
    assert bad.citations["unknown_ids"] == ["2599.99999"]
    assert bad.citations["not_retrieved_ids"] == [unseen]
    good_trace, bad_trace = good.metrics["trace_offline"].value, bad.metrics["trace_offline"].value
    assert good_trace is not None and bad_trace is not None and bad_trace < good_trace
    assert scores["D1|native|m1|full"].citations["unknown_ids"] == ["2599.99999"]  # type: ignore[index]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["counts"]["unknown_citations"] == 2 and summary["counts"]["after_cutoff_citations"] == 1
    assert summary["citations_checked_against"] == str(toy_world.kb_path)
    write_report([run_dir], tmp_path / "report", settings)
    html = (tmp_path / "report" / "index.html").read_text()
    assert f"unknown 1, after cutoff 1 (2599.99999, {late})" in html
