"""Concept papers read the phrases every family shares (extracted once per text) and give exactly what a
separate extraction at the concept word limits gives."""

from __future__ import annotations

import random
from datetime import date

from foresci.emergence.concepts import concept_paper, concept_papers
from foresci.emergence.config import load_emergence_settings
from foresci.kb.models import Paper
from foresci.taxonomy.phrases import WIDEST_ROWS, _document_phrase_rows, _extracted_rows
from tests.taxonomy.test_phrase_extraction_paths import _STRADDLING, random_text


def _papers(count: int, seed: str) -> list[Paper]:
    rng = random.Random(seed)
    papers = [Paper(paper_id=f"2501.{number:05d}", title=random_text(rng)[:120], abstract=random_text(rng),
                    announced=date(2025, 1, 1 + number % 28)) for number in range(count)]
    papers.append(Paper(paper_id="2501.99999", title="Large vision language model training",
                        abstract=_STRADDLING, announced=date(2025, 1, 2)))
    return papers


def test_concept_phrases_equal_a_separate_extraction() -> None:
    settings = load_emergence_settings().vocabulary
    limits = (settings.min_words, settings.max_words)
    assert limits != WIDEST_ROWS  # the concept limits are cut from the shared rows
    papers = _papers(200, "concepts")
    for paper in papers:
        _document_phrase_rows(paper.text, *WIDEST_ROWS)  # what naming / the bottleneck builder read first
    for paper, found in zip(papers, concept_papers(papers, settings), strict=True):
        direct = _extracted_rows(paper.text, *limits)
        assert list(found.phrases.items()) == [(key, dict(forms)) for key, forms in direct], paper.paper_id
        assert found.title_phrases == frozenset(key for key, _ in _extracted_rows(paper.title, *limits))
        assert (found.paper_id, found.announced) == (paper.paper_id, paper.announced)
        assert found.title == paper.title


def test_a_paper_is_read_once_across_windows() -> None:
    settings = load_emergence_settings().vocabulary
    papers = _papers(20, "windows")
    first = concept_papers(papers, settings)
    again = concept_papers(papers[:10], settings)  # an earlier window's prefix
    assert all(one is other for one, other in zip(first, again, strict=False))
    edited = papers[0].model_copy(update={"abstract": papers[0].abstract + " Token pruning of web agents."})
    changed = concept_paper(edited, settings)
    assert changed is not first[0]
    assert "web agent" in changed.phrases or "token pruning" in changed.phrases
    later = concept_paper(papers[0].model_copy(update={"announced": date(2025, 3, 1)}), settings)
    assert later.announced == date(2025, 3, 1) and later.phrases == first[0].phrases
