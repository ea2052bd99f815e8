"""Vocabulary at a cutoff, the co-occurrence network, candidates and the baselines (checked against
networkx's link-prediction functions)."""

from __future__ import annotations

from datetime import date

import networkx as nx
import numpy as np

from foresci.emergence.build import emergence_set, shift_months, snapshot_at
from foresci.emergence.candidates import candidate_pairs
from foresci.emergence.concepts import ConceptPaper, mine_vocabulary
from foresci.emergence.config import EmergenceSettings, VocabularySettings, load_emergence_settings
from foresci.emergence.features import pair_features
from foresci.emergence.network import build_network, incidence

CUTOFF = date(2025, 3, 31)


def _paper(index: int, day: date, *keys: str) -> ConceptPaper:
    return ConceptPaper(paper_id=f"p{index}", announced=day, phrases={key: {key: 1} for key in keys})


EDGES = [("a", "b"), ("a", "c"), ("b", "c"), ("c", "d"), ("d", "e"), ("a", "f"), ("f", "e"), ("b", "f")]
PAPERS = [_paper(i, date(2025, 1 + i % 3, 1 + i), *edge) for i, edge in enumerate(EDGES)]
SETTINGS = EmergenceSettings(vocabulary=VocabularySettings(min_document_frequency=1, min_words=1))


def test_vocabulary_reads_only_papers_up_to_the_cutoff() -> None:
    late = [_paper(100 + i, date(2025, 4, 2), "later idea", "a") for i in range(5)]
    vocabulary = mine_vocabulary([*PAPERS, *late], CUTOFF, VocabularySettings(min_document_frequency=2,
                                                                              min_words=1))
    assert "later idea" not in vocabulary.keys
    assert vocabulary.keys[0] in {"a", "b", "c", "f"}  # used by three papers each up to the cutoff
    assert all(count >= 2 for count in vocabulary.document_frequency)
    assert "e" in vocabulary.keys and list(vocabulary.document_frequency) == sorted(
        vocabulary.document_frequency, reverse=True)


def test_vocabulary_size_and_subsumed_phrases() -> None:
    papers = [_paper(i, date(2025, 1, 2), "large language model", "language model", "graph")
              for i in range(3)] + [_paper(9, date(2025, 1, 3), "language model")]
    settings = VocabularySettings(min_document_frequency=1, min_words=1, vocabulary_size=2)
    vocabulary = mine_vocabulary(papers, CUTOFF, settings)
    assert vocabulary.keys == ("language model", "graph")  # 4 papers, then 3 (ties by key), size 2
    dropped = mine_vocabulary(papers[:3], CUTOFF, settings)
    assert "language model" not in dropped.keys  # only ever inside the longer concept


def test_baselines_match_networkx() -> None:
    vocabulary = mine_vocabulary(PAPERS, CUTOFF, SETTINGS.vocabulary)
    network = build_network(PAPERS, incidence(PAPERS, vocabulary), CUTOFF, date(2025, 1, 31))
    candidates = candidate_pairs(network, 1000, 0)
    graph = nx.Graph(EDGES)
    names = vocabulary.keys
    expected_pairs = {tuple(sorted(pair)) for pair in nx.non_edges(graph)}
    found = {tuple(sorted((names[i], names[j]))) for i, j in candidates.pairs}
    assert found == expected_pairs and candidates.total == len(expected_pairs)
    features = pair_features(network, candidates.pairs)
    ebunch = [(names[i], names[j]) for i, j in candidates.pairs]
    checks = {
        "preferential_attachment": nx.preferential_attachment(graph, ebunch),
        "jaccard": nx.jaccard_coefficient(graph, ebunch),
        "adamic_adar": nx.adamic_adar_index(graph, ebunch),
        "resource_allocation": nx.resource_allocation_index(graph, ebunch),
    }
    for name, triples in checks.items():
        assert np.allclose(features.baseline(name), [value for _, _, value in triples]), name
    common = [len(list(nx.common_neighbors(graph, u, v))) for u, v in ebunch]
    assert np.array_equal(features.baseline("common_neighbours"), common)
    assert network.frequency[names.index("a")] == 3 and network.recent_frequency.sum() > 0


