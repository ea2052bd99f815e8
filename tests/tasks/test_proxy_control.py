"""Zero-evidence control: a proxy that scores blind answers as high as evidence-based ones is flagged."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from foresci.evaluation.proxy_control import blind_copy, proxy_separation
from foresci.tasks.release import load_release
from foresci.tasks.rf_import import import_researchforesight
from tests.tasks.rf_fixtures import write_release


def _scores(folder: Path, values: dict[str, list[float]]) -> Path:
    folder.mkdir(parents=True)
    rows = []
    for metric, series in values.items():
        for index, value in enumerate(series):
            rows.append(
                {
                    "task_id": f"t{index}",
                    "method": "trend",
                    "status": "ok",
                    "metrics": {metric: {"name": metric, "value": value}},
                }
            )
    merged: dict[str, dict[str, object]] = {}
    for row in rows:
        merged.setdefault(str(row["task_id"]), {**row, "metrics": {}})["metrics"].update(row["metrics"])  # type: ignore[union-attr]
    (folder / "scores.jsonl").write_text("".join(json.dumps(row) + "\n" for row in merged.values()))
    return folder


def test_a_proxy_blind_to_evidence_is_flagged(tmp_path: Path) -> None:
    flat = [0.18, 0.19, 0.17, 0.2, 0.18, 0.19, 0.18, 0.17, 0.2, 0.19]
    evidence = _scores(
        tmp_path / "evidence", {"fact_offline": flat, "fta": [0.6 + 0.01 * i for i in range(10)]}
    )
    blind = _scores(tmp_path / "blind", {"fact_offline": list(reversed(flat)), "fta": [0.3] * 10})
    checks = {check.metric: check for check in proxy_separation(evidence, blind)}
    assert checks["fta"].separates and checks["fta"].pairs == 10
    assert not checks["fact_offline"].separates
    assert checks["fact_offline"].verdict == "cannot separate evidence-based from blind answers"


def test_blind_copy_moves_every_cutoff_before_the_kb(tmp_path: Path) -> None:
    release = import_researchforesight(write_release(tmp_path / "rf"), tmp_path / "release")
    blind = blind_copy(release, tmp_path / "blind")
    tasks = load_release(blind).tasks
    assert tasks and all(task.cutoff == date(1990, 1, 1) for task in tasks)
    assert (blind / "hidden.jsonl").read_text() == (release / "hidden.jsonl").read_text()
