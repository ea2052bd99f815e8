"""`tasks build --forecast N`: a release carries forecast questions frozen as a package would be at its
cutoff, with resolutions in the hidden forecast_hidden.jsonl that agree with resolving that package."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from foresci.core.artifacts import read_manifest
from foresci.core.io import read_models, write_jsonl
from foresci.core.settings import Settings
from foresci.sim.world import WorldConfig, generate_world, load_ground_truth
from foresci.tasks.build import build_release
from foresci.tasks.domain_inputs import snapshot_for
from foresci.tasks.forecast import load_package, make_package, resolve_package
from foresci.tasks.hidden import Resolution
from foresci.tasks.release import FORECAST_FILE, FORECAST_HIDDEN_FILE, load_release
from foresci.tasks.validate import validate_release
from tests.tasks.simkb import SimKB


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("release-forecasts")
    generate_world(WorldConfig(seed=7, n_domains=1, directions_per_domain=4, months=12, papers_per_month=40.0,
                               noise=0.0, difficulty=0.3), root / "world")
    truth = load_ground_truth(root / "world")
    kb, domain, cutoff = SimKB(root / "world", truth), truth.domains[0].slug, truth.cutoff
    settings = Settings(cache_dir=root / "cache")
    settings.tasks.enforce_gates = False
    settings.tasks.min_support = 5
    snapshot = snapshot_for(kb, domain, cutoff, settings)
    release = build_release(kb, root / "release", cutoff, windows=("3m", "6m"), domains=[domain],
                            settings=settings, per_family=2, snapshots={domain: snapshot},
                            forecast_questions=8)
    return {"root": root, "truth": truth, "kb": kb, "domain": domain, "cutoff": cutoff, "settings": settings,
            "snapshot": snapshot, "release": release}


def test_release_carries_questions_and_hidden_resolutions(built: dict[str, Any]) -> None:
    release: Path = built["release"]
    loaded = load_release(release)
    questions = loaded.questions
    cycle = [question for question in questions if question.params["family"] != "concept_emergence"]
    assert len(cycle) == 8 and {question.kind for question in cycle} == {"numeric", "binary"}
    assert questions[:8] == cycle  # concept emergence adds its binary questions after the asked 8
    assert {(question.window_end - question.window_start).days // 28 for question in questions} == {3, 6}
    resolutions = {row.question_id: row for row in read_models(release / FORECAST_HIDDEN_FILE, Resolution)}
    assert set(resolutions) == {question.question_id for question in questions}
    manifest = read_manifest(release)
    assert {FORECAST_FILE, FORECAST_HIDDEN_FILE} <= set(manifest.hashes)
    assert manifest.counts["forecast_questions"]["questions"] == len(questions)
    assert validate_release(release) == []
    for question in questions:
        outcome = resolutions[question.question_id].outcome
        assert outcome in (0.0, 1.0) if question.kind == "binary" else outcome >= 0


def test_release_questions_are_a_package_frozen_at_the_cutoff(built: dict[str, Any]) -> None:
    """The same questions come from a KB that ends at the cutoff (nothing later shaped them), and
    resolving that package later gives the release's hidden outcomes."""
    root, cutoff, release = built["root"], built["cutoff"], built["release"]
    truncated = SimKB(root / "world", built["truth"], until=cutoff)
    package = make_package(truncated, root / "pkg", cutoff, window="3m", n=4, settings=built["settings"],
                           snapshots={built["domain"]: built["snapshot"]})
    frozen, _ = load_package(package)
    same_window = [question.question_id for question in load_release(release).questions
                   if question.window_end == frozen[0].window_end
                   and question.params["family"] != "concept_emergence"]  # packages hold the cycle's only
    assert [question.question_id for question in frozen] == same_window
    resolve_package(package, built["kb"])
    later = {row.question_id: row.outcome for row in read_models(package / "resolutions.jsonl", Resolution)}
    hidden = {row.question_id: row.outcome for row in read_models(release / FORECAST_HIDDEN_FILE, Resolution)}
    assert later == {question_id: hidden[question_id] for question_id in later}


def test_validate_flags_a_question_without_resolution(built: dict[str, Any], tmp_path: Path) -> None:
    release = load_release(built["release"])
    copy = tmp_path / "release"
    copy.mkdir()
    for file in Path(release.path).iterdir():
        (copy / file.name).write_bytes(file.read_bytes())
    write_jsonl(copy / FORECAST_HIDDEN_FILE, read_models(copy / FORECAST_HIDDEN_FILE, Resolution)[1:])
    problems = validate_release(copy)
    assert f"forecast question {release.questions[0].question_id}: no resolution in {FORECAST_HIDDEN_FILE}" \
        in problems
