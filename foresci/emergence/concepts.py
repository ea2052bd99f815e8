"""A paper's concept phrases and the concept vocabulary fixed at a cutoff.

A paper's phrases are the noun phrases of its title and abstract (:func:`foresci.taxonomy.phrases.
document_phrases`, compared by key); they depend on the paper's own text only, so a paper before the cutoff
and a paper in the window are read the same way. The vocabulary at ``t`` is chosen from the phrases of
papers announced on or before ``t`` alone: a window paper's concepts are its phrases that are in it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from foresci.emergence.config import VocabularySettings
from foresci.kb.models import Paper
from foresci.taxonomy.phrases import document_phrase_rows


@dataclass(frozen=True)
class ConceptPaper:
    """One paper as concept emergence reads it: its id, announcement date and phrase surface counts."""

    paper_id: str
    announced: date
    phrases: Mapping[str, Mapping[str, int]]  # phrase key -> surface form -> occurrences
    title: str = ""
    title_phrases: frozenset[str] = frozenset()  # keys of the phrases of the title alone


def concept_paper(paper: Paper, settings: VocabularySettings) -> ConceptPaper:
    """The phrases of ``paper``'s title and abstract (generic phrases dropped), and which are in its title.

    Read from the text's shared phrase rows (:func:`foresci.taxonomy.phrases.document_phrase_rows`: the
    rows taxonomy naming and the bottleneck builder read, cut to the concept word limits), and remembered
    for the paper's id, date and text (:data:`_KEPT_PAPERS`): the windows of a release and the earlier
    cutoffs of its forecast questions read the same papers again."""
    limits = (settings.min_words, settings.max_words)
    remembered = (paper.paper_id, paper.announced, paper.title, paper.abstract, *limits)
    found = _CONCEPT_PAPERS.get(remembered)
    if found is None:
        rows = document_phrase_rows(paper.text, *limits)
        in_title = frozenset(key for key, _ in document_phrase_rows(paper.title, *limits))
        found = ConceptPaper(paper_id=paper.paper_id, announced=paper.announced,
                             phrases={key: dict(forms) for key, forms in rows}, title=paper.title,
                             title_phrases=in_title)
        if len(_CONCEPT_PAPERS) >= _KEPT_PAPERS:
            _CONCEPT_PAPERS.clear()
        _CONCEPT_PAPERS[remembered] = found
    return found


_KEPT_PAPERS = 32768
"""Concept papers remembered (the real KB's four domains hold about 14,000 core papers up to a release's last
window; each is a few KB); past it the memory starts again."""
_CONCEPT_PAPERS: dict[tuple[object, ...], ConceptPaper] = {}


def concept_papers(papers: Iterable[Paper], settings: VocabularySettings) -> list[ConceptPaper]:
    """:func:`concept_paper` of each paper, in the given order (one shared, read-only object per paper)."""
    return [concept_paper(paper, settings) for paper in papers]


@dataclass(frozen=True)
class Vocabulary:
    """The concepts at a cutoff: keys most used first (ties by key), with their papers and names."""

    cutoff: date
    keys: tuple[str, ...]
    document_frequency: tuple[int, ...]
    names: tuple[str, ...]  # each concept's most used surface form (ties: alphabetical)

    def index(self) -> dict[str, int]:
        """Concept key -> column."""
        return {key: column for column, key in enumerate(self.keys)}

    def __len__(self) -> int:
        return len(self.keys)

    def to_json(self) -> str:
        """A canonical JSON text of the vocabulary (what the leakage test compares byte for byte)."""
        return json.dumps({"cutoff": self.cutoff.isoformat(), "keys": list(self.keys),
                           "document_frequency": list(self.document_frequency), "names": list(self.names)},
                          ensure_ascii=False, separators=(",", ":"))


def _subsumed(frequency: Mapping[str, int]) -> set[str]:
    """Keys that are a contiguous part of a longer key used at least as often."""
    dropped: set[str] = set()
    for key, count in frequency.items():
        words = key.split()
        for size in range(1, len(words)):
            for begin in range(len(words) - size + 1):
                part = " ".join(words[begin:begin + size])
                if part in frequency and frequency[part] <= count:
                    dropped.add(part)
    return dropped


def is_generic(key: str, settings: VocabularySettings) -> bool:
    """Whether a phrase key is reporting prose by the settings' word lists and stoplist (not a concept)."""
    words = key.split()
    return (key in settings.exclude_phrases or words[0] in settings.exclude_first_words
            or words[-1] in settings.exclude_last_words
            or any(word in settings.exclude_any_words for word in words))


def mine_vocabulary(papers: Sequence[ConceptPaper], cutoff: date, settings: VocabularySettings) -> Vocabulary:
    """The vocabulary at ``cutoff`` from the papers announced on or before it (later ones are ignored).

    A phrase is a concept when enough papers use it, it is not generic (:func:`is_generic`) and at least
    ``min_title_share`` of its papers, and at least ``min_title_papers`` papers, use it in their title:
    boilerplate and evaluation prose ("future research", "source code", "f1 score", "percentage points")
    fills abstracts but almost never a title.
    """
    frequency: Counter[str] = Counter()
    in_titles: Counter[str] = Counter()
    surfaces: dict[str, Counter[str]] = {}
    for paper in papers:
        if paper.announced > cutoff:
            continue
        frequency.update(paper.phrases.keys())
        in_titles.update(paper.title_phrases & paper.phrases.keys())
        for key, forms in paper.phrases.items():
            surfaces.setdefault(key, Counter()).update(forms)
    share = settings.min_title_share
    kept = {key: count for key, count in frequency.items() if count >= settings.min_document_frequency
            and in_titles[key] >= max(share * count, settings.min_title_papers)
            and not is_generic(key, settings)}
    if settings.drop_subsumed:
        for key in _subsumed(kept):
            del kept[key]
    chosen = sorted(kept.items(), key=lambda item: (-item[1], item[0]))[: settings.vocabulary_size]
    names = tuple(min(surfaces[key].items(), key=lambda form: (-form[1], form[0]))[0] for key, _ in chosen)
    return Vocabulary(cutoff=cutoff, keys=tuple(key for key, _ in chosen),
                      document_frequency=tuple(count for _, count in chosen), names=names)
