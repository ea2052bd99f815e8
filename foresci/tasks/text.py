"""Small text helpers shared by the builders: tokens, phrase matching, distinctive n-grams."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from foresci.kb.models import Paper
    from foresci.taxonomy.models import Node

SENTENCE_BREAK = re.compile(r"[.;:!?,()]\s*")
TOKEN = re.compile(r"[a-z][a-z0-9\-]+")
_STOPWORD_TEXT = (
    "a about above across after again against all also although among an and any are as at be because "
    "been before being below between both but by can could did do does doing during each either enable "
    "enables enabling especially et etc even every few for from further had has have having here how "
    "however if in into is it its itself just large less like made make makes many may more most much "
    "must new no nor not novel of off often on once only or other our out over own paper papers per "
    "propose proposed proposes provide provides rather remain remains same several show shows significant "
    "significantly so some such than that the their them then there these they this those through thus to "
    "too toward towards under until up upon use used uses using various very via was we well were what "
    "when where whether which while who whom whose why will with within without would yet approach "
    "approaches method methods model models results result based work study studies task tasks new "
    "existing framework frameworks improve improves improved performance data limited limitation "
    "limitations remains future directions direction problem problems current however "
    "now replacing reducing reduce reduces reduced addressing address addresses overcoming overcome unlock "
    "unlocks unlocking opens open opening allow allows allowing making follow follows following pursue "
    "pursues pursuing way ways turn turns "
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def tokens(text: str) -> list[str]:
    """Return lowercase word tokens of ``text`` (letters, digits, hyphens; at least two characters)."""
    return TOKEN.findall(text.lower())


def content_tokens(text: str) -> list[str]:
    """Return tokens that are not stopwords and have at least three characters."""
    return [token for token in tokens(text) if len(token) >= 3 and token not in STOPWORDS]


LIMITATION_LEAD = re.compile(
    r"^.*?\b(?:remains?|is|are|was|were|stays?)\s+(?:still\s+)?(?:limited|constrained|bottlenecked|hampered|"
    r"hindered)\s+(?:by|from)\s+|^.*?\b(?:suffers?|struggles?)\s+(?:from|with)\s+|^.*?\blimitations?\s*:\s*|"
    r"^.*?\b(?:lacks?|lacking|overlooks?|ignores?)\s+(?:of\s+)?", re.IGNORECASE)
LIMITATION_SUBJECT = re.compile(
    r"^(?:however,?\s+)?(?P<subject>.+?)\s+(?:remains?|is|are)\s+(?:still\s+)?(?:challenging|difficult|"
    r"an open (?:problem|challenge)|a (?:key|major|critical|fundamental) "
    r"(?:challenge|obstacle|bottleneck))\b",
    re.IGNORECASE)
TRAILING = frozenset(["in", "of", "for", "to", "on", "with", "by", "the", "a", "an", "and", "or", "at",
                      "from"])
SHORTFALL = re.compile(
    r"^(?:however,?\s+)?(?:(?:their|its|the|a|an|such)\s+)?(?P<what>[^,;:()%]+?)\s+(?:still\s+)?"
    r"(?:remains?|is|are|stays?)\s+"
    r"(?:still\s+)?(?:(?:rather|relatively|quite|very|often|largely)\s+)?"
    r"(?P<how>limited|poor|insufficient|inadequate|weak)\.?$",
    re.IGNORECASE)
SHORTFALL_CLAUSE = re.compile(r"\b(?:where|when|while|whereas|yet|although|though|despite|because|since|as|"
                              r"which|that|if|we|our|this|these)\b", re.IGNORECASE)
SHORTFALL_WORDS = 8
CLAUSE_END = re.compile(r"[,;(]|\s(?:which|that|while|whereas|because|since|"
                        r"(?:(?:primarily|mainly|largely|partly|mostly)\s+)?due to)\s", re.IGNORECASE)


def core_phrase(sentence: str) -> str:
    """The limitation itself, e.g. '<phrase>' from 'However, X remains limited by <phrase>.', from
    '<phrase> remains challenging ...' or from 'the lack of <phrase>'; 'limited <X>' from 'However, their <X>
    remains limited.' (a noun phrase, not the sentence); the sentence itself when no pattern applies."""
    text = sentence.strip()
    shortfall = SHORTFALL.match(text)
    if shortfall is not None:
        what = shortfall.group("what").split()
        if (2 <= len(what) <= SHORTFALL_WORDS and not what[0].lower().endswith("ing")
                and not SHORTFALL_CLAUSE.search(shortfall.group("what"))):
            if what[0][:1].isupper() and what[0][1:].islower():  # "Current datasets": the sentence's capital
                what[0] = what[0].lower()
            return " ".join([shortfall.group("how").lower(), *what])
    stripped = LIMITATION_LEAD.sub("", text, count=1)
    if stripped == text:
        match = LIMITATION_SUBJECT.match(text)
        stripped = match.group("subject") if match else text
    clause = CLAUSE_END.split(stripped, maxsplit=1)[0] if stripped != text else stripped
    words = clause.strip().rstrip(".;:").split()
    while words and words[-1].lower() in TRAILING:
        words.pop()
    clause = " ".join(words)
    return clause if len(clause.split()) >= 2 else text.rstrip(".;:")


