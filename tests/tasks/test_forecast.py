"""Prospective package round trip: KB truncated at the cutoff -> package -> resolve against the full KB."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from foresci.core.errors import UserError
from foresci.core.io import iter_jsonl
from foresci.core.settings import Settings
from foresci.tasks.forecast import WindowNotClosedError, load_package, make_package, resolve_package
from tests.tasks.toy import CUTOFF, ToyKB


@pytest.fixture()
def package(tmp_path: Path) -> Path:
    truncated = ToyKB(until=CUTOFF)
    settings = Settings()
    settings.tasks.min_support = 5
    return make_package(truncated, tmp_path / "pkg", CUTOFF, window="3m", n=8, settings=settings,
                        snapshots={"toy": truncated.snapshot})


def test_package_is_balanced_and_frozen(package: Path) -> None:
    questions, snapshots = load_package(package)
    assert len(questions) == 8 and set(snapshots) == {"toy"}
    families = [question.params["family"] for question in questions]
    assert {families.count(family) for family in set(families)} == {2}
    assert sorted(question.kind for question in questions) == ["binary"] * 4 + ["numeric"] * 4
    assert all(question.window_start > question.cutoff for question in questions)
    assert all(question.baseline is not None for question in questions)
    manifest = json.loads((package / "manifest.json").read_text())
    assert manifest["counts"]["content_hash"] and manifest["counts"]["created_at"]


def test_resolve_refuses_an_open_window(package: Path) -> None:
    with pytest.raises(WindowNotClosedError, match="window ends on 2026-03-31"):
        resolve_package(package, ToyKB(until=CUTOFF))


def test_resolve_against_the_full_kb(package: Path) -> None:
    written = resolve_package(package, ToyKB())
    outcomes = {row["question_id"]: row for row in iter_jsonl(written)}
    questions, _ = load_package(package)
    assert set(outcomes) == {question.question_id for question in questions}
    for question in questions:
        outcome = outcomes[question.question_id]["outcome"]
        if question.kind == "binary":
            assert outcome in (0.0, 1.0)
        if question.params["family"] == "direction_forecasting":
            assert outcome == float(question.node_id in {"n_vorp", "n_dask_b", "n_dask_c", "n_dask"})
        if question.params["family"] == "strategic_planning":
            assert outcome > 0


def test_tampered_package_is_refused(package: Path) -> None:
    path = package / "forecast.jsonl"
    path.write_text(path.read_text().replace("papers", "paper", 1))
    with pytest.raises(UserError, match="hash mismatch"):
        resolve_package(package, ToyKB())
