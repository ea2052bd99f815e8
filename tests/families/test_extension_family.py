"""A task family defined outside foresci goes through the whole pipeline without editing foresci.

``tests/families/busiest_direction`` (one folder: the family with its forecast question and signals, its
hidden target, its builder, its forecasters' strategy) is copied into a temporary folder that is put on
PYTHONPATH and named in FORESCI_EXTENSIONS; then real ``python -m foresci`` processes run ``tasks build``
(its tasks and forecast questions) -> ``run`` (the trend and persistence baselines, which answer by the
strategy the family names) -> ``eval --offline`` -> ``report`` on a generated world, and a round:
``rounds open`` (its questions join the round's supply) -> ``submit`` -> ``kb update`` -> ``tick``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from foresci.core.io import iter_jsonl

REPO = Path(__file__).resolve().parents[2]
FAMILY_FOLDER = Path(__file__).resolve().parent / "busiest_direction"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A generated world, its KB, and an extension folder holding the toy family."""
    from foresci.core.settings import Settings
    from foresci.kb.build import build_kb
    from foresci.sim.world import WorldConfig, generate_world, load_ground_truth

    root = tmp_path_factory.mktemp("family-world")
    config = WorldConfig(seed=3, n_domains=1, directions_per_domain=4, months=12, papers_per_month=30.0)
    generated = generate_world(config, root / "world")
    truth = load_ground_truth(generated.root)
    domains = [domain.slug for domain in truth.domains]
    settings = Settings(cache_dir=root / "cache", kb={"domains": domains, "embed_field": "title"})
    build_kb([generated.corpus], root / "kb", settings, domains_dirs=[generated.domains])
    days = sorted(path for path in generated.corpus.iterdir() if path.name[:4].isdigit())
    early = root / "early"  # the days up to the cutoff: a round opens on this KB, later days come after
    early.mkdir()
    for path in days:
        if date.fromisoformat(path.name[:10]) <= truth.cutoff:
            (early / path.name).symlink_to(path)
    build_kb([early], root / "early-kb", settings, domains_dirs=[generated.domains])
    extensions = root / "extensions"
    shutil.copytree(FAMILY_FOLDER, extensions / "busiest_direction",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return {"root": root, "cutoff": truth.cutoff, "extensions": extensions, "domains": domains,
            "later": [path for path in days if date.fromisoformat(path.name[:10]) > truth.cutoff]}


def _foresci(args: list[str], world: dict[str, Any],
             extension: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FORESCI_CACHE_DIR": str(world["root"] / "cache"),
           "FORESCI_KB__EMBED_FIELD": "title", "FORESCI_TASKS__ENFORCE_GATES": "false",
           "FORESCI_KB__DOMAINS": json.dumps(world["domains"]),
           "OMP_NUM_THREADS": "1", "COLUMNS": "250",
           "PYTHONPATH": os.pathsep.join([str(world["extensions"]), str(REPO)])}
    env.pop("FORESCI_EXTENSIONS", None)
    if extension:
        env["FORESCI_EXTENSIONS"] = "busiest_direction"
    return subprocess.run([sys.executable, "-m", "foresci", *args], capture_output=True, text=True, env=env,
                          timeout=900, check=False)


@pytest.mark.slow
def test_a_family_from_outside_foresci_is_built_answered_scored_and_reported(world: dict[str, Any]) -> None:
    root: Path = world["root"]
    release, run, report = root / "release", root / "run", root / "report"
    listed = _foresci(["tasks", "families"], world)
    assert listed.returncode == 0 and "busiest_direction" in listed.stdout, listed.stderr
    built = _foresci(["tasks", "build", str(root / "kb"), "--cutoff", world["cutoff"].isoformat(), "--out",
                      str(release), "--window", "3m", "--per-family", "2", "--forecast", "10"], world)
    assert built.returncode == 0, built.stderr
    questions = [row for row in iter_jsonl(release / "forecast.jsonl")
                 if row["params"]["family"] == "busiest_direction"]
    assert questions and all(row["kind"] == "binary" and "papers announced between" in row["text"]
                             for row in questions)  # written by the family's own hook
    outcomes = {row["question_id"]: row for row in iter_jsonl(release / "forecast_hidden.jsonl")}
    assert all(outcomes[row["question_id"]]["outcome"] in (0.0, 1.0)  # resolved by the family's own hook
               and "kept" in outcomes[row["question_id"]]["details"] for row in questions)
    tasks = list(iter_jsonl(release / "tasks.jsonl"))
    toy = [task for task in tasks if task["family"] == "busiest_direction"]
    assert toy and all(task["task_id"].startswith("bd-") for task in toy)
    assert {task["family"] for task in tasks} > {"busiest_direction"}  # the shipped families beside it
    hidden = {row["task_id"]: row for row in iter_jsonl(release / "hidden.jsonl")}
    # the toy family's target writes only its own fields; the shipped ones keep the flat row's keys
    assert set(hidden[toy[0]["task_id"]]) == {"task_id", "family", "ranking", "slots", "claims",
                                              "evidence_ids", "stats", "unmapped"}
    assert all(len(hidden[task["task_id"]]["ranking"]) == 3 for task in toy)
    validated = _foresci(["tasks", "validate", str(release)], world)
    assert validated.returncode == 0, validated.stdout + validated.stderr

    answered = _foresci(["run", str(release), "--kb", str(root / "kb"), "-m", "trend", "-m", "persistence",
                         "--out", str(run), "--no-progress"], world)
    assert answered.returncode == 0, answered.stderr
    rows = [row for row in iter_jsonl(run / "answers.jsonl") if row["family"] == "busiest_direction"]
    assert len(rows) == 2 * len(toy) and all(row["status"] == "ok" for row in rows), rows
    assert all(row["payload"]["rationale"].endswith("ranked by momentum") for row in rows)
    assert all(row["text"].startswith("Busiest first:") for row in rows)  # the family's renderer
    forecasts = [row for row in iter_jsonl(run / "forecasts.jsonl")
                 if row["question_id"] in {question["question_id"] for question in questions}]
    assert len(forecasts) == 2 * len(questions) and all(row["probability"] is not None for row in forecasts)

    scored = _foresci(["eval", str(run), "--offline"], world)
    assert scored.returncode == 0, scored.stderr
    scores = [row for row in iter_jsonl(run / "scores.jsonl") if row["family"] == "busiest_direction"]
    assert len(scores) == len(rows)
    for score in scores:
        assert score["metrics"]["fta"]["details"]["kind"] == "rank"  # a ranked family: FTA_rank
        assert score["metrics"]["top_choice"]["value"] in (0.0, 1.0)
        assert "fta_offline_claims" not in score["metrics"]  # not among the family's metrics
    asked = {question["question_id"] for question in questions}
    briers = [row for row in iter_jsonl(run / "scores.jsonl") if row["key"].split("|")[0] in asked]
    assert len(briers) == len(forecasts) and all(row["metrics"]["brier"]["available"] for row in briers)
    summary = json.loads((run / "summary.json").read_text())
    assert any(entry["family"] == "busiest_direction" for entry in summary["leaderboard"])

    reported = _foresci(["report", str(run), "--out", str(report)], world)
    assert reported.returncode == 0, reported.stderr
    assert "busiest_direction" in (report / "index.html").read_text(encoding="utf-8")

    # without the extension the release names a family nobody registered: one line naming the known ones
    unknown = _foresci(["tasks", "validate", str(release)], world, extension=False)
    assert unknown.returncode != 0 and "Traceback" not in unknown.stderr
    assert len(unknown.stderr.strip().splitlines()) == 1, unknown.stderr
    assert "busiest_direction" in unknown.stderr and "direction_forecasting" in unknown.stderr


@pytest.mark.slow
def test_a_family_from_outside_foresci_freezes_into_a_round_and_resolves(world: dict[str, Any]) -> None:
    """Its forecast rule joins the round's supply and its round hooks freeze its tasks: ``rounds open``
    freezes both from the KB up to the cutoff, the baselines and a submission answer them, ``tick``
    resolves and scores them by its hooks."""
    root: Path = world["root"]
    ledger, kb = root / "ledger", root / "round-kb"
    shutil.copytree(root / "early-kb", kb)  # kb update below grows it
    started = _foresci(["rounds", "init", str(ledger), "--start", world["cutoff"].replace(day=1).isoformat(),
                        "--window", "3m", "--questions", "40", "--min-items", "2", "--family-tasks", "2",
                        "--families", "busiest_direction", "--emergence-questions", "0"], world)
    assert started.returncode == 0, started.stderr
    opened = _foresci(["rounds", "open", str(ledger), "--kb", str(kb)], world)
    assert opened.returncode == 0 and "opened r-" in opened.stdout, opened.stdout + opened.stderr
    round_id = opened.stdout.split("opened ")[1].split()[0]
    folder = ledger / "rounds" / round_id
    package = next(folder.rglob("forecast.jsonl"))
    toy = {row["question_id"] for row in iter_jsonl(package)
           if row["params"]["family"] == "busiest_direction"}
    assert toy, "the family's rule joined no round question"
    frozen = list(iter_jsonl(folder / "public" / "tasks" / "tasks.jsonl"))
    assert frozen and {task["family"] for task in frozen} == {"busiest_direction"}  # by its round hooks
    submitted = _foresci(["rounds", "submit", str(ledger), round_id, "--kb", str(kb), "--method", "trend",
                          "--name", "trend-again"], world)
    assert submitted.returncode == 0 and "v0001" in submitted.stdout, submitted.stdout + submitted.stderr
    submission = folder / "submissions" / "trend-again" / "v0001"
    answered = [row for row in iter_jsonl(submission / "forecasts.jsonl") if row["question_id"] in toy]
    assert len(answered) == len(toy) and all(row["status"] == "ok" for row in answered)
    updated = _foresci(["kb", "update", str(kb), *map(str, world["later"])], world)
    assert updated.returncode == 0, updated.stderr
    for _ in range(2):  # close, then resolve and score once the window is covered
        ticked = _foresci(["rounds", "tick", str(ledger), "--kb", str(kb)], world)
        assert ticked.returncode == 0, ticked.stdout + ticked.stderr
    assert f"scored {round_id}" in ticked.stdout or (folder / "scores.jsonl").is_file(), ticked.stdout
    resolutions = {row["question_id"]: row for path in (folder / "resolutions").glob("*.jsonl")
                   for row in iter_jsonl(path) if "question_id" in row}
    assert toy <= set(resolutions) and all("kept" in resolutions[question]["details"] for question in toy)
    resolved = [row for path in (folder / "resolutions").glob("tasks-*.jsonl") for row in iter_jsonl(path)]
    assert {row["task_id"] for row in resolved} == {task["task_id"] for task in frozen}
    assert all(row["status"] == "resolved" and row["family"] == "busiest_direction" for row in resolved)
    scored = [row for row in iter_jsonl(folder / "task_scores.jsonl") if row["metric"] == "mbrier"]
    assert {row["task_id"] for row in scored} == {task["task_id"] for task in frozen}