def vocabulary(texts: Iterable[str]) -> frozenset[str]:
    """Return the set of content tokens over many texts (read in one pass: a line break ends a token, so the
    joined texts hold the same tokens; a round's opening reads ~60,000 abstracts here)."""
    return frozenset(token for token in set(tokens("\n".join(texts)))
                     if len(token) >= 3 and token not in STOPWORDS)


def phrase_overlap(phrase: str, text: str) -> float:
    """Share of the phrase's content tokens present in ``text`` (0 when the phrase has none)."""
    wanted = set(content_tokens(phrase))
    if not wanted:
        return 0.0
    return len(wanted & set(content_tokens(text))) / len(wanted)


def ngrams(text: str, sizes: tuple[int, ...] = (2, 3)) -> list[str]:
    """Return the contiguous content-token n-grams of ``text`` that neither start nor end on a stopword."""
    grams: list[str] = []
    for sentence in SENTENCE_BREAK.split(text):
        grams.extend(_sentence_ngrams(tokens(sentence), sizes))
    return grams


def _sentence_ngrams(words: list[str], sizes: tuple[int, ...]) -> list[str]:
    grams: list[str] = []
    for size in sizes:
        for start in range(len(words) - size + 1):
            window = words[start:start + size]
            if window[0] in STOPWORDS or window[-1] in STOPWORDS or len(window[0]) < 3 or len(window[-1]) < 3:
                continue
            if any(len(word) < 2 or word in STOPWORDS for word in window):
                continue
            grams.append(" ".join(window))
    return grams


def distinctive_ngrams(focus: Iterable[str], background: Iterable[str], top: int = 5,
                       min_count: int = 2, min_lift: float = 2.0) -> list[tuple[str, float]]:
    """Return n-grams much more frequent in ``focus`` texts than in ``background`` texts, best first.

    See :func:`distinctive_gram_sets`; this form takes raw texts.
    """
    return distinctive_gram_sets([frozenset(ngrams(text)) for text in focus],
                                 [frozenset(ngrams(text)) for text in background], top, min_count, min_lift)


def distinctive_gram_sets(focus: Sequence[frozenset[str]], background: Sequence[frozenset[str]], top: int = 5,
                          min_count: int = 2, min_lift: float = 2.0) -> list[tuple[str, float]]:
    """Return n-grams much more frequent in the ``focus`` documents than in the ``background`` ones.

    Documents are given as their n-gram sets. Kept when the focus document rate is at least ``min_lift``
    times the (add-one smoothed) background rate; scored by focus document frequency times the log of that
    lift. An n-gram overlapping a better one is skipped.
    """
    import math

    focus_df: Counter[str] = Counter()
    for grams in focus:
        focus_df.update(grams)
    wanted = {gram for gram, count in focus_df.items() if count >= min_count}
    background_df: Counter[str] = Counter()
    for grams in background:
        background_df.update(grams & wanted)
    focus_docs, background_docs = len(focus), len(background)
    scored: list[tuple[str, float]] = []
    for gram, count in focus_df.items():
        if count < min_count:
            continue
        lift = (count / max(focus_docs, 1)) / ((background_df[gram] + 1) / (background_docs + 1))
        if lift >= min_lift:
            scored.append((gram, count * math.log(lift)))
    scored.sort(key=lambda item: (-item[1], -len(item[0]), item[0]))
    kept: list[tuple[str, float]] = []
    for gram, score in scored:
        if any(gram in other or other in gram for other, _ in kept):
            continue
        kept.append((gram, round(score, 4)))
        if len(kept) >= top:
            break
    return kept


def name_evidence_text(node: Node, papers: Mapping[str, Paper], cutoff: date, counted: bool = True) -> str:
    """Where a node's name comes from, for public task text: how many of its pre-cutoff papers use the
    phrase (not when ``counted`` is False: a planning task states no size) and one such paper's title (only
    papers announced on or before ``cutoff`` are quoted)."""
    evidence = node.name_evidence
    if evidence is None or evidence.method == "label" or not node.name:
        return ""
    quoted = next((papers[paper_id].title for paper_id in evidence.paper_ids
                   if paper_id in papers and papers[paper_id].announced <= cutoff), None)
    where = (f"'{node.name}' in {evidence.support} papers before the cutoff" if counted
             else f"'{node.name}' in papers before the cutoff")
    return f"{where}, e.g. '{quoted}'" if quoted else where
