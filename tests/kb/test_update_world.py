"""On a generated world: a KB grown by daily updates builds the release a KB built from scratch builds."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

import foresci.kb.segments
from foresci.core.settings import Settings
from foresci.kb.build import build_kb, update_kb
from foresci.kb.retrieve import KBView
from foresci.kb.store import KnowledgeBase


def _release_files(folder: Path) -> dict[str, bytes]:
    """Every file of a release; of the manifest, all but its creation time, the KB's folder and so the
    release's own fingerprint (the KB's fingerprint stays)."""
    import json

    files = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        data = path.read_bytes()
        if path.name == "manifest.json":
            manifest = json.loads(data)
            manifest.pop("created_at")
            manifest.pop("fingerprint")
            manifest["inputs"].pop("kb")
            data = json.dumps(manifest, sort_keys=True).encode()
        files[str(path.relative_to(folder))] = data
    return files


@pytest.mark.slow
def test_daily_updates_build_the_same_release_and_searches_as_a_scratch_kb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from foresci.sim.world import WorldConfig, generate_world, load_ground_truth
    from foresci.tasks.build import build_release

    config = WorldConfig(seed=3, n_domains=1, directions_per_domain=4, months=12, papers_per_month=45.0)
    generated = generate_world(config, tmp_path / "world")
    truth = load_ground_truth(generated.root)
    domains = [domain.slug for domain in truth.domains]
    runtime = {"graph_above": 100, "approximate_above": 100_000}
    settings = Settings(cache_dir=tmp_path / "cache", kb={"domains": domains, "embed_field": "title"},
                        runtime=runtime)
    days = sorted(Path(generated.corpus).glob("*.jsonl"))
    monkeypatch.setattr(foresci.kb.segments, "MERGE_FANIN", 3)
    build_kb(days[:-12], tmp_path / "grown", settings, domains_dirs=[generated.domains])
    batches = [[day] for day in days[-12:-4]] + [days[-4:-1], [days[-1]]]
    modes = {update_kb(tmp_path / "grown", batch, settings).mode for batch in batches}
    assert modes == {"append"}
    build_kb([*days[:-12], *days[-12:]], tmp_path / "scratch", settings, domains_dirs=[generated.domains])

    grown = KnowledgeBase.open(tmp_path / "grown", settings)
    scratch = KnowledgeBase.open(tmp_path / "scratch", settings)
    assert len(grown.segments) > 1 and grown.size == scratch.size and grown.size > 100
    cutoffs = [truth.cutoff, date.fromordinal(int(grown.ordinals[-40])), grown.max_date]
    titles = [paper.title for paper in scratch.papers()[::37]]
    for cutoff in cutoffs:
        grown_view, scratch_view = KBView(grown, cutoff), KBView(scratch, cutoff)
        for title in titles:
            assert [(hit.paper.paper_id, hit.score) for hit in grown_view.search(title, k=10)] == [
                (hit.paper.paper_id, hit.score) for hit in scratch_view.search(title, k=10)
            ]
    task_settings = settings.model_copy(deep=True)
    task_settings.tasks.enforce_gates = False
    releases = {}
    for name, kb in (("grown", grown), ("scratch", scratch)):
        releases[name] = build_release(kb, tmp_path / f"release-{name}", truth.cutoff, domains=domains,
                                       settings=task_settings, per_family=10,
                                       taxonomy_dir=tmp_path / f"taxonomy-{name}")
    grown_files, scratch_files = _release_files(releases["grown"]), _release_files(releases["scratch"])
    tasks = grown_files["tasks.jsonl"].count(b"\n")
    assert tasks >= 3 and "hidden.jsonl" in grown_files, (tasks, sorted(grown_files))
    differing = {name for name in grown_files.keys() | scratch_files.keys()
                 if grown_files.get(name) != scratch_files.get(name)}
    assert not differing, sorted(differing)
