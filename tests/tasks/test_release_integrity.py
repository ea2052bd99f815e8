"""run, eval and tasks audit verify a release against its manifest hashes, as packages are checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from foresci.cli import app
from foresci.core.artifacts import write_manifest
from foresci.core.errors import UserError
from foresci.core.io import write_json
from foresci.evaluation.loading import load_release as load_for_evaluation
from foresci.tasks.forecast import load_package
from foresci.tasks.release import load_release
from tests.evaluation.fixtures import write_release, write_run
from tests.tasks.test_forecast import package  # noqa: F401 (fixture)


def _built_release(folder: Path) -> Path:
    write_release(folder)
    write_manifest(folder, "release", inputs={}, config={},
                   files=["tasks.jsonl", "hidden.jsonl", "forecast.jsonl", "forecast_hidden.jsonl"])
    return folder


def _move_a_cutoff(release: Path) -> None:
    lines = (release / "tasks.jsonl").read_text().splitlines(keepends=True)
    row = json.loads(lines[0])
    row["cutoff"] = "2024-01-01"
    lines[0] = json.dumps(row) + "\n"
    (release / "tasks.jsonl").write_text("".join(lines))


def test_an_edited_release_file_is_refused_by_every_loader(tmp_path: Path) -> None:
    release = _built_release(tmp_path / "release")
    assert load_release(release).tasks and load_for_evaluation(release).hidden  # untouched: loads
    _move_a_cutoff(release)
    for load in (load_release, load_for_evaluation):
        with pytest.raises(UserError, match="hash mismatch") as caught:
            load(release)
        assert caught.value.path == release / "tasks.jsonl"
    (release / "hidden.jsonl").unlink()
    with pytest.raises(UserError, match="missing"):
        load_for_evaluation(release)


@pytest.mark.parametrize("command", ["run", "eval", "audit"])
def test_run_eval_and_audit_refuse_an_edited_release(tmp_path: Path, command: str) -> None:
    release = _built_release(tmp_path / "release")
    run = write_run(tmp_path / "run", release)
    _move_a_cutoff(release)
    argv = {"run": ["run", str(release), "--method", "persistence", "--kb", str(tmp_path),
                    "--out", str(tmp_path / "out")],
            "eval": ["eval", str(run), "--offline"],
            "audit": ["tasks", "audit", str(release)]}[command]
    result = CliRunner().invoke(app, argv, env={"FORESCI_CACHE_DIR": str(tmp_path / "cache")})
    assert result.exit_code != 0
    said = "".join((result.output + str(result.exception)).split())
    assert "tasks.jsonl" in said and "hashmismatch" in said


def test_a_package_whose_manifest_hashes_were_rewritten_too_is_refused(package: Path) -> None:  # noqa: F811
    questions = package / "forecast.jsonl"
    questions.write_text(questions.read_text().replace("papers", "paper", 1))
    manifest = json.loads((package / "manifest.json").read_text())
    from foresci.core.artifacts import sha256_file

    manifest["hashes"]["forecast.jsonl"] = sha256_file(questions)
    write_json(package / "manifest.json", manifest)
    for load in (load_package, load_release, load_for_evaluation):
        with pytest.raises(UserError, match="content_hash"):
            load(package)
