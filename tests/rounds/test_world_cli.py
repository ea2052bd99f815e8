"""End to end on a generated world through the CLI: kb build over the first days, `rounds tick`/`submit`,
`kb update` with later days, deadline refusal, resolution once the window is covered, the site."""

from __future__ import annotations

import importlib.util
import json
import os
from datetime import date
from pathlib import Path

import pytest
from typer.testing import CliRunner

from foresci.cli import app
from foresci.core.settings import Settings
from foresci.kb.build import build_kb, update_kb
from foresci.rounds.submit import DeadlineError
from foresci.sim.world import WorldConfig, generate_world, load_ground_truth

runner = CliRunner()
SPLIT = date(2025, 5, 31)


def _day(path: Path) -> date:
    return date.fromisoformat(path.name[:10])


def _cli(*args: str, env: dict[str, str]) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env=env)
    return result.exit_code, result.output


def _ray_submission(ledger: Path, round_id: str, kb: Path, env: dict[str, str]) -> None:
    """`rounds submit --engine ray` of trend (the KB read by Ray workers of a 2-CPU local cluster) stores
    the local submission's rows byte for byte, as the next version."""
    if importlib.util.find_spec("ray") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("ray is not installed; `make test` installs the foresci[ray] extra")
        return
    import ray

    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                 object_store_memory=96 * 1024 * 1024, configure_logging=False)
    try:
        code, output = _cli(
            "rounds", "submit", str(ledger), round_id, "--kb", str(kb), "--method", "trend",
            "--name", "trend-again", "--engine", "ray", env=env,
        )
    finally:
        if started:
            ray.shutdown()
    assert code == 0 and "trend-again/v0002" in output, output
    base = ledger / "rounds" / round_id / "submissions" / "trend-again"
    for name in ("forecasts.jsonl", "task_answers.jsonl"):
        assert (base / "v0002" / name).read_bytes() == (base / "v0001" / name).read_bytes(), name
    record = json.loads((base / "v0002" / "submission.json").read_text())
    assert record["source"]["engine"] == "ray" and record["errors"] == 0


def _inspect_submission(ledger: Path, round_id: str, kb: Path, tmp_path: Path, env: dict[str, str]) -> None:
    """`rounds inspect-task`, inspect eval with the scripted mockllm model (KB tools on), then `rounds
    submit --inspect-log`: a version with one answer per round task."""
    if importlib.util.find_spec("inspect_ai") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("inspect_ai is not installed; `make test` installs the foresci[inspect] extra")
        return
    from inspect_ai import eval as inspect_eval

    from foresci.rounds.ledger import round_dir
    from foresci.rounds.submit import round_tasks
    from tests.inspect.scripted_agent import scripted_model

    task_file = tmp_path / "round_task.py"
    code, output = _cli(
        "rounds", "inspect-task", str(ledger), round_id, "--kb", str(kb), "--out", str(task_file), env=env
    )
    assert code == 0 and task_file.is_file(), output
    tasks = round_tasks(round_dir(ledger, round_id))
    here = os.getcwd()
    os.chdir(tmp_path)  # inspect globs a task file relative to the working directory
    try:
        (log,) = inspect_eval(task_file.name, model=scripted_model(tasks), log_dir="logs", display="none")
    finally:
        os.chdir(here)
    assert log.status == "success", log.error
    code, output = _cli(
        "rounds", "submit", str(ledger), round_id, "--kb", str(kb), "--inspect-log",
        str(tmp_path / log.location) if not Path(log.location).is_absolute() else log.location,
        "--name", "inspect-agent", env=env,
    )
    assert code == 0 and "inspect-agent/v0001" in output, output
    answered = ledger / "rounds" / round_id / "submissions" / "inspect-agent" / "v0001" / "task_answers.jsonl"
    rows = [json.loads(line) for line in answered.open()]
    assert [row["task_id"] for row in rows] == [task.task_id for task in tasks]
    assert all(row["status"] == "ok" for row in rows)


