"""At 80 columns no help text and no `sim truth` table cuts a word with an ellipsis ("venue_posi…")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from typer.main import get_command
from typer.testing import CliRunner

from foresci.cli import app
from foresci.sim.world import WorldConfig, generate_world

NARROW = {"COLUMNS": "80"}


def _command_paths(command: Any, path: list[str]) -> list[list[str]]:
    paths = [path]
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        paths += _command_paths(sub, [*path, name])
    return paths


def test_no_help_text_cuts_a_word_at_80_columns() -> None:
    runner = CliRunner()
    cut = {}
    for path in _command_paths(get_command(app), []):
        shown = runner.invoke(app, [*path, "--help"], env=NARROW)
        assert shown.exit_code == 0, (path, shown.output)
        lines = [line.strip() for line in shown.output.splitlines() if "…" in line]
        if lines:
            cut[" ".join(path)] = lines
    assert cut == {}


def test_tasks_families_cuts_no_name_at_80_columns() -> None:
    from foresci.tasks.families import all_families

    shown = CliRunner().invoke(app, ["tasks", "families"], env=NARROW)
    assert shown.exit_code == 0 and "…" not in shown.output, shown.output
    for family in all_families():  # what write-a-task-family.md greps for
        assert any(line.startswith(f"{family.name} ") for line in shown.output.splitlines()), shown.output
        assert type(family).__module__ in shown.output


def test_sim_truth_cuts_no_name_at_80_columns(tmp_path: Path) -> None:
    config = WorldConfig(seed=3, n_domains=2, directions_per_domain=4, months=12, window_months=3,
                         papers_per_month=10.0)
    world = generate_world(config, tmp_path / "world")
    shown = CliRunner().invoke(app, ["sim", "truth", str(world.root), "--chains"], env=NARROW)
    assert shown.exit_code == 0, shown.output
    assert "…" not in shown.output
    assert all(len(line) <= 80 for line in shown.output.splitlines())
    text = " ".join(shown.output.split())
    from foresci.sim.world import load_ground_truth

    for direction in load_ground_truth(world.root).directions:
        domain, number = direction.direction_id.rsplit("/", 1)
        assert domain in text and number in shown.output and direction.venue_ranking[0] in shown.output
        assert all(word in text for word in direction.name.split())
