"""The project a venue task asks about (#44): a contribution type and what the node's papers do, read from
the node's own papers announced up to the cutoff (never the target window).

The contribution type is the most common kind among the node's most central pre-cutoff papers, each read
from its title, then its abstract's claims, by :data:`KINDS` (first rule that matches; a paper matching
none proposes a method). What the work does is said by the node's name and its two most central
pre-cutoff titles.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

CENTRAL = 8
"""Central pre-cutoff papers read for the contribution type."""
KINDS: tuple[tuple[str, re.Pattern[str], re.Pattern[str]], ...] = (
    ("a survey", re.compile(r"\b(survey|systematic review|literature review|overview)\b", re.I),
     re.compile(r"\b(this (survey|review)|we survey)\b", re.I)),
    ("a benchmark or dataset", re.compile(r"(bench|\bdataset|\bcorpus|\btest suite)s?\b", re.I),
     re.compile(r"\bwe (introduce|present|propose|release|construct|build|curate) (a|an|the) ?(new |novel |"
                r"large-scale |comprehensive |challenging )?(benchmark|dataset|corpus)", re.I)),
    ("an empirical study", re.compile(r"\b(empirical|study|analysis|understanding|revisiting|rethinking|"
                                      r"position paper|how (do|does|well))\b", re.I),
     re.compile(r"\b(we (conduct|present) (a|an) (systematic |large-scale |comprehensive )?(empirical |"
                r"systematic )?(study|analysis)|position paper)\b", re.I)),
    ("a system or tool", re.compile(r"\b(toolkit|library|open-source platform)\b", re.I),
     re.compile(r"\bwe (release|open-source) (a|an|the) (toolkit|library|platform)\b", re.I)),
)
"""(kind, title pattern, abstract pattern): a title names its kind loosely, an abstract only by a claim
("we introduce a benchmark"; every method abstract mentions benchmarks)."""
METHOD = "a new method"


def contribution_kind(title: str, abstract: str) -> str:
    """The kind of contribution one paper makes (its title first, then its abstract's claims)."""
    for kind, pattern, _ in KINDS:
        if pattern.search(title or ""):
            return kind
    for kind, _, claim in KINDS:
        if claim.search(abstract or ""):
            return kind
    return METHOD


def central_pre_cutoff(evidence: Any, papers: dict[str, Any], cutoff: Any) -> list[Any]:
    """The node's most central papers announced up to ``cutoff`` (representative ids first, then its other
    pre-cutoff papers), at most :data:`CENTRAL`."""
    ordered = [*evidence.node.representative_ids, *evidence.pre_ids]
    seen: list[Any] = []
    for paper_id in ordered:
        paper = papers.get(paper_id)
        if paper is not None and paper.announced <= cutoff and paper not in seen:
            seen.append(paper)
        if len(seen) >= CENTRAL:
            break
    return seen


def project_description(evidence: Any, papers: dict[str, Any], cutoff: Any, name: str) -> dict[str, Any]:
    """The project: ``kind`` (contribution type), ``kinds`` (counts over the central papers), ``examples``
    (two central titles) and ``text``, one sentence for the public task."""
    central = central_pre_cutoff(evidence, papers, cutoff)
    kinds = Counter(contribution_kind(paper.title, paper.abstract or "") for paper in central)
    kind = sorted(kinds.items(), key=lambda item: (-item[1], item[0] != METHOD, item[0]))[0][0] if kinds \
        else METHOD
    examples = [paper.title for paper in central[:2]]
    text = f"The project is {kind} on {name}"
    if examples:
        text += ", in the line of pre-cutoff work such as " + " and ".join(f"'{title}'" for title in examples)
    return {"kind": kind, "kinds": dict(kinds), "examples": examples, "text": text + "."}


def template_words() -> str:
    """The words a project sentence adds besides the node's name and titles (for the leakage lint)."""
    kinds = " ".join(row[0] for row in KINDS)
    return (f"The project is {METHOD} {kinds} on, in the line of pre-cutoff work such as and. "
            "project type description pre_cutoff_examples")
