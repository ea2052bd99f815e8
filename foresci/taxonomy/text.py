"""Tokenising paper text and c-TF-IDF term weighting for node labels and key terms."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
from scipy import sparse

from foresci.taxonomy.phrase_store import stored

_WORD = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")

_STOPWORD_TEXT = """
a about above across after again against all almost along also although always am among an and another
any are around as at be been before being below between both but by can cannot could did do does doing
done down during each either else enough especially even ever every few for from further had has have
having he her here hers how however i if in into is it its itself just least less like made make makes
making many may me might more most much must my neither no nor not now of off often on once one only
onto or other others otherwise our ours out over own per perhaps rather same several shall she should
since so some such than that the their theirs them themselves then there therefore these they this those
though through thus to too toward towards under until up upon us use used uses using very via was we
well were what whatever when where whether which while who whom whose why will with within without would
yet you your
paper papers propose proposes proposed present presents introduce introduces introduced show shows shown
demonstrate demonstrates result results approach approaches method methods novel existing based new
work works achieve achieves achieved performance significant significantly state-of-the-art sota
experiment experiments experimental extensive various different including code available github first
two three key large-scale effective effectively improve improves improved improving study studies
furthermore moreover address addresses addressing leverage leverages leveraging enable enables enabling
provide provides providing specifically respectively outperform outperforms outperforming benchmarks
recent recently end-to-end able across high low better best strong stronger robust existing current
task tasks model models problem problems challenge challenges challenging remain remains key critical
com http https www org html url rely relies relying designed design findings diverse specialized
specific understanding applications application systems system framework frameworks methodology
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def tokens(text: str) -> list[str]:
    """Lower-case word tokens of ``text`` without stopwords or pure numbers."""
    return [word for word in _WORD.findall(text.lower()) if word not in STOPWORDS and len(word) > 2]


def terms(text: str) -> list[str]:
    """Unigrams and adjacent-word bigrams of ``text`` (bigrams only within a sentence clause)."""
    result: list[str] = []
    for clause in re.split(r"[.,;:()\[\]!?]", text.lower()):
        words = [word for word in _WORD.findall(clause)]
        kept = [word if (word not in STOPWORDS and len(word) > 2) else "" for word in words]
        result.extend(word for word in kept if word)
        result.extend(f"{first} {second}" for first, second in zip(kept, kept[1:], strict=False)
                      if first and second and first != second)
    return result


class TermMatrix:
    """Document-term counts of all input texts; a vocabulary is chosen per prefix of documents.

    ``restrict(upto)`` keeps the first ``upto`` documents and the terms that occur in at least
    ``min_df`` and at most ``max_df_share`` of *them*, so a snapshot's labels depend only on the papers
    it may see.
    """

    def __init__(self, texts: Sequence[str], min_df: int = 3, max_df_share: float = 0.5) -> None:
        self.min_df = min_df
        self.max_df_share = max_df_share
        index: dict[str, int] = {}
        rows: list[int] = []
        columns: list[int] = []
        for row, text in enumerate(texts):
            for term in stored("terms", text, terms):  # kept across openings inside a phrase store block
                rows.append(row)
                columns.append(index.setdefault(term, len(index)))
        self.all_terms = sorted(index, key=index.__getitem__)
        data = np.ones(len(rows), dtype=np.float32)
        full = sparse.csr_matrix((data, (rows, columns)), shape=(len(texts), len(index)))
        full.sum_duplicates()
        self.full = full
        self.restrict(len(texts))

    def restrict(self, upto: int) -> None:
        """Use only the first ``upto`` documents (and the vocabulary they support)."""
        visible = self.full[:upto]
        document_frequency = np.asarray((visible > 0).sum(axis=0)).ravel()
        ceiling = max(self.min_df, int(self.max_df_share * max(1, upto)))
        keep = np.flatnonzero((document_frequency >= self.min_df) & (document_frequency <= ceiling))
        keep = keep[np.argsort([self.all_terms[column] for column in keep], kind="stable")]
        self.vocabulary = [self.all_terms[column] for column in keep]
        self.matrix = visible[:, keep].tocsr()

    def class_counts(self, groups: Sequence[Sequence[int]]) -> sparse.csr_matrix:
        """Return a (groups x terms) matrix of summed term counts of each group's documents."""
        rows = [group_index for group_index, group in enumerate(groups) for _ in group]
        columns = [document for group in groups for document in group]
        indicator = sparse.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, columns)),
                                      shape=(len(groups), self.matrix.shape[0]))
        return (indicator @ self.matrix).tocsr()

    def class_document_frequency(self, groups: Sequence[Sequence[int]]) -> np.ndarray:
        """Return a dense (groups x terms) array: how many of each group's documents contain each term."""
        binary = (self.matrix > 0).astype(np.float32)
        rows = [group_index for group_index, group in enumerate(groups) for _ in group]
        columns = [document for group in groups for document in group]
        indicator = sparse.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, columns)),
                                      shape=(len(groups), self.matrix.shape[0]))
        return np.asarray((indicator @ binary).todense(), dtype=np.float64)


