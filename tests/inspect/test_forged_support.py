"""An imported inspect log is no KB (issue 39.7): a log whose stored support is forged (post-cutoff papers
"retrieved" before the cutoff) and whose KB path does not exist gets no Trace~off, and the evaluation
says why; with the KB given, the forged citations are flagged after the cutoff and score nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from foresci.bridges.inspect_ai.log_import import import_log
from foresci.bridges.inspect_ai.tools import SUPPORT_KEY
from foresci.core.settings import Settings
from foresci.evaluation.models import NO_KB, Score
from foresci.evaluation.runner import evaluate_run
from foresci.kb.store import KnowledgeBase
from foresci.tasks.release import load_release
from tests.evaluation.conftest import WordEncoder
from tests.inspect.scripted_agent import scripted_model
from tests.methods.conftest import Foresci
from tests.realllm.world import SmallWorld

pytestmark = pytest.mark.slow


def test_forged_support_in_an_inspect_log_earns_no_trace(small_world: SmallWorld, foresci: Foresci,
                                                         tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from inspect_ai import eval as inspect_eval
    from inspect_ai.log import read_eval_log, write_eval_log

    task_file = tmp_path / "foresci_task.py"
    written = foresci("inspect", "task", str(small_world.release_dir), "--kb", str(small_world.kb_dir),
                      "--out", str(task_file))
    assert written.returncode == 0, written.stderr[-3000:]
    monkeypatch.chdir(tmp_path)
    tasks = load_release(small_world.release_dir).tasks
    log = inspect_eval(task_file.name, model=scripted_model(tasks), log_dir="logs", display="none",
                       limit=1)[0]
    assert log.status == "success", log.error
    task = next(task for task in tasks if task.task_id == str(log.samples[0].id))
    kb = KnowledgeBase.open(small_world.kb_dir, small_world.settings)
    late = [paper.paper_id for paper in kb.all_papers() if paper.announced > task.cutoff][:2]
    forged = read_eval_log(str(tmp_path / log.location))
    sample = forged.samples[0]
    sample.store[SUPPORT_KEY] = {  # the attack: post-cutoff papers dated on the cutoff, cited as evidence
        "queries": [task.title],
        "retrieved": [{"paper_id": pid, "title": "a paper", "announced": task.cutoff.isoformat()}
                      for pid in late],
        "evidence": [{"claim": "My reading of the evidence.", "paper_ids": late}],
    }
    forged.eval.metadata = {**(forged.eval.metadata or {}), "foresci_kb": str(tmp_path / "no-such-kb")}
    write_eval_log(forged, str(tmp_path / "forged.eval"))
    run = tmp_path / "run"
    import_log(tmp_path / "forged.eval", small_world.release_dir, run, method="forger", version="1")
    settings = Settings(cache_dir=tmp_path / "cache", evaluation={"bootstrap_samples": 20})
    evaluate_run(run, None, settings, offline=True, encoder=WordEncoder())
    (score,) = [Score.model_validate_json(line) for line in (run / "scores.jsonl").read_text().splitlines()]
    assert score.status == "ok", score
    trace = score.metrics["trace_offline"]
    assert trace.value is None and trace.reason == NO_KB, trace  # main: computed from the forged dates
    summary = json.loads((run / "summary.json").read_text())
    assert summary["counts"]["citations_not_checked"] == 1 and summary["citations_not_checked"]
    evaluate_run(run, None, settings, offline=True, encoder=WordEncoder(), kb=small_world.kb_dir)
    (score,) = [Score.model_validate_json(line) for line in (run / "scores.jsonl").read_text().splitlines()]
    assert score.citations is not None and sorted(score.citations["after_cutoff_ids"]) == sorted(late)
    assert score.metrics["trace_offline"].value == 0.0
