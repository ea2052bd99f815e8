"""`foresci sim generate` and `foresci sim truth` through the real CLI."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from foresci.cli import app
from foresci.sim.world import load_ground_truth

runner = CliRunner()


def test_generate_then_truth(tmp_path: Path) -> None:
    out = tmp_path / "world"
    result = runner.invoke(
        app,
        [
            "sim",
            "generate",
            str(out),
            "--seed",
            "3",
            "--domains",
            "2",
            "--months",
            "12",
            "--papers-per-month",
            "50",
            "--difficulty",
            "0.9",
            "--counterfactual",
            "reverse",
        ],
        env={"COLUMNS": "250"},  # the summary line names the folder: a longer tmp path must not wrap it
    )
    assert result.exit_code == 0, result.output
    truth = load_ground_truth(out)
    assert truth.config["difficulty"] == 0.9 and truth.config["counterfactual"] == "reverse"
    assert len(truth.domains) == 2 and len(truth.months) == 12
    assert f"{truth.paper_count} papers" in result.output
    shown = runner.invoke(app, ["sim", "truth", str(out), "--chains"], env={"COLUMNS": "250"})
    assert shown.exit_code == 0, shown.output
    for direction in truth.directions:  # one table per domain, its directions by number (DOMAIN/N)
        domain, number = direction.direction_id.rsplit("/", 1)
        assert f"planted directions of {domain}" in shown.output and f"\n {number} " in shown.output
        assert direction.bottlenecks[-1].bottleneck in shown.output


def test_bad_knob_is_reported_not_raised(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["sim", "generate", str(tmp_path), "--counterfactual", "sideways"], env={"COLUMNS": "250"}
    )
    assert result.exit_code != 0
    assert "counterfactual" in result.output
    assert not (tmp_path / "ground_truth.json").exists()


def test_truth_of_a_folder_without_a_world_names_the_file(tmp_path: Path) -> None:
    result = runner.invoke(app, ["sim", "truth", str(tmp_path)], env={"COLUMNS": "250"})
    assert result.exit_code != 0
    assert "ground_truth.json" in result.output


def test_kb_build_finds_the_domains_of_a_generated_world(tmp_path: Path) -> None:
    from foresci.kb.cli import world_domains

    world = tmp_path / "world"
    (world / "corpus").mkdir(parents=True)
    (world / "domains").mkdir()
    day = world / "corpus" / "2024-01-02.jsonl"
    day.write_text("")
    assert world_domains([day]) == []  # not a world until its ground truth is there
    (world / "ground_truth.json").write_text("{}")
    assert world_domains([world / "corpus"]) == [world / "domains"]
    assert world_domains([day, world]) == [world / "domains"]
    assert world_domains([tmp_path]) == []


def test_the_printed_task_cutoff_leaves_every_default_window_closed(tmp_path: Path) -> None:
    from datetime import date

    from foresci.tasks.windows import make_window
    from foresci.tasks.world_cutoff import last_corpus_day, task_cutoff

    files = [tmp_path / name for name in ("2024-01-02.jsonl", "2025-06-27.jsonl.gz", "notes.txt")]
    assert last_corpus_day(files) == date(2025, 6, 27)
    # defaults: 18 months from 2024-01, cutoff 2024-12-31, corpus to a late June weekday: one month back
    usable = task_cutoff(date(2024, 12, 31), date(2025, 6, 27))
    assert usable == date(2024, 11, 30)
    horizons = ("3m", "6m", "venue_cycle")
    assert all(make_window(usable, horizon).end <= date(2025, 6, 27) for horizon in horizons)
    assert task_cutoff(date(2024, 12, 31), date(2025, 6, 30)) == date(2024, 12, 31)