def contrastive_weights(group_df: np.ndarray, group_size: int, reference_df: np.ndarray,
                        reference_size: int, min_share: float = 0.05) -> np.ndarray:
    """Distinctive-and-frequent term weights of a group against a reference set of documents.

    ``share(t) * log(share(t) / reference_share(t))`` (a pointwise KL contribution): a term scores
    when many of the group's documents use it and it is over-represented against the reference
    (the parent node's papers, or all papers for top-level nodes). Terms in fewer than ``min_share``
    of the group's documents score 0.
    """
    smoothing = 1.0 / max(1, reference_size)
    share = group_df / max(1, group_size)
    reference_share = reference_df / max(1, reference_size)
    weights = share * np.log((share + smoothing) / (reference_share + smoothing))
    weights[(share < min_share) | (weights < 0)] = 0.0
    return weights


def ctfidf(class_counts: sparse.csr_matrix) -> np.ndarray:
    """c-TF-IDF weights (BERTopic): ``tf(t,c)/|c| * log(1 + A / f(t))``, A = mean words per class."""
    dense = np.asarray(class_counts.todense(), dtype=np.float64)
    if dense.size == 0:
        return dense
    words_per_class = dense.sum(axis=1, keepdims=True)
    average_words = float(words_per_class.mean()) or 1.0
    term_frequency = dense.sum(axis=0)
    idf = np.log(1.0 + average_words / np.maximum(term_frequency, 1.0))
    return dense / np.maximum(words_per_class, 1.0) * idf


def top_terms(weights: np.ndarray, vocabulary: Sequence[str], count: int,
              exclude: frozenset[str] = frozenset()) -> list[str]:
    """The ``count`` best terms by weight, skipping excluded words and words a chosen bigram covers."""
    chosen: list[str] = []
    covered: set[str] = set()
    for column in np.argsort(-weights, kind="stable"):
        if weights[column] <= 0 or len(chosen) >= count:
            break
        term = vocabulary[int(column)]
        words = term.split()
        if term in exclude or all(word in exclude for word in words):
            continue
        if term in covered or (len(words) == 2 and set(words) <= covered):
            continue
        if len(words) == 1 and any(term in other.split() for other in chosen):
            continue
        chosen.append(term)
        covered.update(words)
        if len(words) == 2:
            covered.add(term)
        for other in list(chosen):
            if len(other.split()) == 1 and other in words and other != term:
                chosen.remove(other)
    return chosen


def label_from_terms(chosen: Sequence[str]) -> str:
    """A readable node label from its top terms."""
    return " / ".join(chosen) if chosen else "(unlabelled)"


def entropy(counts: Sequence[float]) -> float:
    """Shannon entropy (nats) of a count vector."""
    total = float(sum(counts))
    if total <= 0:
        return 0.0
    return -sum((value / total) * math.log(value / total) for value in counts if value > 0)
