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

import numpy as np
import scipy.sparse as sp

from foresci.emergence.config import VocabularySettings
from foresci.emergence.genericity import generic_columns
from foresci.emergence.synonyms import capital_words, learn_acronyms, synonym_groups
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
    aliases: tuple[tuple[str, ...], ...] = ()  # per concept, its other keys (near-synonyms merged into it)

    def index(self) -> dict[str, int]:
        """Concept key (and each alias) -> column."""
        columns = {key: column for column, key in enumerate(self.keys)}
        for column, others in enumerate(self.aliases):
            for key in others:
                columns[key] = column
        return columns

    def __len__(self) -> int:
        return len(self.keys)

    def to_json(self) -> str:
        """A canonical JSON text of the vocabulary (what the leakage test compares byte for byte)."""
        fields = {"cutoff": self.cutoff.isoformat(), "keys": list(self.keys),
                  "document_frequency": list(self.document_frequency), "names": list(self.names)}
        if any(self.aliases):
            fields["aliases"] = [list(others) for others in self.aliases]
        return json.dumps(fields, ensure_ascii=False, separators=(",", ":"))


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


def _canonical_forms(papers: Sequence[ConceptPaper], frequency: Mapping[str, int],
                     surfaces: Iterable[str], settings: VocabularySettings) -> dict[str, str]:
    """Key -> its canonical form (:mod:`foresci.emergence.synonyms`): itself unless synonyms are merged
    (``surfaces``: the distinct written forms of the papers' phrases)."""
    if not settings.merge_synonyms:
        return {key: key for key in frequency}
    capitals = capital_words(surfaces)
    acronyms = learn_acronyms(frequency, capitals, settings.min_document_frequency)
    return synonym_groups(frequency, acronyms, settings.synonym_heads)


_VOCABULARIES: dict[tuple[object, ...], tuple[tuple[ConceptPaper, ...], Vocabulary]] = {}
_KEPT_VOCABULARIES = 8


def mine_vocabulary(papers: Sequence[ConceptPaper], cutoff: date, settings: VocabularySettings) -> Vocabulary:
    """:func:`_mined_vocabulary`, remembered for the same paper objects, cutoff and settings (the windows of
    a release read one domain's papers up to one cutoff: the same vocabulary). The papers are kept with the
    result, so their ids in the key name these very objects."""
    kept = tuple(papers)
    remembered = (cutoff, settings.model_dump_json(), tuple(map(id, kept)))
    found = _VOCABULARIES.get(remembered)
    if found is not None:
        return found[1]
    vocabulary = _mined_vocabulary(kept, cutoff, settings)
    if len(_VOCABULARIES) >= _KEPT_VOCABULARIES:
        _VOCABULARIES.pop(next(iter(_VOCABULARIES)))
    _VOCABULARIES[remembered] = (kept, vocabulary)
    return vocabulary


def _mined_vocabulary(papers: Sequence[ConceptPaper], cutoff: date,
                      settings: VocabularySettings) -> Vocabulary:
    """The vocabulary at ``cutoff`` from the papers announced on or before it (later ones are ignored).

    Near-synonym keys are first merged into one concept when ``merge_synonyms`` is set (the most used key
    names it; its papers are those using any of its keys). A concept is then kept when enough papers use
    it, it is not generic by the word lists (:func:`is_generic`) and at least ``min_title_share`` of its
    papers, and at least ``min_title_papers`` papers, use it in their title: boilerplate and evaluation
    prose ("future research", "source code", "f1 score", "percentage points") fills abstracts but almost
    never a title. Last, concepts whose neighbours are a random draw of the corpus's
    (:mod:`foresci.emergence.genericity`, below ``min_neighbour_information``) are dropped.
    """
    visible = [paper for paper in papers if paper.announced <= cutoff]
    key_frequency: Counter[str] = Counter()
    written_forms: set[str] = set()  # surface counts are read for the chosen concepts only (below)
    for paper in visible:
        key_frequency.update(paper.phrases.keys())
        written_forms.update(*paper.phrases.values())
    canonical = _canonical_forms(visible, key_frequency, written_forms, settings)
    members: dict[str, list[str]] = {}
    for key in sorted(key_frequency, key=lambda key: (-key_frequency[key], key)):
        members.setdefault(canonical[key], []).append(key)
    leader = {form: keys[0] for form, keys in members.items()}  # the most used key names a concept
    frequency: Counter[str] = Counter()
    in_titles: Counter[str] = Counter()
    for paper in visible:
        used = {leader[canonical[key]] for key in paper.phrases}
        frequency.update(used)
        in_titles.update({leader[canonical[key]] for key in paper.title_phrases if key in paper.phrases})
    share = settings.min_title_share
    kept = {key: count for key, count in frequency.items() if count >= settings.min_document_frequency
            and in_titles[key] >= max(share * count, settings.min_title_papers)
            and not is_generic(key, settings)}
    if settings.drop_subsumed:
        for key in _subsumed(kept):
            del kept[key]
    if settings.min_neighbour_information > 0 and kept:
        order = sorted(kept)
        columns = {key: column for column, key in enumerate(order)}
        rows = [sorted({columns[leader[canonical[key]]] for key in paper.phrases
                        if leader[canonical[key]] in columns}) for paper in visible]
        indptr = np.cumsum([0, *map(len, rows)])
        indices = np.fromiter((column for row in rows for column in row), dtype=np.int32,
                              count=int(indptr[-1]))
        matrix = sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=(len(rows), len(order)))
        for column in generic_columns(matrix, settings.min_neighbour_information):
            del kept[order[column]]
    chosen = sorted(kept.items(), key=lambda item: (-item[1], item[0]))[: settings.vocabulary_size]
    named = {member for key, _ in chosen for member in members[canonical[key]]}
    surfaces: dict[str, Counter[str]] = {key: Counter() for key in named}
    for paper in visible:
        for key in named.intersection(paper.phrases):
            surfaces[key].update(paper.phrases[key])
    names = []
    aliases = []
    for key, _ in chosen:
        group = members[canonical[key]]
        written: Counter[str] = Counter()
        for member in group:
            written.update(surfaces[member])
        names.append(min(written.items(), key=lambda form: (-form[1], form[0]))[0])
        aliases.append(tuple(sorted(group[1:])))
    return Vocabulary(cutoff=cutoff, keys=tuple(key for key, _ in chosen),
                      document_frequency=tuple(count for _, count in chosen), names=tuple(names),
                      aliases=tuple(aliases) if any(aliases) else ())
