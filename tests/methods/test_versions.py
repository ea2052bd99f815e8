"""Method identity: rows record the method's version; an edited plug-in rerun into the same folder is
refused naming what changed (``--new-version`` keeps both); reports never merge two versions."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from foresci.agents.answers import read_answers
from foresci.methods.identity import http_version, source_version
from tests.methods.conftest import Foresci
from tests.realllm.world import SmallWorld

PLUGIN = '''
from foresci.methods import method


@method("first_option", needs_kb=True)
def first_option(inputs):
    task = inputs.task
    options = [candidate.option_id for candidate in task.candidates]
    if task.family == "direction_forecasting":
        return {"direction": options[PICK], "trajectory": "steady", "rationale": "version PICK"}
    if task.family == "bottleneck_opportunity":
        return {"bottleneck": "data", "opportunity": "more data", "mechanism": "version PICK"}
    return {"ranking": [{"option_id": option} for option in options[::STEP]]}
'''


def _write_plugin(folder: Path, pick: int) -> None:
    (folder / "versioned_agent.py").write_text(textwrap.dedent(PLUGIN).replace("PICK", str(pick))
                                               .replace("STEP", str(1 - 2 * pick)))


def _run(foresci: Foresci, world: SmallWorld, folder: Path, out: Path, *extra: str):  # type: ignore[no-untyped-def]
    return foresci("run", str(world.release_dir), "--kb", str(world.kb_dir), "--method",
                   "versioned_agent:first_option", "--out", str(out), "--no-progress", *extra, path=(folder,))


def test_source_version_follows_the_file_and_an_agent_without_info_is_its_masked_url(tmp_path: Path,
                                                                           monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "hashed_mod_a.py").write_text("X = 1\n")
    first = source_version("hashed_mod_a")
    (tmp_path / "hashed_mod_a.py").write_text("X = 2\n")
    assert source_version("hashed_mod_a") != first and first.startswith("src:")
    version = http_version("http://user:secret@127.0.0.1:9/answer?api-key=abc")  # nothing listens on 9
    assert "secret" not in version and "abc" not in version and version.startswith("http://")


@pytest.mark.slow
def test_an_edited_plugin_is_refused_unless_new_version_and_reports_keep_both(
        small_world: SmallWorld, foresci: Foresci, tmp_path: Path) -> None:
    folder = tmp_path / "plugins"
    folder.mkdir()
    _write_plugin(folder, 0)
    run, other = tmp_path / "v1", tmp_path / "v2"
    first = _run(foresci, small_world, folder, run, "--label", "v1")
    assert first.returncode == 0, first.stderr[-3000:]
    rows = read_answers(run / "answers.jsonl")
    old_version = {row.version for row in rows}
    assert len(old_version) == 1 and next(iter(old_version)).startswith("src:")
    assert {row.label for row in rows} == {"v1"}

    _write_plugin(folder, 1)  # the user edits the plug-in
    refused = _run(foresci, small_world, folder, run, "--label", "v1")
    assert refused.returncode != 0
    message = refused.stderr
    assert "first_option (src:" in message and "--new-version" in message, message[-2000:]
    assert len(read_answers(run / "answers.jsonl")) == len(rows), "nothing was answered"

    kept = _run(foresci, small_world, folder, run, "--label", "v1", "--new-version")
    assert kept.returncode == 0, kept.stderr[-3000:]
    both = read_answers(run / "answers.jsonl")
    versions = {row.version for row in both}
    assert len(both) == 2 * len(rows) and len(versions) == 2
    again = _run(foresci, small_world, folder, run, "--label", "v1")
    assert again.returncode == 0 and f"{len(rows)} already done" in again.stderr, again.stderr[-2000:]

    assert _run(foresci, small_world, folder, other, "--label", "v2").returncode == 0
    for folder_ in (run, other):
        evaluated = foresci("eval", str(folder_), "--release", str(small_world.release_dir), "--offline")
        assert evaluated.returncode == 0, evaluated.stderr[-3000:]
    report = foresci("report", str(run), str(other), "--out", str(tmp_path / "report"))
    assert report.returncode == 0, report.stderr[-3000:]
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    methods = {entry["method"] for entry in summary["leaderboard"]}
    new_version = next(iter(versions - old_version))
    assert methods == {f"v1/first_option@{next(iter(old_version))}", f"v1/first_option@{new_version}",
                       f"v2/first_option@{new_version}"}, methods
    assert "counted once" not in json.dumps(summary.get("notes", []))
    means = {entry["method"]: entry["metrics"]["fta"]["mean"] for entry in summary["leaderboard"]
             if entry["family"] == "all" and "fta" in entry["metrics"]}
    pairs = [row for row in summary["paired"] if row["metric"] == "fta"]
    assert len(pairs) == 3 and all(1 <= row["n"] <= len(rows) for row in pairs)
    for row in pairs:  # the same tasks scored on both sides: the paired mean is the difference of the means
        assert abs(row["mean_difference"] - (means[row["b"]] - means[row["a"]])) < 1e-9
    assert "paired: " in report.stdout
    assert "Paired differences" in (tmp_path / "report" / "report.md").read_text()
