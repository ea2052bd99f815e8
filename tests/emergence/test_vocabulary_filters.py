"""The vocabulary's generic-phrase filter (neighbour information) and near-synonym merging, and that both
read only papers up to the cutoff."""

from __future__ import annotations

from datetime import date

import numpy as np
import scipy.sparse as sp

from foresci.emergence.build import snapshot_at
from foresci.emergence.concepts import ConceptPaper, mine_vocabulary
from foresci.emergence.config import EmergenceSettings, VocabularySettings
from foresci.emergence.genericity import neighbour_information
from foresci.emergence.network import incidence
from foresci.emergence.synonyms import canonical_key, capital_words, learn_acronyms

CUTOFF = date(2025, 3, 31)
EARLY = date(2025, 2, 1)
LATE = date(2025, 5, 1)


def _paper(index: int, day: date, phrases: dict[str, str]) -> ConceptPaper:
    """A paper using each key once, written as the given surface form (also in its title)."""
    return ConceptPaper(paper_id=f"p{index}", announced=day,
                        phrases={key: {surface: 1} for key, surface in phrases.items()},
                        title_phrases=frozenset(phrases))


def _topical_corpus(generic: str | None) -> list[ConceptPaper]:
    """Three topics of two concepts each, each paper on one topic; ``generic`` in every paper."""
    topics = [("diffusion model", "image generation"), ("reward model", "preference optimization"),
              ("knowledge graph", "entity linking")]
    papers = []
    for index in range(60):
        first, second = topics[index % 3]
        phrases = {first: first, second: second}
        if generic:
            phrases[generic] = generic
        papers.append(_paper(index, EARLY, phrases))
    return papers


def test_a_phrase_used_alongside_every_topic_carries_no_neighbour_information() -> None:
    papers = _topical_corpus("natural language")
    keys = sorted({key for paper in papers for key in paper.phrases})
    columns = {key: column for column, key in enumerate(keys)}
    rows = [[columns[key] for key in sorted(paper.phrases)] for paper in papers]
    matrix = sp.csr_matrix((np.ones(sum(map(len, rows))), [c for row in rows for c in row],
                            np.cumsum([0, *map(len, rows)])), shape=(len(rows), len(keys)))
    information = dict(zip(keys, neighbour_information(matrix), strict=True))
    assert information["natural language"] < 0.05
    assert min(value for key, value in information.items() if key != "natural language") > 0.5


def test_the_generic_filter_drops_the_spread_phrase_and_keeps_the_topics() -> None:
    papers = _topical_corpus("natural language")
    settings = VocabularySettings(min_document_frequency=2, min_neighbour_information=0.2)
    kept = set(mine_vocabulary(papers, CUTOFF, settings).keys)
    assert "natural language" not in kept
    assert {"diffusion model", "reward model", "knowledge graph", "entity linking"} <= kept
    off = settings.model_copy(update={"min_neighbour_information": 0.0})
    assert "natural language" in mine_vocabulary(papers, CUTOFF, off).keys


def test_acronyms_are_learned_from_capitals_and_expand_to_the_most_used_phrase() -> None:
    frequency = {"large language model": 40, "large latent model": 3, "llm reasoning": 9,
                 "vlm agent": 5, "visual language model": 2, "vision language model": 6, "vision loss map": 4}
    capitals = capital_words(["LLMs", "LLM reasoning", "vision loss map", "VLM agents"])
    assert capitals == {"llm", "vlm"}
    acronyms = learn_acronyms(frequency, capitals, min_papers=3)
    assert acronyms["llm"] == "large language model"
    # more used than "vision loss map"; "visual language model" is under 3 papers
    assert acronyms["vlm"] == "vision language model"
    assert "vlm" not in learn_acronyms(frequency, {"llm"}, min_papers=3)  # never written in capitals
    heads = ["model", "system", "method"]
    assert canonical_key("llm reasoning", acronyms, heads) == canonical_key("large language model reasoning",
                                                                            acronyms, heads)
    assert canonical_key("text to image model", acronyms, heads) == canonical_key("text to image system",
                                                                                  acronyms, heads)
    assert canonical_key("image model", acronyms, heads) != canonical_key("video model", acronyms, heads)
    assert canonical_key("system", acronyms, heads) == "system"  # a head alone is kept as it is


def _synonym_corpus() -> list[ConceptPaper]:
    papers = []
    for index in range(12):
        reasoning = ("LLM reasoning", "llm reasoning") if index % 2 else \
            ("large language model reasoning", "large language model reasoning")
        text_to_image = ("text-to-image models", "text to image model") if index % 3 else \
            ("text-to-image systems", "text to image system")
        papers.append(_paper(index, EARLY, {reasoning[1]: reasoning[0], text_to_image[1]: text_to_image[0],
                                            "large language model": "LLMs", "reward model": "reward model"}))
    return papers


def test_a_synonym_pair_merges_into_one_concept_whose_papers_are_the_union() -> None:
    papers = _synonym_corpus()
    settings = VocabularySettings(min_document_frequency=2, drop_subsumed=False, merge_synonyms=True,
                                  synonym_heads=["model", "system"])
    vocabulary = mine_vocabulary(papers, CUTOFF, settings)
    frequency = dict(zip(vocabulary.keys, vocabulary.document_frequency, strict=True))
    assert frequency["text to image model"] == 12 and "text to image system" not in frequency
    reasoning = [key for key in vocabulary.keys if key.endswith("reasoning")]
    assert len(reasoning) == 1 and frequency[reasoning[0]] == 12
    index = vocabulary.index()
    assert index["llm reasoning"] == index["large language model reasoning"]
    # every paper uses the merged concepts: the pair of two names is never an unconnected candidate
    matrix = incidence(papers, vocabulary).toarray()
    assert (matrix[:, index["text to image system"]] == 1).all()
    plain = mine_vocabulary(papers, CUTOFF, settings.model_copy(update={"merge_synonyms": False}))
    assert {"text to image model", "text to image system", "llm reasoning"} <= set(plain.keys)


def test_filters_read_only_papers_up_to_the_cutoff() -> None:
    """Later papers that would merge other synonyms or make a phrase generic change nothing at t."""
    settings = EmergenceSettings(vocabulary=VocabularySettings(
        min_document_frequency=2, drop_subsumed=False, merge_synonyms=True, synonym_heads=["model", "system"],
        min_neighbour_information=0.2))
    early = [*_synonym_corpus(), *_topical_corpus(None)]
    late = [_paper(500 + index, LATE, {"reward model": "RM", "rm training": "RM training",
                                       "diffusion model": "diffusion model", "text to image system": "T2I",
                                       "knowledge graph": "knowledge graph", "entity linking": "EL"})
            for index in range(40)]
    alone = snapshot_at(early, CUTOFF, 3, settings)
    assert snapshot_at([*early, *late], CUTOFF, 3, settings).digests() == alone.digests()
    assert alone.vocabulary.aliases and "reward model" in alone.vocabulary.keys
