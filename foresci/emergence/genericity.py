"""How much a phrase says about its neighbours: the generic-phrase filter of the concept vocabulary.

A generic phrase ("natural language", "model training", "question answering" in a corpus about language
models) is used alongside every topic about as often as the topic itself is used: who writes it says
nothing about what else the paper is about, so a pairing with it says nothing either. For a phrase ``c``
the *neighbour information* is the Kullback–Leibler divergence (nats) of the distribution of its
co-occurring phrases from the background distribution of all co-occurrences, both counted over the papers
up to the cutoff among the phrases still in the running, ``c``'s own co-occurrences left out of the
background (else a phrase in every paper would be its own background's largest part):

    I(c) = sum_j p_c(j) log(p_c(j) / q_c(j)),   p_c(j) = C[c, j] / C[c, .],
    q_c(j) = (C[., j] - C[c, j]) / (C[., .] - 2 C[c, .])

It is 0 when ``c``'s neighbours are a random draw of the corpus's phrases and grows with how specific they
are. A phrase with no neighbour carries no evidence of being generic (infinite information).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp


def neighbour_information(paper_phrases: sp.csr_matrix) -> np.ndarray:
    """(phrases,) neighbour information of each column of a (papers, phrases) 0/1 matrix (inf: no
    neighbour)."""
    binary = (paper_phrases > 0).astype(np.float64)
    together = (binary.T @ binary).tocsr()
    together.setdiag(0)
    together.eliminate_zeros()
    rows = np.asarray(together.sum(axis=1)).ravel()
    background = np.asarray(together.sum(axis=0)).ravel()
    total = background.sum()
    information = np.full(together.shape[0], np.inf)
    if total <= 0:
        return information
    coo = together.tocoo()
    share = coo.data / rows[coo.row]
    rest = (background[coo.col] - coo.data) / (total - 2 * rows[coo.row])
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(rest > 0, share * np.log(share / np.where(rest > 0, rest, 1.0)), np.inf)
    sums = np.bincount(coo.row, weights=terms, minlength=together.shape[0])
    has = rows > 0
    information[has] = sums[has]
    return information


def generic_columns(paper_phrases: sp.csr_matrix, min_information: float) -> Sequence[int]:
    """Columns whose neighbour information is below ``min_information`` (none when it is 0)."""
    if min_information <= 0:
        return []
    return [int(column) for column in np.flatnonzero(neighbour_information(paper_phrases) < min_information)]
