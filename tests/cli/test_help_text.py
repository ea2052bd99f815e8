"""Help texts render their literal brackets (rich markup would eat ``[ray]``)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from foresci.cli import app


@pytest.mark.parametrize("command", ["run", "eval"])
def test_engine_help_shows_the_ray_extra(command: str) -> None:
    result = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "400"}, terminal_width=400)
    assert result.exit_code == 0, result.output
    assert "pip install 'foresci[ray]'" in " ".join(result.output.split())
