"""A small generated world through the real pipeline (world -> KB -> taxonomy -> release), for the
real-model test stage and ``benchmarks/llm_local.py``: tasks the code under test did not shape."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from foresci.core.settings import Settings

SMALL_WORLD = {"n_domains": 1, "directions_per_domain": 6, "months": 18, "papers_per_month": 60.0}


@dataclass
class SmallWorld:
    """Where the pieces of a built small world are."""

    root: Path
    kb_dir: Path
    release_dir: Path
    settings: Settings

    def view_factory(self) -> Any:
        """A cutoff -> KBView factory over the world's KB."""
        from foresci.kb.retrieve import KBView
        from foresci.kb.store import KnowledgeBase

        kb = KnowledgeBase.open(self.kb_dir, self.settings)

        def factory(cutoff: date) -> Any:
            return KBView(kb, cutoff)

        return factory


def build_small_world(root: Path, settings: Settings, per_family: int = 1, seed: int = 5,
                      **world: Any) -> SmallWorld:
    """Generate a world, build its KB, taxonomy at the cutoff and a release of ``per_family`` tasks per
    family (hidden targets included) under ``root``."""
    from foresci.kb.build import build_kb
    from foresci.kb.store import KnowledgeBase
    from foresci.sim.world import WorldConfig, generate_world, load_ground_truth
    from foresci.tasks.build import build_release
    from foresci.taxonomy.build import build_taxonomy

    generated = generate_world(WorldConfig(**{**SMALL_WORLD, "seed": seed, **world}), root / "world")
    truth = load_ground_truth(generated.root)
    domains = [domain.slug for domain in truth.domains]
    settings = settings.model_copy(update={"kb": settings.kb.model_copy(update={"domains": domains})})
    build_kb([generated.corpus], root / "kb", settings, domains_dirs=[generated.domains])
    kb = KnowledgeBase.open(root / "kb", settings)
    snapshots = {domain: build_taxonomy(kb, domain, truth.cutoff, settings).final for domain in domains}
    release = build_release(kb, root / "release", truth.cutoff, domains=domains, settings=settings,
                            per_family=per_family, snapshots=snapshots)
    return SmallWorld(root=root, kb_dir=root / "kb", release_dir=Path(release), settings=settings)
