"""Evaluation on the real ResearchForesight release (imported by the tasks component): offline, end to end."""

from __future__ import annotations

import json
from pathlib import Path

from foresci.contracts import Answer
from foresci.core.io import iter_jsonl, write_json, write_jsonl
from foresci.core.settings import Settings
from foresci.evaluation.runner import evaluate_run
from foresci.tasks.hidden import parse_hidden_target
from foresci.tasks.rf_import import import_researchforesight
from tests.conftest import require_shared
from tests.evaluation.conftest import WordEncoder


def test_restating_the_target_beats_an_off_topic_answer(tmp_path: Path, eval_settings: Settings) -> None:
    source = require_shared("releases/researchforesight-quarter")
    release = import_researchforesight(source, tmp_path / "rf")
    hidden = [parse_hidden_target(row) for row in iter_jsonl(release / "hidden.jsonl")]
    chosen = [target for target in hidden if target.claims and target.slots][:12]
    rows = []
    for target in chosen:
        restated = " ".join(claim.text for claim in target.claims)
        rows.append(
            Answer(
                task_id=target.task_id,
                family=target.family,
                method="oracle",
                text=restated,
                payload={"ranking": getattr(target, "ranking", [])},
            )
        )
        rows.append(
            Answer(
                task_id=target.task_id,
                family=target.family,
                method="offtopic",
                text="Protein folding benefits from larger telescopes. Cooking needs salt.",
            )
        )
    run = tmp_path / "run"
    write_jsonl(run / "answers.jsonl", rows)
    write_json(run / "manifest.json", {"kind": "run", "inputs": {"release": str(release)}})
    summary = json.loads(
        evaluate_run(run, None, eval_settings, offline=True, encoder=WordEncoder()).read_text()
    )
    assert summary["counts"]["scored"] == len(rows) and summary["counts"]["missing_target"] == 0
    overall = {
        entry["method"]: entry["metrics"] for entry in summary["leaderboard"] if entry["family"] == "all"
    }
    assert overall["oracle"]["fact_offline"]["mean"] > 0.8 > 0.1 > overall["offtopic"]["fact_offline"]["mean"]
    assert overall["oracle"]["fta_offline_claims"]["mean"] > overall["offtopic"]["fta_offline_claims"]["mean"]
