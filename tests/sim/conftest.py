"""Fixtures of the sim tests: a few small worlds, each generated once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from foresci.sim.world import WorldConfig, generate_world

SMALL = {"n_domains": 2, "directions_per_domain": 6, "months": 18, "papers_per_month": 110.0}


def _world(tmp_path_factory: pytest.TempPathFactory, name: str, **knobs: object) -> Path:
    config = WorldConfig(**{**SMALL, **knobs})  # type: ignore[arg-type]
    return generate_world(config, tmp_path_factory.mktemp(name)).root


@pytest.fixture(scope="session")
def clean_world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Noise-free world at the default difficulty."""
    return _world(tmp_path_factory, "clean", seed=11, noise=0.0, difficulty=0.6)


@pytest.fixture(scope="session")
def noisy_world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A world with heavy observation noise (repeats, delays, stringified lists, mislabels, drops)."""
    return _world(tmp_path_factory, "noisy", seed=12, noise=0.8, gzip=True)


@pytest.fixture(scope="session")
def hard_world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Highest difficulty: nothing planted is visible before the cutoff."""
    return _world(tmp_path_factory, "hard", seed=13, noise=0.0, difficulty=1.0)


@pytest.fixture(scope="session")
def easy_world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Lowest difficulty: planted trends already under way before the cutoff."""
    return _world(tmp_path_factory, "easy", seed=14, noise=0.0, difficulty=0.0)
