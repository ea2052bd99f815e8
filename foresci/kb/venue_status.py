"""What an arXiv comment says about a paper's venue: accepted, workshop, submission, under review or nothing.

Only acceptances at a main track (including findings, demo, industry and datasets tracks, and journals)
count as a venue. Workshops and non-archival or abstract-only tracks, submissions (``[ICLR26 Submission]``,
"submitted to", rejections) and "under review" do not.

Rules, applied per clause (a comment is split at ``;``, ``|`` and sentence ends):

- text after a back-reference ("extended version of", "earlier version", "companion paper", ...) is
  ignored, because it talks about another paper;
- a clause's status is the first that holds of: workshop cue (``workshop``, ``CVPRW``, ``SRW``, "tiny
  papers", "student abstract", "non-archival", ...); "under review"; "submitted"/"submission"/"rejected";
  an acceptance cue ("accepted", "to appear", "published", "proceedings", "oral", "findings", ...) followed
  by a venue, or a clause that starts with one of the five families' venues;
- the comment's status is the best clause status in the order accepted > workshop > submission >
  under review (a paper accepted somewhere is accepted, whatever else the comment says), preferring a
  clause that names one of the five venue families.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

VenueStatusLabel = Literal["accepted", "workshop", "submission", "under_review", "none"]
STATUSES: tuple[VenueStatusLabel, ...] = ("accepted", "workshop", "submission", "under_review", "none")

# venue token or full name -> family (ForeSci App. B.5)
_FAMILY_OF_TOKEN: dict[str, str] = {
    **dict.fromkeys(("ACL", "EMNLP", "NAACL", "EACL", "AACL", "COLING"), "ACL/EMNLP/NAACL"),
    **dict.fromkeys(("ICLR", "ICML", "NEURIPS", "NIPS"), "ICLR/ICML/NeurIPS"),
    **dict.fromkeys(("AAAI", "IJCAI"), "AAAI/IJCAI"),
    **dict.fromkeys(("SIGIR", "KDD", "SIGKDD"), "SIGIR/KDD"),
    **dict.fromkeys(("CVPR", "ICCV", "ECCV"), "CVPR/ICCV/ECCV"),
}
_FULL_NAMES: tuple[tuple[str, str], ...] = (
    (
        r"association for computational linguistics|empirical methods in natural language processing",
        "ACL/EMNLP/NAACL",
    ),
    (
        r"learning representations|international conference on machine learning(?!\s+and\b)"
        r"|neural information processing systems",
        "ICLR/ICML/NeurIPS",
    ),
    (r"aaai conference|international joint conference on artificial intelligence", "AAAI/IJCAI"),
    (
        r"(?<!pacific-asia conference on )knowledge discovery and data mining"
        r"|research and development in information retrieval",
        "SIGIR/KDD",
    ),
    (
        r"computer vision and pattern recognition(?!\s*\(cs\.)"
        r"|(?:international|european) conference on computer vision(?! theory)",
        "CVPR/ICCV/ECCV",
    ),
)
_TOKEN = re.compile(
    r"(?<![A-Za-z])(?P<name>" + "|".join(sorted(_FAMILY_OF_TOKEN, key=len, reverse=True)) + r")"
    r"(?P<workshop>W)?(?![A-Za-z])(?:\)?[\s'’-]*(?P<year>(?:19|20)\d{2}|\d{2})(?!\d))?",
    re.IGNORECASE,
)
_FULL = re.compile("|".join(f"(?:{pattern})" for pattern, _ in _FULL_NAMES), re.IGNORECASE)
_BACK_REFERENCE = re.compile(
    r"(?:see also\s+)?(?:our\s+)?(?:journal extension of|extension of|extended version|earlier version"
    r"|previous version|prior version|companion paper|earlier workshop|replaces an earlier|this work extends"
    r"|extends our|builds on our).*$",
    re.IGNORECASE,
)
_WORKSHOP = re.compile(
    r"workshop|\bSRW\b|tiny papers?|blog ?post track|student abstract|doctoral consortium|non-archival"
    r"|extended abstract|(?<![A-Za-z])(?:CVPR|ICCV|ECCV)W(?![A-Za-z])",
    re.IGNORECASE,
)
_UNDER_REVIEW = re.compile(
    r"\bunder (?:double-blind |peer )?review\b|\bin review\b|\brolling review\b", re.IGNORECASE
)
_SUBMISSION = re.compile(
    r"\bsubmitted\b|\bsubmitting\b|\bsubmission\b|\brejected\b|\bresubmitted\b", re.IGNORECASE
)
_ACCEPTED = re.compile(
    r"\b(?:accepted|accpeted|aceepted|accepeted|accepected|acceped|acepted|accept (?:in|to|at|by)|to appear"
    r"|forthcoming|appears? (?:in|at|on)"
    r"|published|proceedings|camera[- ]ready|presented at"
    r"|oral|spotlight|poster|highlight|findings)\b",
    re.IGNORECASE,
)
# what may stand before a venue named without a cue ("9 pages, 2 figures, ACL 2025", "39th Conference on")
_LEADING_WORDS = frozenset(
    {
        "page",
        "pages",
        "figure",
        "figures",
        "table",
        "tables",
        "pp",
        "appendix",
        "main",
        "in",
        "at",
        "the",
        "conference",
        "on",
        "of",
        "annual",
        "meeting",
        "and",
        "supplementary",
        "material",
        "paper",
        "long",
        "short",
        "ieee",
        "cvf",
        "acm",
        "international",
    }
)
_CLAUSES = re.compile(r";|\||\.\s+|\.$")
_RANK: dict[VenueStatusLabel, int] = {
    "accepted": 4,
    "workshop": 3,
    "submission": 2,
    "under_review": 1,
    "none": 0,
}


@dataclass(frozen=True)
class VenueStatus:
    """The venue status of one comment; ``family`` set only when one of the five families is named."""

    status: VenueStatusLabel
    family: str | None = None
    year: int | None = None
    venue: str | None = None

    @property
    def accepted_family(self) -> str | None:
        """The venue family when the comment reports an acceptance there, else None."""
        return self.family if self.status == "accepted" else None


def _year(text: str | None) -> int | None:
    if not text:
        return None
    return int(text) if len(text) == 4 else 2000 + int(text)


def _venue(clause: str) -> tuple[str | None, int | None, str | None, int | None]:
    """(family, year, venue token, position) of the first five-family venue named in a clause."""
    token = _TOKEN.search(clause)
    full = _FULL.search(clause)
    if token and (not full or token.start() <= full.start()):
        name = token.group("name").upper()
        return _FAMILY_OF_TOKEN[name], _year(token.group("year")), name, token.start()
    if full:
        family = next(fam for pattern, fam in _FULL_NAMES if re.search(pattern, full.group(0), re.I))
        after = _TOKEN.search(clause, full.end())
        year = _year(after.group("year")) if after else None
        if year is None:
            found = re.search(r"(?<!\d)((?:19|20)\d{2})(?!\d)", clause)
            year = int(found.group(1)) if found else None
        return family, year, full.group(0), full.start()
    return None, None, None, None


def _only_leading_words(prefix: str) -> bool:
    """True when the text before a venue holds only page/figure counts, ordinals and connecting words."""
    words = re.findall(r"[a-z]+", re.sub(r"\d+(?:st|nd|rd|th)?", " ", prefix.lower()))
    return all(word in _LEADING_WORDS for word in words)


def _clause_status(clause: str) -> VenueStatus:
    clause = _BACK_REFERENCE.sub("", clause).strip()
    if not clause:
        return VenueStatus("none")
    family, year, venue, position = _venue(clause)
    if _WORKSHOP.search(clause):
        status: VenueStatusLabel = "workshop"
    elif _UNDER_REVIEW.search(clause):
        status = "under_review"
    elif _SUBMISSION.search(clause):
        status = "submission"
    else:
        cue = _ACCEPTED.search(clause)
        leading = position is not None and _only_leading_words(clause[:position])
        names_something = cue is not None and bool(clause[cue.end() :].strip(" .,:;()"))
        status = "accepted" if (names_something or leading) else "none"
    if status == "none":
        return VenueStatus("none")
    return VenueStatus(status, family, year, venue)


def parse_venue_status(comment: str | None) -> VenueStatus:
    """The venue status an arXiv comment reports (see the module docstring for the rules)."""
    if not comment or not comment.strip():
        return VenueStatus("none")
    text = " ".join(comment.split())
    clauses = [_clause_status(part) for part in _CLAUSES.split(text) if part.strip()]
    return max(
        clauses, key=lambda item: (_RANK[item.status], item.family is not None), default=VenueStatus("none")
    )


def confusion(samples: list[tuple[str, str, str | None]]) -> dict[str, dict[str, int]]:
    """Status confusion of the parser on labelled (comment, status, family) rows: true -> predicted -> n."""
    table: dict[str, dict[str, int]] = {label: dict.fromkeys(STATUSES, 0) for label in STATUSES}
    for comment, status, _ in samples:
        table[status][parse_venue_status(comment).status] += 1
    return table


def venue_family(name: str | None) -> str | None:
    """The venue family of a venue name or bucket ("ICML", "EMNLP", "Computer Vision and Pattern
    Recognition"); None for venues outside the five families ("WSDM", "other")."""
    family, _, _, _ = _venue(name or "")
    return family
