"""Bottleneck candidates mined from the limitation sentences of a node's own pre-cutoff papers.

The taxonomy's bottleneck signals are whole sentences clustered across papers; few of them name a problem
short enough for window papers to repeat. Here each pre-cutoff paper's limitation statements
(:func:`foresci.tasks.limitations.extract_limitations`) are cut into base noun phrases, and a phrase whose
head names a problem ("computational overhead", "factual hallucinations", "error propagation") is a
candidate once at least ``min_papers`` papers of the node state it; of two such phrases of one statement
the shorter is kept ("token costs", not also "high token costs"). Each candidate is a
:class:`~foresci.taxonomy.models.Signal` with the limitation clauses that stated it as variants.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from operator import itemgetter

from foresci.kb.models import Paper
from foresci.tasks.limitations import PROBLEM_HEADS, extract_limitations
from foresci.taxonomy.models import Signal
from foresci.taxonomy.phrases import document_phrase_rows

MIN_PAPERS = 2
# heads that name a problem when a problem word modifies them ("error propagation", "error accumulation")
PROCESS_HEADS = frozenset({"propagation", "accumulation", "compounding", "overthinking", "amplification"})
MAX_VARIANTS = 3


@lru_cache(maxsize=65536)
def limitation_phrases(abstract: str) -> tuple[tuple[str, str, str], ...]:
    """(phrase key, surface form, limitation clause) of every problem-naming noun phrase in the limitation
    statements of one abstract."""
    found: dict[str, tuple[str, str, str]] = {}
    for limitation in extract_limitations(abstract):
        for key, forms in document_phrase_rows(limitation.text, 2, 6):
            surface = max(forms, key=itemgetter(1))[0]  # Counter.most_common(1): the first most used form
            head = surface.split()[-1]
            if (PROBLEM_HEADS.match(head) or head.lower() in PROCESS_HEADS) and key not in found:
                found[key] = (key, surface, limitation.text)
    shortest = [key for key in found
                if not any(other != key and f" {other} " in f" {key} " for other in found)]
    return tuple(found[key] for key in shortest)


def mined_bottlenecks(papers: Mapping[str, Paper], paper_ids: Sequence[str],
                      min_papers: int = MIN_PAPERS) -> list[Signal]:
    """Recurring problem phrases of the papers ``paper_ids`` (pre-cutoff papers of one node), most stated
    first; each stated in at least ``min_papers`` of them."""
    stated: dict[str, list[tuple[str, str, str]]] = {}
    for paper_id in paper_ids:
        for key, surface, clause in limitation_phrases(papers[paper_id].abstract):
            stated.setdefault(key, []).append((paper_id, surface, clause))
    signals: list[Signal] = []
    for entries in stated.values():
        if len(entries) < min_papers:
            continue
        surfaces: dict[str, int] = {}
        for _, surface, _ in entries:
            surfaces[surface] = surfaces.get(surface, 0) + 1
        text = max(surfaces, key=lambda surface: (surfaces[surface], surface))
        clauses = list(dict.fromkeys(clause for _, _, clause in entries))[:MAX_VARIANTS]
        signals.append(Signal(kind="bottleneck", text=text, variants=clauses,
                              paper_ids=[paper_id for paper_id, _, _ in entries], count=len(entries),
                              first_seen=min(papers[paper_id].announced for paper_id, _, _ in entries)))
    signals.sort(key=lambda signal: (-signal.count, signal.text))
    return signals
