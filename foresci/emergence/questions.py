"""LLM-answerable emergence questions: option sets of candidate pairs with a one-line pre-cutoff context.

An option set holds one candidate pair from each outcome bucket (window papers using both concepts: 0,
1, 2, 3 or more), so the hidden order (most window papers first) is strict. Every word of an option's
context and every public signal comes from the snapshot (papers up to the cutoff); only the choice of
pairs and the hidden order read the window. A set whose hidden first pick is also preferential
attachment's first pick is marked, so release gates can keep "pick the most popular pair" from solving
the family.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from foresci.core.name_words import name_words, one_word_added
from foresci.emergence.build import EmergenceSet, Snapshot

BUCKETS: tuple[int, ...] = (3, 2, 1, 0)
"""Window-paper floors of the outcome buckets, best first (3 means 3 or more)."""


@dataclass(frozen=True)
class PairOption:
    """One candidate pair as a question shows it (everything from papers up to the cutoff)."""

    first: str
    second: str
    context: str
    signals: dict[str, float] = field(default_factory=dict)
    paper_ids: tuple[str, ...] = ()  # the latest pre-cutoff paper using each concept

    @property
    def label(self) -> str:
        """'first + second'."""
        return f"{self.first} + {self.second}"


@dataclass(frozen=True)
class OptionSet:
    """Options of one question, their window paper counts (hidden) and whether popularity solves it."""

    options: tuple[PairOption, ...]
    window_papers: tuple[int, ...]
    persistence_match: bool

    def hidden_order(self) -> list[int]:
        """Option positions, most window papers first."""
        return sorted(range(len(self.options)), key=lambda position: -self.window_papers[position])


def _latest_row(columns: sp.csc_matrix, concept: int) -> int | None:
    """Row of the latest paper up to the cutoff using ``concept`` (rows are in announcement order)."""
    rows = columns.indices[columns.indptr[concept]:columns.indptr[concept + 1]]
    return int(rows.max()) if len(rows) else None


def pair_option(snapshot: Snapshot, row: int, columns: sp.csc_matrix | None = None) -> PairOption:
    """The option of the ``row``-th candidate: names, a one-line context and its public signals
    (``columns``: the snapshot's paper-concept matrix as CSC, when the caller has it)."""
    columns = snapshot.paper_concepts.tocsc() if columns is None else columns
    first, second = (int(value) for value in snapshot.candidates.pairs[row])
    names = snapshot.vocabulary.names
    network = snapshot.network
    features = snapshot.features
    common = int(features.common[row])

    latest_rows = {concept: _latest_row(columns, concept) for concept in (first, second)}

    def usage(concept: int) -> str:
        row_of = latest_rows[concept]
        latest = snapshot.titles[row_of] if row_of is not None else ""
        return (f"“{names[concept]}” in {int(network.frequency[concept])} papers "
                f"({int(network.recent_frequency[concept])} recent; latest: “{latest}”)")

    context = (f"{usage(first)}; {usage(second)}; never in one paper up to {snapshot.cutoff.isoformat()}, "
               f"{common} concept{'s' if common != 1 else ''} used with both")
    signals = {
        "degree_first": float(features.degree_left[row]), "degree_second": float(features.degree_right[row]),
        "papers_first": float(network.frequency[first]), "papers_second": float(network.frequency[second]),
        "recent_first": float(network.recent_frequency[first]),
        "recent_second": float(network.recent_frequency[second]),
        "common_neighbours": float(common), "adamic_adar": round(float(features.adamic_adar[row]), 6),
        "resource_allocation": round(float(features.resource_allocation[row]), 6),
    }
    ids = tuple(snapshot.paper_ids[row_of] for row_of in latest_rows.values() if row_of is not None)
    return PairOption(first=names[first], second=names[second], context=context, signals=signals,
                      paper_ids=ids)


def buckets(counts: np.ndarray, floors: Sequence[int] = BUCKETS) -> np.ndarray:
    """Outcome bucket of each count: its position in ``floors`` (default :data:`BUCKETS`)."""
    result = np.full(len(counts), len(floors) - 1)
    for index in reversed(range(len(floors) - 1)):
        result[counts >= floors[index]] = index
    return result


def _stem(key: str) -> tuple[str, ...]:
    return tuple(word[:-3] if word.endswith("ing") and len(word) > 5 else word for word in key.split())


def nested_pair(first: str, second: str) -> bool:
    """Whether one concept key is the other with a single word added ("synthetic data" / "synthetic data
    generation"; normalised words, at least two in the shorter): one concept named twice."""
    return one_word_added(set(name_words(first)), set(name_words(second)))


def variant_pair(first: str, second: str) -> bool:
    """Whether two concept keys are forms of one phrase ("tool call" / "tool calling") or one is the other
    with a word added (:func:`nested_pair`): such a pair co-occurs by wording, not by research, so
    questions leave it out."""
    return _stem(first) == _stem(second) or nested_pair(first, second)


def _take(pool: list[int], taken: set[int], pairs: np.ndarray, keys: Sequence[str],
          scan: int = 200, allowed: Callable[[int], bool] | None = None) -> int | None:
    """The first row among the pool's first ``scan`` whose concepts are not in ``taken`` and are no
    :func:`variant_pair` (removed from the pool), or None. Rows ``allowed`` refuses leave the pool."""
    if allowed is not None:
        refused = [row for row in pool[:scan] if not allowed(row)]
        for row in refused:
            pool.remove(row)
    for position, row in enumerate(pool[:scan]):
        first, second = int(pairs[row, 0]), int(pairs[row, 1])
        if first not in taken and second not in taken and not variant_pair(keys[first], keys[second]):
            return pool.pop(position)
    return None


class _MatchedPool:
    """A bucket's candidate rows ordered by popularity (d_i * d_j), to take the row nearest a value."""

    def __init__(self, rows: np.ndarray, popularity: np.ndarray) -> None:
        order = np.argsort(popularity[rows], kind="stable")
        self.rows = rows[order]
        self.values = np.log1p(popularity[self.rows])
        self.used = np.zeros(len(self.rows), dtype=bool)

    def __bool__(self) -> bool:
        return not bool(self.used.all())

    def take(self, value: float, taken: set[int], pairs: np.ndarray, keys: Sequence[str],
             allowed: Callable[[int], bool] | None, scan: int = 200) -> int | None:
        """The unused row whose log(1 + d_i * d_j) is nearest ``value`` (scanning at most ``scan`` rows each
        side) whose concepts are not in ``taken`` and are no :func:`variant_pair`, marked used; rows
        ``allowed`` refuses are marked used as they are met. None when the scan finds none."""
        middle = int(np.searchsorted(self.values, value))
        left, right, seen = middle - 1, middle, 0
        while seen < 2 * scan and (left >= 0 or right < len(self.rows)):
            go_left = right >= len(self.rows) or (left >= 0 and value - self.values[left]
                                                 <= self.values[right] - value)
            position = left if go_left else right
            left, right = (left - 1, right) if go_left else (left, right + 1)
            if self.used[position]:
                continue
            seen += 1
            row = int(self.rows[position])
            if allowed is not None and not allowed(row):
                self.used[position] = True
                continue
            first, second = int(pairs[row, 0]), int(pairs[row, 1])
            if first in taken or second in taken or variant_pair(keys[first], keys[second]):
                continue
            self.used[position] = True
            return row
        return None


def option_sets(target: EmergenceSet, wanted: int, seed: int,
                max_persistence_share: float = 0.4,
                allowed: Callable[[int], bool] | None = None,
                floors: Sequence[int] = BUCKETS, matched: bool = True) -> list[OptionSet]:
    """Up to ``wanted`` option sets, each one candidate per outcome bucket; the top-bucket pair's place
    rotates from set to set (first, second, third, ...), the other options in a seeded order, so "answer the
    first option" reads chance however few sets a release keeps (a seeded order alone put the top first in 9
    of 14 kept tasks at one real cutoff, and the triviality gate left the family out).

    No candidate is used twice, no concept twice within a set (options sharing a concept read as
    near-duplicates) and no pair of two forms of one phrase (:func:`variant_pair`). Top-bucket pairs are
    drawn uniformly (the draw sees the window, the options' texts do not); ``matched`` (issue 43): each
    other option is the pair of its bucket whose popularity (preferential attachment, d_i * d_j) is
    nearest the top pair's on a log scale, so the set is degree-matched and the most popular pair does
    not win by default (off: uniform within each bucket, where the top pair was the most popular in most
    sets). A set whose most-studied pair is also preferential attachment's first pick is kept only while
    such sets stay at most ``max_persistence_share`` of those kept (otherwise its top pair is set aside and
    the next one tried), so "pick the most popular pair" cannot solve the family. ``allowed``: a
    candidate-row test the caller adds (the release checks: a true premise, no fragment, no synonym pair);
    refused rows are never drawn. ``floors``: the buckets' window-paper floors, best first (one option per
    bucket).
    """
    rng = np.random.default_rng(seed)
    bucket_of = buckets(target.counts, floors)
    pools = [[int(row) for row in rng.permutation(np.flatnonzero(bucket_of == index))]
             for index in range(len(floors))]
    pairs = target.snapshot.candidates.pairs
    columns = target.snapshot.paper_concepts.tocsc()
    popularity = target.snapshot.features.baseline("preferential_attachment")
    near = ([_MatchedPool(np.asarray(pool, dtype=np.int64), popularity) for pool in pools[1:]] if matched
            else [])
    sets: list[OptionSet] = []
    persistent = 0
    keys = target.snapshot.vocabulary.keys
    while len(sets) < wanted and pools[0] and (all(near) if matched else all(pools)):
        top = pools[0][0]
        if variant_pair(keys[int(pairs[top, 0])], keys[int(pairs[top, 1])]) or (
                allowed is not None and not allowed(top)):
            pools[0].pop(0)
            continue
        taken = {int(pairs[top, 0]), int(pairs[top, 1])}
        rows = [top]
        value = float(np.log1p(popularity[top]))
        for index in range(1, len(pools)):
            row = (near[index - 1].take(value, taken, pairs, keys, allowed) if matched
                   else _take(pools[index], taken, pairs, keys, allowed=allowed))
            if row is None:
                break
            rows.append(row)
            taken.update((int(pairs[row, 0]), int(pairs[row, 1])))
        top_wins = len(rows) == len(pools) and all(popularity[rows[0]] > popularity[row] for row in rows[1:])
        if len(rows) < len(pools) or (top_wins and persistent + 1 > max_persistence_share * (len(sets) + 1)):
            _put_back(pools, near, rows, matched)
            pools[0].pop(0)  # no disjoint set around this top pair, or popularity would solve too many
            continue
        pools[0].pop(0)
        slot = len(sets) % len(rows)  # the top pair's place rotates, so no position wins more often
        others = [rows[int(position)] for position in rng.permutation(np.arange(1, len(rows)))]
        chosen = [*others[:slot], rows[0], *others[slot:]]
        counts = tuple(int(target.counts[row]) for row in chosen)
        persistent += top_wins
        sets.append(OptionSet(options=tuple(pair_option(target.snapshot, row, columns) for row in chosen),
                              window_papers=counts, persistence_match=top_wins))
    return sets


def _put_back(pools: list[list[int]], near: list[_MatchedPool], rows: list[int], matched: bool) -> None:
    """Return the non-top ``rows`` of a set not kept to their pools."""
    for index, row in enumerate(rows[1:], start=1):
        if matched:
            pool = near[index - 1]
            pool.used[np.flatnonzero(pool.rows == row)] = False
        else:
            pools[index].insert(0, row)


def binary_base_rate(training_labels: Sequence[bool]) -> float:
    """A naive probability that a candidate emerges: the positive share at the earlier cutoff (smoothed)."""
    hits = int(sum(bool(label) for label in training_labels))
    return round((hits + 0.5) / (len(training_labels) + 1), 6)
