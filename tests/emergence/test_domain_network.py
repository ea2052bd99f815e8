"""One domain network at a cutoff (foresci/emergence/domain_network.py): the network baselines' measures
and the learned link predictor read the same cached computation, kept per what changes it."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace

import pytest

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


def test_the_network_baselines_read_the_shared_network_which_is_the_snapshots(papers: list[Paper]) -> None:
    """The learned model's side: tests/emergence/test_methods.py (``learned_links``'s model holds this very
    network object)."""
    from foresci.agents.baselines.pair_network import _network
    from foresci.emergence.domain_network import cutoff_network, domain_network

    view = _view(papers, "one-network")
    task = SimpleNamespace(domain="synthetic", cutoff=CONFIG.cutoff, horizon="3m")
    columns, network = _network(view, task)  # type: ignore[arg-type]
    shared = domain_network(view, "synthetic", CONFIG.cutoff, 3)
    assert shared.network is network  # one computation, not two equal ones
    assert columns == {name: column for column, name in enumerate(shared.vocabulary.names)}
    # what each caller computed before, in its own paper order (by date then id; by date only, as
    # snapshot_at, which builds on cutoff_network): equal
    by_id = sorted(shared.papers, key=lambda paper: (paper.announced, paper.paper_id))
    assert [paper.paper_id for paper in by_id] != [paper.paper_id for paper in shared.papers][::-1]
    alone = cutoff_network(by_id[::-1], CONFIG.cutoff, 3, SETTINGS)
    assert alone.network.digest() == network.digest() and alone.vocabulary == shared.vocabulary


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