@pytest.mark.slow
def test_generated_world_rounds_through_the_cli(tmp_path: Path) -> None:
    world = generate_world(
        WorldConfig(
            seed=5,
            n_domains=1,
            directions_per_domain=5,
            start="2025-01",
            months=9,
            papers_per_month=45.0,
            noise=0.0,
        ),
        tmp_path / "world",
    )
    slugs = [domain.slug for domain in load_ground_truth(world.root).domains]
    settings = Settings(cache_dir=tmp_path / "cache")
    settings.kb = settings.kb.model_copy(update={"domains": slugs})
    days = sorted(path for path in world.corpus.iterdir() if path.name[:4].isdigit())
    staged = tmp_path / "early"
    staged.mkdir()
    for path in days:
        if _day(path) <= SPLIT:
            (staged / path.name).symlink_to(path)
    later = [path for path in days if _day(path) > SPLIT]
    kb, ledger = tmp_path / "kb", tmp_path / "ledger"
    build_kb([staged], kb, settings, domains_dirs=[world.domains])
    env = {"FORESCI_CACHE_DIR": str(tmp_path / "cache"), "FORESCI_KB__DOMAINS": json.dumps(slugs)}
    code, output = _cli(
        "rounds",
        "init",
        str(ledger),
        "--start",
        "2025-05-01",
        "--questions",
        "6",
        "--min-items",
        "2",
        env=env,
    )
    assert code == 0, output
    code, output = _cli("rounds", "open", str(ledger), "--kb", str(kb), env=env)
    assert code == 0 and "opened r-2025-05-" in output, output
    round_id = output.split("opened ")[1].split()[0]
    code, output = _cli(
        "rounds",
        "submit",
        str(ledger),
        round_id,
        "--kb",
        str(kb),
        "--method",
        "trend",
        "--name",
        "trend-again",
        env=env,
    )
    assert code == 0 and "v0001" in output, output
    _ray_submission(ledger, round_id, kb, env)
    _inspect_submission(ledger, round_id, kb, tmp_path, env)
    update_kb(kb, later[:1], settings)
    code, output = _cli("rounds", "tick", str(ledger), "--kb", str(kb), env=env)
    assert code == 0 and f"closed {round_id}" in output, output
    refused = runner.invoke(
        app, ["rounds", "submit", str(ledger), round_id, "--kb", str(kb), "--method", "trend"], env=env
    )
    assert refused.exit_code != 0 and isinstance(refused.exception, DeadlineError)
    assert "closed" in str(refused.exception) and len(str(refused.exception).splitlines()) == 1
    update_kb(kb, later[1:], settings)
    code, output = _cli("rounds", "tick", str(ledger), "--kb", str(kb), env=env)
    assert code == 0 and f"resolved {round_id} 3m" in output and f"scored {round_id}" in output, output
    assert _cli("rounds", "tick", str(ledger), "--kb", str(kb), env=env)[1].strip() == "nothing due"
    board = json.loads((ledger / "board.json").read_text())
    methods = {
        entry["method"] for board_entry in board["boards"].values() for entry in board_entry["methods"]
    }
    assert {"always-0.5", "base-rate", "persistence", "trend", "trend-again"} <= methods
    folder = ledger / "rounds" / round_id
    manifest = json.loads((folder / "round.json").read_text())
    task_ids = [json.loads(line)["task_id"] for line in (folder / "public/tasks/tasks.jsonl").open()]
    assert manifest["tasks"] == len(task_ids) > 0
    for name in ("persistence", "trend", "trend-again"):  # baselines at open, a CLI submission later
        path = folder / "submissions" / name / "v0001" / "task_answers.jsonl"
        assert sorted(json.loads(line)["task_id"] for line in path.open()) == sorted(task_ids)
    assert manifest["counts"]["tasks_by_family"].get("bottleneck_opportunity", 0) > 0
    for name in ("persistence", "trend"):  # the baselines answer the bottleneck tasks too
        path = folder / "submissions" / name / "v0001" / "task_answers.jsonl"
        rows = [json.loads(line) for line in path.open()]
        assert all(row["status"] == "ok" for row in rows if row["family"] == "bottleneck_opportunity")
    scored = [json.loads(line) for line in (folder / "task_scores.jsonl").open()]
    resolved = [json.loads(line) for path in (folder / "resolutions").glob("tasks-*.jsonl")
                for line in path.open()]
    slot_tasks = {row["task_id"] for row in resolved if row["status"] == "resolved" and row["decisive"]
                  and row["family"] in ("direction_forecasting", "bottleneck_opportunity")}
    assert {row["task_id"] for row in scored if row["metric"] == "fta"} >= slot_tasks  # the KB's embedder
    assert {row["task_id"] for row in scored if row["metric"] == "mbrier"} == {  # every task scored
        row["task_id"] for row in resolved if row["status"] == "resolved"}
    three_months = [line for line in (folder / "public/tasks/options.jsonl").open() if '"3m"' in line]
    tasks = next(entry["tasks"] for entry in board["rounds"] if entry["round_id"] == round_id)
    assert tasks["resolved"] + tasks["void"] == len(three_months)  # the venue cycle has not closed
    code, output = _cli("rounds", "site", str(ledger), "--out", str(tmp_path / "site"), env=env)
    assert code == 0 and (tmp_path / "site" / "data" / "summary.json").is_file()
