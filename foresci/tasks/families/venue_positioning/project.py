"""The project a venue task asks about (#44): a contribution type and what the node's papers do, read from
the node's own papers announced up to the cutoff (never the target window).

Each paper's kind is read from its title, then its abstract's claims, by :data:`KINDS` (first rule that
matches; a paper matching none proposes a method). Methods are most papers of every node, so the most
common kind says nothing: the contribution type is the kind the node's pre-cutoff papers hold *more often
than their domain does*, at least :data:`MIN_LIFT` times the domain's pre-cutoff share, in at least
:data:`MIN_KIND_SHARE` of the node's papers and :data:`MIN_KIND_PAPERS` papers (the largest lift wins);
a node with no such kind is "a new method". What the work does is said by the node's name and two of its
most central pre-cutoff titles, those of the project's kind first.
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
    ("a benchmark or dataset", re.compile(r"(bench(mark)?|\bdataset|\bcorpus|\btest suite)s?\b", re.I),
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
MIN_LIFT = 1.5
"""How many times the domain's share of a kind the node's share must reach to make it the node's type."""
MIN_KIND_SHARE = 0.15
"""Share of the node's pre-cutoff papers of that kind (below it, a handful of benchmarks in a large node)."""
MIN_KIND_PAPERS = 3
"""Papers of that kind the node needs (one or two papers are no project type)."""


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


_DOMAIN_SHARES: dict[tuple[int, Any], tuple[Any, dict[str, float]]] = {}


def paper_kind(paper: Any) -> str:
    """:func:`contribution_kind` of one paper."""
    return contribution_kind(paper.title, paper.abstract or "")


def kind_shares(members: Any) -> dict[str, float]:
    """Share of each kind among ``members`` (papers)."""
    counts = Counter(paper_kind(paper) for paper in members)
    total = sum(counts.values())
    return {kind: count / total for kind, count in counts.items()} if total else {}


def domain_kind_shares(papers: dict[str, Any], cutoff: Any) -> dict[str, float]:
    """Share of each kind among the domain's papers announced up to ``cutoff`` (remembered per mapping)."""
    remembered = _DOMAIN_SHARES.get((id(papers), cutoff))
    if remembered is not None and remembered[0] is papers:
        return remembered[1]
    shares = kind_shares(paper for paper in papers.values() if paper.announced <= cutoff)
    if len(_DOMAIN_SHARES) >= 16:
        _DOMAIN_SHARES.clear()
    _DOMAIN_SHARES[(id(papers), cutoff)] = (papers, shares)
    return shares


def project_kind(evidence: Any, papers: dict[str, Any], cutoff: Any) -> tuple[str, dict[str, int]]:
    """The node's contribution type (see the module text) and the kind counts over its pre-cutoff papers."""
    members = [papers[paper_id] for paper_id in evidence.pre_ids
               if paper_id in papers and papers[paper_id].announced <= cutoff]
    counts = Counter(paper_kind(paper) for paper in members)
    domain = domain_kind_shares(papers, cutoff)
    lifts = {kind: (count / len(members)) / domain[kind] for kind, count in counts.items()
             if kind != METHOD and count >= MIN_KIND_PAPERS and count >= MIN_KIND_SHARE * len(members)
             and domain.get(kind)}
    kind = max(sorted(lifts), key=lambda value: lifts[value]) if lifts and max(lifts.values()) >= MIN_LIFT \
        else METHOD
    return kind, dict(sorted(counts.items()))


def project_description(evidence: Any, papers: dict[str, Any], cutoff: Any, name: str) -> dict[str, Any]:
    """The project: ``kind`` (contribution type, :func:`project_kind`), ``kinds`` (counts over the node's
    pre-cutoff papers), ``examples`` (two central titles, the project's kind first) and ``text``, one
    sentence for the public task."""
    central = central_pre_cutoff(evidence, papers, cutoff)
    kind, kinds = project_kind(evidence, papers, cutoff)
    examples = [paper.title for paper in sorted(central, key=lambda paper: paper_kind(paper) != kind)[:2]]
    text = f"The project is {kind} on {name}"
    if examples:
        text += ", in the line of pre-cutoff work such as " + " and ".join(f"'{title}'" for title in examples)
    return {"kind": kind, "kinds": dict(kinds), "examples": examples, "text": text + "."}


def template_words() -> str:
    """The words a project sentence adds besides the node's name and titles (for the leakage lint)."""
    kinds = " ".join(row[0] for row in KINDS)
    return (f"The project is {METHOD} {kinds} on, in the line of pre-cutoff work such as and. "
            "project type description pre_cutoff_examples")
