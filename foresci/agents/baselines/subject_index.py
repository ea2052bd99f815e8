"""The content-word index of a KB view's papers per domain, which the trend and persistence forecasts use
to find a question's subject papers (:func:`foresci.agents.baselines.questions.subject_papers`).

Built once per view and domain (a round's ~900 baseline forecasts read one view) instead of scanning and
tokenising every paper of the domain for each question: the real-corpus round opening spent ~70 of its
~150 s there. The index gives exactly the papers the scan did, in the same (announcement) order: a paper
is kept when at least ``needed`` of the subject's words are among its content tokens.
"""

from __future__ import annotations

import threading
import weakref
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from foresci.agents.tools import KBViewLike
from foresci.kb.models import Paper
from foresci.tasks.text import content_tokens

_LOCK = threading.Lock()
_CACHE: weakref.WeakKeyDictionary[Any, dict[str | None, SubjectIndex]] = weakref.WeakKeyDictionary()


@dataclass
class SubjectIndex:
    """One domain's visible papers (announcement order) and, per content word, the papers holding it."""

    papers: list[Paper]
    postings: dict[str, list[int]] = field(default_factory=dict)

    @classmethod
    def build(cls, papers: list[Paper]) -> SubjectIndex:
        """Tokenise each paper once."""
        index = cls(papers)
        for position, paper in enumerate(papers):
            for word in set(content_tokens(paper.text)):
                index.postings.setdefault(word, []).append(position)
        return index

    def holding(self, words: set[str], needed: int) -> list[Paper]:
        """Papers whose content tokens hold at least ``needed`` of ``words``, in announcement order."""
        hits = Counter(position for word in words for position in self.postings.get(word, ()))
        return [self.papers[position] for position in sorted(hits) if hits[position] >= needed]


def subject_index(view: KBViewLike, domain: str | None) -> SubjectIndex:
    """The index of ``view``'s papers of ``domain`` announced on or before its cutoff (cached per view)."""
    with _LOCK:
        per_view = _CACHE.setdefault(view, {})
        if domain not in per_view:
            papers = [paper for paper in view.papers(domain) if paper.announced <= view.cutoff]
            per_view[domain] = SubjectIndex.build(papers)
        return per_view[domain]