def test_candidate_sample_is_seeded_and_uniform_over_the_candidates() -> None:
    vocabulary = mine_vocabulary(PAPERS, CUTOFF, SETTINGS.vocabulary)
    network = build_network(PAPERS, incidence(PAPERS, vocabulary), CUTOFF, date(2025, 1, 31))
    full = candidate_pairs(network, 1000, 0)
    first, again = candidate_pairs(network, 3, 5), candidate_pairs(network, 3, 5)
    assert np.array_equal(first.pairs, again.pairs) and first.sampled and first.total == full.total
    assert {tuple(pair) for pair in first.pairs} <= {tuple(pair) for pair in full.pairs}


def test_window_is_read_with_the_cutoff_vocabulary() -> None:
    window = [_paper(50, date(2025, 4, 10), "a", "e"), _paper(51, date(2025, 5, 1), "a", "e", "new"),
              _paper(52, date(2025, 5, 2), "b", "d"), _paper(53, date(2025, 8, 1), "c", "e")]
    target = emergence_set([*PAPERS, *window], CUTOFF, shift_months(CUTOFF, 3), SETTINGS)
    names = target.snapshot.vocabulary.keys
    assert "new" not in names
    by_pair = {tuple(sorted((names[i], names[j]))): count
               for (i, j), count in zip(target.snapshot.candidates.pairs, target.counts, strict=True)}
    assert by_pair[("a", "e")] == 2 and by_pair[("b", "d")] == 1
    assert by_pair[("c", "e")] == 0  # after the window end
    assert target.labels(2).sum() == 1 and target.window_papers == 3


def test_snapshot_ignores_papers_after_its_cutoff() -> None:
    later = [_paper(60, date(2025, 4, 1), "a", "e"), _paper(61, date(2025, 4, 2), "zzz", "b")]
    alone = snapshot_at(PAPERS, CUTOFF, 3, SETTINGS).digests()
    assert snapshot_at([*PAPERS, *later], CUTOFF, 3, SETTINGS).digests() == alone


def test_shift_months_keeps_month_ends() -> None:
    assert shift_months(date(2025, 9, 30), 3) == date(2025, 12, 31)
    assert shift_months(date(2025, 12, 31), -6) == date(2025, 6, 30)
    assert shift_months(date(2025, 1, 15), 1) == date(2025, 2, 15)


def test_declarative_settings_load() -> None:
    settings = load_emergence_settings()
    assert settings.targets.positive_min_papers == [1, 3] and settings.targets.window_months == [3, 6]


def test_excluded_words_keep_reporting_prose_out_of_the_vocabulary() -> None:
    papers = [_paper(i, date(2025, 1, 2), "finding highlight", "increasing attention", "self attention")
              for i in range(3)]
    settings = VocabularySettings(min_document_frequency=1, exclude_first_words=["increasing"],
                                  exclude_last_words=["highlight"])
    assert mine_vocabulary(papers, CUTOFF, settings).keys == ("self attention",)


def test_phrases_seldom_in_titles_and_listed_phrases_are_no_concepts() -> None:
    def titled(index: int, keys: tuple[str, ...], in_title: tuple[str, ...]) -> ConceptPaper:
        return ConceptPaper(paper_id=f"t{index}", announced=date(2025, 1, 2),
                            phrases={key: {key: 1} for key in keys}, title_phrases=frozenset(in_title))

    keys = ("future research", "reward model", "f1 score", "graph network")
    # "reward model" is in 2 of 20 titles (10 %), "graph network" in 1 of 20 (5 %), "future research" in none
    papers = [titled(i, keys, ("reward model",) if i < 2 else ("graph network",) if i == 2 else ())
              for i in range(20)]
    settings = VocabularySettings(min_document_frequency=1, min_title_share=0.05)
    assert set(mine_vocabulary(papers, CUTOFF, settings).keys) == {"reward model", "graph network"}
    stricter = settings.model_copy(update={"min_title_share": 0.1, "exclude_phrases": ["reward model"]})
    assert mine_vocabulary(papers, CUTOFF, stricter).keys == ()
    # a title phrase of a paper after the cutoff counts for nothing
    late = [titled(100 + i, keys, keys) for i in range(20)]
    for paper in late:
        object.__setattr__(paper, "announced", date(2025, 5, 1))
    assert set(mine_vocabulary([*papers, *late], CUTOFF, settings).keys) == {"reward model", "graph network"}


def test_declarative_vocabulary_filters_generic_phrases() -> None:
    vocabulary = load_emergence_settings().vocabulary
    assert vocabulary.min_title_share > 0
    from foresci.emergence.concepts import is_generic

    assert is_generic("ground truth", vocabulary) and is_generic("empirical analysis", vocabulary)
    assert not is_generic("reward model", vocabulary)
