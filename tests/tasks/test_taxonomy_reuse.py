"""`tasks build` reuses T(domain, cutoff) induced for the same KB, cutoff and settings."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

import foresci.taxonomy.build
from foresci.core.settings import Settings
from foresci.sim.world import WorldConfig, generate_world, load_ground_truth
from foresci.tasks.domain_inputs import snapshot_for
from tests.tasks.simkb import SimKB


def test_taxonomy_is_induced_once_per_fingerprint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "world"
    generate_world(WorldConfig(seed=7, n_domains=1, directions_per_domain=4, months=10, papers_per_month=40.0,
                               noise=0.0, difficulty=0.3), root)
    truth = load_ground_truth(root)
    kb, domain, cutoff = SimKB(root, truth), truth.domains[0].slug, truth.cutoff
    settings = Settings(cache_dir=tmp_path / "cache")
    first = snapshot_for(kb, domain, cutoff, settings)
    saved = list((tmp_path / "cache" / "taxonomies").glob("*/manifest.json"))
    assert len(saved) == 1 and not list((tmp_path / "cache" / "taxonomies").glob(".*"))

    def induce(*args: object, **kwargs: object) -> None:
        raise AssertionError("induced again")

    monkeypatch.setattr(foresci.taxonomy.build, "build_taxonomy", induce)
    again = snapshot_for(kb, domain, cutoff, settings)
    assert [(node.node_id, node.label, node.paper_ids) for node in again.nodes] == [
        (node.node_id, node.label, node.paper_ids) for node in first.nodes
    ]
    changed = settings.model_copy(update={"taxonomy": settings.taxonomy.model_copy(update={"seed": 14})})
    with pytest.raises(AssertionError, match="induced again"):
        snapshot_for(kb, domain, cutoff, changed)  # other settings: a different taxonomy
    with pytest.raises(AssertionError, match="induced again"):
        snapshot_for(kb, domain, cutoff - timedelta(days=31), settings)  # another cutoff
    with pytest.raises(AssertionError, match="induced again"):
        snapshot_for(SimKB(root, truth, until=cutoff), domain, cutoff, settings)  # another KB fingerprint
