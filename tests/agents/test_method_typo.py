"""`foresci run --method persistance` names the method it was close to."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from foresci.cli import app


def test_a_misspelt_method_gets_a_did_you_mean(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["run", str(tmp_path), "--method", "persistance", "--out",
                                      str(tmp_path / "run")], env={"COLUMNS": "400"}, terminal_width=400)
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "did you mean persistence? unknown method 'persistance'" in text
    far = CliRunner().invoke(app, ["run", str(tmp_path), "--method", "zzzz", "--out", str(tmp_path / "r")],
                             env={"COLUMNS": "400"}, terminal_width=400)
    assert far.exit_code == 2 and "did you mean" not in far.output
