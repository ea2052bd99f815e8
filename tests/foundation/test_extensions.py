"""Extension modules named in FORESCI_EXTENSIONS are imported once; a bad one is a one-line error."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from foresci.core import extensions
from foresci.core.extensions import ExtensionError, load_extensions


def _write_module(folder: Path, name: str, body: str) -> None:
    (folder / f"{name}.py").write_text(body)


def test_named_modules_are_imported_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write_module(tmp_path, "fx_counting_ext", "import builtins\n"
                  "builtins.fx_imports = getattr(builtins, 'fx_imports', 0) + 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("FORESCI_EXTENSIONS", " fx_counting_ext , ")
    monkeypatch.setattr(extensions, "_loaded", set())
    import builtins

    assert load_extensions() == ["fx_counting_ext"]
    assert load_extensions() == []
    assert builtins.fx_imports == 1  # type: ignore[attr-defined]
    sys.modules.pop("fx_counting_ext", None)


def test_a_failing_extension_names_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write_module(tmp_path, "fx_broken_ext", "raise RuntimeError('boom')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("FORESCI_EXTENSIONS", "fx_broken_ext")
    monkeypatch.setattr(extensions, "_loaded", set())
    with pytest.raises(ExtensionError) as caught:
        load_extensions()
    message = str(caught.value)
    assert "fx_broken_ext" in message and "FORESCI_EXTENSIONS" in message and "boom" in message
    assert "\n" not in message


_TASK_ROW = ('{"task_id": "df-1", "family": "%s", "domain": "x", "cutoff": "2024-01-31", "horizon": "3m", '
             '"window_start": "2024-02-01", "window_end": "2024-04-30", "title": "t", "question": "q"}\n')


def _release(folder: Path, family: str = "direction_forecasting") -> Path:
    release = folder / "release"
    release.mkdir()
    (release / "tasks.jsonl").write_text(_TASK_ROW % family)
    return release


def test_a_typo_in_foresci_extensions_is_reported_at_the_commands_entry_not_as_a_task_row(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from foresci.cli import run_cli

    monkeypatch.setenv("FORESCI_EXTENSIONS", "fx_lab.famlies")
    monkeypatch.setattr(extensions, "_loaded", set())
    status = run_cli(["tasks", "validate", str(_release(tmp_path))])
    error = capsys.readouterr().err
    assert status == 1
    assert "cannot import extension 'fx_lab.famlies'" in error and "FORESCI_EXTENSIONS" in error
    assert "PYTHONPATH" in error  # the hint for a module not found at all
    assert "invalid Task" not in error and "tasks.jsonl" not in error


def test_an_extension_that_fails_while_registering_names_its_failing_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write_module(tmp_path, "fx_half_family",
                  "from foresci.tasks.families import TaskFamily, register_family\n\n"
                  "register_family(type('Half', (TaskFamily,), {'name': 'half'}))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("FORESCI_EXTENSIONS", "fx_half_family")
    monkeypatch.setattr(extensions, "_loaded", set())
    with pytest.raises(ExtensionError) as caught:
        load_extensions()
    message = str(caught.value)
    assert f"{tmp_path.resolve() / 'fx_half_family.py'}:3: FamilyDefinitionError" in message
    assert "abbreviation" in message  # what is missing
    sys.modules.pop("fx_half_family", None)


def test_a_user_error_raised_in_a_pydantic_validator_is_not_swallowed_as_a_field_error() -> None:
    from pydantic import BaseModel, field_validator

    from foresci.core.errors import UserError

    class Row(BaseModel):
        name: str

        @field_validator("name")
        @classmethod
        def _check(cls, value: str) -> str:
            raise UserError("the real cause", path="settings.yaml")

    with pytest.raises(UserError) as caught:
        Row(name="x")
    assert str(caught.value) == "settings.yaml: the real cause"


def test_an_unknown_family_in_tasks_jsonl_is_still_that_rows_family_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from foresci.cli import run_cli

    monkeypatch.delenv("FORESCI_EXTENSIONS", raising=False)
    status = run_cli(["tasks", "validate", str(_release(tmp_path, family="direction_forecastin"))])
    error = capsys.readouterr().err
    assert status == 1
    assert "tasks.jsonl:1: family: invalid Task" in error
    assert "unknown task family 'direction_forecastin'" in error
