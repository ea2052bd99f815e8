"""One domain network at a cutoff (foresci/emergence/domain_network.py): the network baselines' measures
and the learned link predictor read the same cached computation, kept per what changes it."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace

import pytest

from foresci.emergence.build import snapshot_at
from foresci.emergence.concepts import concept_papers
from foresci.emergence.config import load_emergence_settings
from foresci.kb.models import Paper
from foresci.sim.emergence import generate_emergence_world
from tests.emergence.world import CONFIG, CutoffView

SETTINGS = load_emergence_settings()


@pytest.fixture(scope="module")
def papers() -> list[Paper]:
    return list(generate_emergence_world(CONFIG).papers)


def _view(papers: list[Paper], path: str, fingerprint: str = "f") -> CutoffView:
    return CutoffView(papers, CONFIG.cutoff, SimpleNamespace(path=path, fingerprint=fingerprint))


def test_the_network_baselines_and_the_learned_model_read_one_network(papers: list[Paper]) -> None:
    from foresci.agents.baselines.pair_network import _network
    from foresci.emergence.pair_model import fit_domain_model

    view = _view(papers, "one-network")
    task = SimpleNamespace(domain="synthetic", cutoff=CONFIG.cutoff, horizon="3m")
    columns, network = _network(view, task)  # type: ignore[arg-type]
    model = fit_domain_model(view, "synthetic", CONFIG.cutoff, 3)
    assert model.snapshot.network is network  # one computation, not two equal ones
    assert columns == {name: column for column, name in enumerate(model.snapshot.vocabulary.names)}
    # what each caller computed before, in its own paper order (by date then id; by date only): equal
    shown = [paper for paper in papers if paper.announced <= CONFIG.cutoff]
    by_id = sorted(shown, key=lambda paper: (paper.announced, paper.paper_id))
    alone = snapshot_at(concept_papers(by_id[::-1], SETTINGS.vocabulary), CONFIG.cutoff, 3, SETTINGS)
    assert alone.network.digest() == network.digest() and alone.vocabulary == model.snapshot.vocabulary


def test_the_cached_network_is_keyed_on_what_changes_it(papers: list[Paper]) -> None:
    from foresci.emergence.domain_network import domain_network

    view = _view(papers, "keyed")
    first = domain_network(view, "synthetic", CONFIG.cutoff, 3, SETTINGS)
    assert domain_network(_view(papers, "keyed"), "synthetic", CONFIG.cutoff, 3, SETTINGS) is first
    earlier = CONFIG.cutoff - timedelta(days=40)
    fewer = SETTINGS.model_copy(update={"vocabulary": SETTINGS.vocabulary.model_copy(
        update={"vocabulary_size": 50})})
    changed = {
        "cutoff": domain_network(view, "synthetic", earlier, 3, SETTINGS),
        "recent span": domain_network(view, "synthetic", CONFIG.cutoff, 6, SETTINGS),
        "domain": domain_network(view, "other", CONFIG.cutoff, 3, SETTINGS),
        "settings": domain_network(view, "synthetic", CONFIG.cutoff, 3, fewer),
        "kb": domain_network(_view(papers[: len(papers) // 2], "keyed", "g"), "synthetic", CONFIG.cutoff, 3,
                             SETTINGS),
    }
    for what, found in changed.items():
        assert found is not first, what
    assert changed["cutoff"].network.papers < first.network.papers
    assert (changed["recent span"].network.recent_frequency.sum() > first.network.recent_frequency.sum())
    assert len(changed["settings"].vocabulary) == 50 < len(first.vocabulary)
    assert changed["kb"].network.papers < first.network.papers
    # a view without a KB path is known by itself: another such view over other papers is not served it
    bare = [CutoffView(papers, CONFIG.cutoff, None),
            CutoffView(papers[: len(papers) // 2], CONFIG.cutoff, None)]
    counts = [domain_network(item, "synthetic", CONFIG.cutoff, 3, SETTINGS).network.papers for item in bare]
    assert counts[1] < counts[0] == first.network.papers
