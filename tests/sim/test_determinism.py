"""Same seed, same bytes; another seed, another world; counterfactuals keep the vocabulary."""

from __future__ import annotations

from pathlib import Path

import pytest

from foresci.sim.world import WorldConfig, generate_world, load_ground_truth
from tests.sim.conftest import SMALL


def _files(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.name != "manifest.json"
    }


@pytest.mark.parametrize("compress", [False, True])
def test_same_seed_gives_byte_identical_world(tmp_path: Path, compress: bool) -> None:
    config = WorldConfig(seed=5, noise=0.5, gzip=compress, **SMALL)  # type: ignore[arg-type]
    first = _files(generate_world(config, tmp_path / "a").root)
    second = _files(generate_world(config, tmp_path / "b").root)
    assert any(name.startswith("corpus/") for name in first)
    assert "ground_truth.json" in first
    assert first == second


def test_regenerating_into_the_same_folder_replaces_the_corpus(tmp_path: Path) -> None:
    generate_world(WorldConfig(**{**SMALL, "months": 24, "seed": 5}), tmp_path)  # type: ignore[arg-type]
    paths = generate_world(WorldConfig(seed=6, **SMALL), tmp_path)  # type: ignore[arg-type]
    assert sorted(paths.corpus.iterdir()) == sorted(paths.corpus_files)
    truth = load_ground_truth(paths.root)
    assert sorted(path.stem for path in paths.domains.iterdir()) == sorted(
        domain.slug for domain in truth.domains
    )


def test_another_seed_gives_another_world(tmp_path: Path) -> None:
    first = generate_world(WorldConfig(seed=5, **SMALL), tmp_path / "a")  # type: ignore[arg-type]
    second = generate_world(WorldConfig(seed=6, **SMALL), tmp_path / "b")  # type: ignore[arg-type]
    assert _files(first.root)["ground_truth.json"] != _files(second.root)["ground_truth.json"]
    first_names = {direction.name for direction in load_ground_truth(first.root).directions}
    second_names = {direction.name for direction in load_ground_truth(second.root).directions}
    assert not first_names & second_names


def test_reverse_counterfactual_keeps_vocabulary_and_swaps_growth(tmp_path: Path) -> None:
    base = load_ground_truth(generate_world(WorldConfig(seed=8, **SMALL), tmp_path / "base").root)  # type: ignore[arg-type]
    shifted = load_ground_truth(
        generate_world(WorldConfig(seed=8, counterfactual="reverse", **SMALL), tmp_path / "cf").root
    )  # type: ignore[arg-type]
    swap = {"accelerating": "cooling", "cooling": "accelerating"}
    for original, reversed_direction in zip(base.directions, shifted.directions, strict=True):
        assert reversed_direction.vocabulary == original.vocabulary
        assert [chain.bottleneck for chain in reversed_direction.bottlenecks] == [
            chain.bottleneck for chain in original.bottlenecks
        ]
        assert reversed_direction.trajectory == swap.get(original.trajectory, original.trajectory)
        if original.trajectory == "accelerating":
            assert reversed_direction.planted_factor < 1 < original.planted_factor


def test_null_counterfactual_plants_no_trend(tmp_path: Path) -> None:
    truth = load_ground_truth(
        generate_world(WorldConfig(seed=8, counterfactual="null", **SMALL), tmp_path).root
    )  # type: ignore[arg-type]
    assert {direction.trajectory for direction in truth.directions} == {"steady"}
    assert all(direction.planted_factor == 1.0 for direction in truth.directions)
