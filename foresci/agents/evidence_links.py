"""Evidence per claim: the sentences of an answer that cite papers the KB tools returned."""

from __future__ import annotations

import re

from foresci.contracts import Evidence

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def link_evidence(text: str, known_ids: set[str]) -> list[Evidence]:
    """Evidence per claim: each sentence of ``text`` that cites known paper ids, with those ids."""
    evidence = []
    for sentence in _SENTENCE.split(text):
        cited = [paper_id for paper_id in sorted(known_ids) if paper_id in sentence]
        if cited:
            evidence.append(Evidence(claim=sentence.strip(), paper_ids=cited))
    return evidence
