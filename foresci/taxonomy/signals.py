"""Bottleneck and future-work signals: cue sentences of a node's papers, clustered and counted.

Offline: sentence patterns from ``taxonomy/signals.yaml`` (plus a paper's explicit ``limitations`` /
``future_work`` lists from a KB layer, where present); statements are clustered lexically within a
node and a cluster recurring in enough papers becomes a :class:`Signal`.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from foresci.core.resources import declarative_file
from foresci.core.yamlio import load_yaml_model
from foresci.kb.models import Paper
from foresci.taxonomy.models import Signal, Snapshot
from foresci.taxonomy.text import tokens

SignalKind = Literal["bottleneck", "future_work"]
SIGNAL_KINDS: tuple[SignalKind, ...] = ("future_work", "bottleneck")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")


class SignalPatterns(BaseModel):
    """The cue patterns and clustering thresholds of ``taxonomy/signals.yaml``."""

    model_config = ConfigDict(extra="forbid")

    min_papers: int = Field(default=2, ge=1)
    max_per_node: int = Field(default=5, ge=1)
    cluster_similarity: float = Field(default=0.3, gt=0.0, le=1.0)
    bottleneck: list[str]
    future_work: list[str]

    @classmethod
    def load(cls, path: Path | None = None) -> SignalPatterns:
        """Read the patterns YAML (default ``taxonomy/signals.yaml``); errors name the file and pattern."""
        path = path or declarative_file("taxonomy", "signals.yaml")
        patterns = load_yaml_model(path, cls, "signal patterns")
        for kind in ("bottleneck", "future_work"):
            for position, pattern in enumerate(getattr(patterns, kind)):
                try:
                    re.compile(pattern)
                except re.error as error:
                    raise ValueError(f"{path}: {kind}[{position}]: invalid regex {pattern!r}: "
                                     f"{error}") from error
        return patterns


@dataclass(frozen=True)
class Statement:
    """One limitation or future-work statement of one paper."""

    kind: SignalKind
    text: str
    paper_id: str


_BACKREFERENCE = re.compile(r"\\[1-9]|\(\?P=|\(\?[aiLmsux-]")


def any_of(patterns: Sequence[str], flags: int = 0) -> list[re.Pattern[str]]:
    """Compiled patterns such that ``any(p.search(s) for p in result)`` is true exactly when one of
    ``patterns`` matches: one alternation (one scan of the text) unless a pattern refers to its own
    groups or sets inline flags, which an alternation would change (or two name the same group); then one
    pattern each."""
    if len(patterns) > 1 and not any(_BACKREFERENCE.search(pattern) for pattern in patterns):
        with contextlib.suppress(re.error):  # e.g. a group name used by two patterns: compiled one by one
            return [re.compile("|".join(f"(?:{pattern})" for pattern in patterns), flags)]
    return [re.compile(pattern, flags) for pattern in patterns]


def split_sentences(text: str) -> list[str]:
    """Sentences of an abstract."""
    return [sentence.strip() for sentence in _SENTENCE.split(" ".join(text.split())) if sentence.strip()]


class StatementExtractor:
    """Finds limitation and future-work statements in papers."""

    def __init__(self, patterns: SignalPatterns) -> None:
        self.patterns = patterns
        self._compiled: dict[SignalKind, list[re.Pattern[str]]] = {
            "bottleneck": any_of(patterns.bottleneck, re.IGNORECASE),
            "future_work": any_of(patterns.future_work, re.IGNORECASE)}
        # lower-case ASCII patterns also as case-sensitive ones for lower-cased ASCII sentences: the same
        # verdict, without re.IGNORECASE's slower matching
        listed: dict[SignalKind, list[str]] = {"bottleneck": patterns.bottleneck,
                                               "future_work": patterns.future_work}
        self._lowered: dict[SignalKind, list[re.Pattern[str]] | None] = {
            kind: any_of(texts) if all(text == text.lower() and text.isascii() for text in texts) else None
            for kind, texts in listed.items()}

    def extract(self, paper: Paper) -> list[Statement]:
        """Statements of one paper: explicit lists first, then cue-matching abstract sentences."""
        found = [Statement("bottleneck", text, paper.paper_id) for text in paper.limitations]
        found += [Statement("future_work", text, paper.paper_id) for text in paper.future_work]
        for sentence in split_sentences(paper.abstract):
            if len(sentence) < 25:
                continue
            lowered = sentence.lower() if sentence.isascii() else None
            for kind in SIGNAL_KINDS:
                fast = self._lowered[kind]
                if lowered is not None and fast is not None:
                    hit = any(pattern.search(lowered) for pattern in fast)
                else:
                    hit = any(pattern.search(sentence) for pattern in self._compiled[kind])
                if hit:
                    found.append(Statement(kind, sentence, paper.paper_id))
                    break
        return found


def _stem(word: str) -> str:
    """A crude plural stem, so 'overheads' and 'overhead' count as one word."""
    return word[:-1] if len(word) > 4 and word.endswith("s") and not word.endswith("ss") else word


def cluster_statements(statements: Sequence[Statement], similarity: float) -> list[list[Statement]]:
    """Greedy leader clustering by TF-IDF cosine of content words (input order decides leaders)."""
    bags = [Counter(_stem(word) for word in tokens(statement.text)) for statement in statements]
    document_frequency = Counter(word for bag in bags for word in bag)
    count = max(1, len(bags))
    vectors = []
    for bag in bags:
        weights = {word: frequency * math.log(1 + count / document_frequency[word])
                   for word, frequency in bag.items()}
        norm = math.sqrt(sum(value * value for value in weights.values())) or 1.0
        vectors.append({word: value / norm for word, value in weights.items()})
    clusters: list[list[int]] = []
    postings: dict[str, list[tuple[int, float]]] = {}  # word -> (leader, weight): leaders sharing a word
    for index, vector in enumerate(vectors):
        products: dict[int, list[float]] = {}
        for word, value in vector.items():
            for cluster_index, weight in postings.get(word, ()):
                products.setdefault(cluster_index, []).append(value * weight)
        best, best_score = -1, 0.0
        for cluster_index in sorted(products):  # a leader sharing no word scores 0 and never wins
            score = sum(products[cluster_index])  # the same terms, in the same order, as the full dot product
            if score > best_score:
                best, best_score = cluster_index, score
        if best >= 0 and best_score >= similarity:
            clusters[best].append(index)
        else:
            for word, value in vector.items():
                postings.setdefault(word, []).append((len(clusters), value))
            clusters.append([index])
    return [[statements[index] for index in cluster] for cluster in clusters]


def node_signals(statements: Sequence[Statement], dates: dict[str, Any],
                 patterns: SignalPatterns) -> list[Signal]:
    """Recurring signals among one node's statements, strongest first."""
    signals: list[Signal] = []
    for kind in reversed(SIGNAL_KINDS):
        of_kind = [statement for statement in statements if statement.kind == kind]
        kept: list[Signal] = []
        for cluster in cluster_statements(of_kind, patterns.cluster_similarity):
            paper_ids = sorted({statement.paper_id for statement in cluster})
            if len(paper_ids) < patterns.min_papers:
                continue
            texts = [statement.text for statement in cluster]
            kept.append(Signal(kind=kind, text=texts[0], variants=list(dict.fromkeys(texts[1:4])),
                               paper_ids=paper_ids, count=len(paper_ids),
                               first_seen=min(dates[paper_id] for paper_id in paper_ids)))
        kept.sort(key=lambda signal: (-signal.count, signal.text))
        signals.extend(kept[:patterns.max_per_node])
    return signals


def attach_signals(snapshot: Snapshot, papers: Sequence[Paper],
                   patterns: SignalPatterns | None = None) -> None:
    """Fill ``node.signals`` of every node of ``snapshot`` from its papers (in place)."""
    patterns = patterns or SignalPatterns.load()
    extractor = StatementExtractor(patterns)
    by_id = {paper.paper_id: paper for paper in papers}
    statements = {paper_id: extractor.extract(paper) for paper_id, paper in by_id.items()}
    dates = {paper_id: paper.announced for paper_id, paper in by_id.items()}
    for node in snapshot.nodes:
        node_statements = [statement for paper_id in node.paper_ids
                           for statement in statements.get(paper_id, [])]
        node.signals = node_signals(node_statements, dates, patterns)
