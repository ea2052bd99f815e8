"""Phrases in a domain's pre-cutoff title+abstract text: which papers use a phrase, two phrases together, a
label's words, and whether a phrase is mostly the tail of a longer one.

Words are lowercased, split at hyphens and punctuation, and cut to a crude stem (the first five letters of
a longer word, a plural ``s`` folded on a shorter one), so "low-rank adapters" and "low-rank adaptation",
"models" and "model" read alike. A phrase matches a run of consecutive stems inside one sentence piece
(punctuation breaks a run). Read by the release checks (:mod:`foresci.tasks.release_checks`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

RUN_BREAK = re.compile(r"[.,;:!?()\[\]{}\"“”'`/]+")
WORD = re.compile(r"[a-z0-9]+")
STOP = frozenset(["a", "an", "the", "of", "for", "via", "with", "in", "on", "to", "from", "by", "and", "or",
                  "using", "based", "through", "towards", "toward", "into", "as", "at", "is", "are", "be",
                  "its", "their", "this", "that", "these", "our", "we"])
SYNONYM_STEMS = {"synth": "gener", "adapt": "adapt", "reaso": "reaso"}
"""Stems read as one concept (synthesis ~ generation); identity rows document the stems already shared."""
ACRONYMS = {"llm": "large language model", "llms": "large language models",
            "rag": "retrieval augmented generation",
            "vlm": "vision language model", "vlms": "vision language models",
            "mllm": "multimodal large language model", "mllms": "multimodal large language models",
            "rl": "reinforcement learning", "lora": "low rank adaptation",
            "nlp": "natural language processing",
            "gnn": "graph neural network", "gnns": "graph neural networks"}
GENERIC = frozenset(["syste", "metho", "appro", "techn", "frame", "model", "task", "study", "resea", "based"])
"""Stems that name no research content by themselves ("systems", "methods", "models")."""


def stem(word: str) -> str:
    """The crude stem of one lowercase word."""
    if len(word) > 5:
        cut = word[:5]
        return SYNONYM_STEMS.get(cut, cut)
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def phrase_stems(text: str, expand: bool = False) -> list[str]:
    """Stems of a phrase's words in order, function words kept (they matter inside a phrase);
    ``expand``: acronyms (LLM, RAG, ...) spelled out first."""
    words = WORD.findall(text.lower())
    if expand:
        words = [part for word in words for part in WORD.findall(ACRONYMS.get(word, word))]
    return [stem(word) for word in words]


def content_stems(text: str) -> frozenset[str]:
    """The stems of a name's content words (function words dropped, acronyms spelled out)."""
    return frozenset(value for value in phrase_stems(text, expand=True) if value not in STOP)


def text_runs(text: str) -> list[list[str]]:
    """Stem runs of a text: one per piece between punctuation marks."""
    pieces = (WORD.findall(piece) for piece in RUN_BREAK.split(text.lower()))
    return [[stem(word) for word in words] for words in pieces if words]


class TextIndex:
    """Stemmed runs of a set of texts (a domain's pre-cutoff papers), with an index stem -> texts."""

    def __init__(self, texts: Iterable[tuple[str, str]]) -> None:
        self.ids: list[str] = []
        self.lines: list[str] = []
        self.words: dict[str, set[int]] = {}
        for paper_id, text in texts:
            row = len(self.ids)
            runs = text_runs(text)
            self.ids.append(paper_id)
            self.lines.append(" | " + " | ".join(" ".join(run) for run in runs) + " | ")
            for run in runs:
                for value in run:
                    self.words.setdefault(value, set()).add(row)
            for word in set(WORD.findall(text.lower())) & ACRONYMS.keys():  # "LLMs" holds its words too
                for value in phrase_stems(ACRONYMS[word]):
                    self.words.setdefault(value, set()).add(row)
        self.row_of = {paper_id: row for row, paper_id in enumerate(self.ids)}

    def __len__(self) -> int:
        return len(self.ids)

    def _rows_with_words(self, stems: Sequence[str]) -> set[int]:
        found: set[int] | None = None
        for value in sorted(set(stems), key=lambda item: len(self.words.get(item, ()))):
            rows = self.words.get(value, set())
            found = set(rows) if found is None else found & rows
            if not found:
                return set()
        return found or set()

    def containing(self, phrase: str) -> set[int]:
        """Rows whose text holds ``phrase`` as a run of stems."""
        stems = phrase_stems(phrase)
        if not stems:
            return set()
        needle = " " + " ".join(stems) + " "
        return {row for row in self._rows_with_words(stems) if needle in self.lines[row]}

    def together(self, first: str, second: str) -> list[str]:
        """Ids of the texts that use both phrases (the premise "no paper used them together" is false when
        this is not empty)."""
        both = self.containing(first) & self.containing(second)
        return [self.ids[row] for row in sorted(both)]

    def tail_share(self, phrase: str) -> tuple[int, float, float]:
        """How often ``phrase`` occurs, the share of those occurrences preceded, in the same run, by a
        content word, and the share preceded by the most common such word: near 1, the phrase is the tail
        of longer names ("model agents" of "language model agents"), a fragment rather than a concept."""
        stems = phrase_stems(phrase)
        if not stems:
            return 0, 0.0, 0.0
        needle = " " + " ".join(stems) + " "
        total = extended = 0
        left: Counter[str] = Counter()
        for row in self._rows_with_words(stems):
            line = self.lines[row]
            start = line.find(needle)
            while start >= 0:
                total += 1
                before = line[:start].rsplit(" ", 1)[-1]
                if before and before != "|" and before not in STOP:
                    extended += 1
                    left[before] += 1
                start = line.find(needle, start + 1)
        if not total:
            return 0, 0.0, 0.0
        return total, extended / total, (left.most_common(1)[0][1] / total if left else 0.0)

    def word_share(self, label: str, paper_ids: Sequence[str]) -> float:
        """Share of ``paper_ids`` (those indexed) whose text holds every content stem of ``label`` (generic
        stems such as "models" and "systems" aside)."""
        wanted = [value for value in content_stems(label) if value not in GENERIC]
        rows = [self.row_of[paper_id] for paper_id in paper_ids if paper_id in self.row_of]
        if not rows or not wanted:
            return 0.0
        holding = self._rows_with_words(wanted)
        return sum(row in holding for row in rows) / len(rows)
