"""Bottleneck-opportunity discovery: the root bottleneck of a sub-direction and the opportunity it unlocks.

The hidden bottleneck is the pre-cutoff bottleneck signal of the node whose mentions grow most in the
window (the limitation the field turns to; the rise must pass a one-sided two-proportion test,
:mod:`.acceptance`), among the signals that belong to the node (same-node
check) and name it with words of its own (``node_markers``: not "high costs"); only signals that state
a limitation count (:mod:`foresci.tasks.limitations`), never ones reporting results. The opportunity is
the full noun phrase that the window papers addressing the bottleneck most often write next to it, then
the most distinctive one against the node's pre-cutoff papers, used by at least three window papers and
specific to the node (its lift against the domain's other window papers, :mod:`.acceptance`).
Subject, bottleneck and opportunity must belong to the same node (:mod:`foresci.tasks.coherence`;
recorded in the hidden stats).
Persistence names the bottleneck mentioned most often before the cutoff among the same signals, whether
or not window papers take them up (which it cannot know): choosing only among the signals with enough
window mentions would hand it post-cutoff knowledge (on the real 2025-12-31 KB, 11 of 12 candidates had a
single such signal, so persistence "matched" by construction).
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from datetime import date
from functools import lru_cache
from typing import Any

from foresci.tasks.bottleneck_mining import PROCESS_HEADS, mined_bottlenecks
from foresci.tasks.builders.common import Built, display_name, eligible_nodes, node_description, task_id
from foresci.tasks.coherence import node_coherence
from foresci.tasks.config import TaskSettings
from foresci.tasks.evidence import DomainEvidence, NodeEvidence
from foresci.tasks.families.base import get_family
from foresci.tasks.families.bottleneck_opportunity.acceptance import (
    MIN_SPECIFICITY_LIFT,
    opportunity_lift,
    rise_test,
    rises,
    window_phrase_sets,
)
from foresci.tasks.families.bottleneck_opportunity.family import bottleneck_question
from foresci.tasks.families.bottleneck_opportunity.target import BottleneckTarget
from foresci.tasks.hidden import Claim, Slot
from foresci.tasks.limitations import CUES, PROBLEM_HEADS, limitation_clause, named_limitation
from foresci.tasks.lint import public_strings
from foresci.tasks.models import Task
from foresci.tasks.text import content_tokens, core_phrase, name_evidence_text
from foresci.taxonomy.models import Signal
from foresci.taxonomy.phrases import (
    CLOSED,
    JOINERS,
    SurfaceCounts,
    document_phrase_rows,
    phrase_key,
    subsumed,
)
from foresci.taxonomy.signals import split_sentences

FAMILY = "bottleneck_opportunity"
MATCH_THRESHOLD = 0.6
MIN_OPPORTUNITY_PAPERS = 3
MIN_TAKING_UP = 1  # papers addressing the bottleneck that must write the opportunity
ASSOCIATION = 1.5  # ... at this many times the rate of the node's other window papers
MIN_MARKER_PAPERS = 3
MIN_MARKER_LIFT = 2.0
FRAGMENT_STARTS = frozenset(["of", "for", "to", "in", "on", "with", "by", "and", "or", "from", "as", "at"])
EVALUATIVE_HEADS = frozenset(["rate", "success", "cost", "accuracy", "score", "family", "mode", "error",
                              "time", "size", "number", "baseline", "gain", "result", "performance",
                              "usage", "consumption", "footprint", "scalability"])
OUTPUT_MODIFIERS = frozenset(["generated", "synthesized", "produced", "output"])
"""First words of a phrase that names what a method outputs ("generated frames"), not a research line."""
BOILERPLATE_HEADS = frozenset(["page", "website", "homepage", "repository", "link", "url", "code"])
"""Heads of what an abstract points to ("project page", "source code"), not research."""
COUNT_WORDS = frozenset(["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "dozens",
                         "hundreds", "thousands"])
"""First words of a count of what a paper used ("four benchmarks"), not a research line."""
NOT_FIRST_WORDS = OUTPUT_MODIFIERS | COUNT_WORDS
REPORTING_WORDS = frozenset(["paper", "article", "presents", "proposes", "introduces", "percentage",
                             "results", "highlight", "highlights"])
"""Words of how an abstract reports ("this paper presents", "percentage points", "results highlight"): no
phrase with one is research."""
FRAGMENT_SHARE = 0.75
"""A phrase that at least this share of its window papers write inside one longer base phrase is a fragment
of that phrase (:func:`_is_fragment`). On the real release at 2025-12-31, 3 of 4 ("matching distillation" in
"distribution matching distillation") and 4 of 4 ("probabilistic models") are fragments; at more than half,
"multilingual models" (2 of 3 in "large multilingual models") was lost too."""


_GENERIC_TEXT = (
    "significant limitation limitations limited challenge challenges face faces facing issue issues "
    "problem problems existing approaches approach key obstacle obstacles main major critical fundamental "
    "remain remains still often lack lacks lacking suffer suffers struggle struggles poor due reliance "
    "rely relies hinder hinders hindered difficult difficulty "
)
GENERIC = frozenset(_GENERIC_TEXT.split())
_ANY_METHOD_PROBLEM_TEXT = (
    "performance degradation degraded cost costs overhead computational computationally expensive high "
    "significant severe substantial heavy latency efficiency inefficiency inefficiencies inference training "
    "memory time prohibitive excessive increased method methods incur incurs incurring"
)
ANY_METHOD_PROBLEM = GENERIC | frozenset(_ANY_METHOD_PROBLEM_TEXT.split())
"""Words of problems every method has (:func:`any_methods_problem`)."""


def marker_words(text: str, domain: DomainEvidence) -> frozenset[str]:
    """Words that mark a limitation: content words that are neither generic nor common in the domain."""
    return frozenset(word for word in content_tokens(text)
                     if word not in GENERIC and word not in domain.common_tokens)


def node_markers(text: str, evidence: NodeEvidence, domain: DomainEvidence) -> frozenset[str]:
    """Marker words of a limitation that are the node's own: used by at least ``MIN_MARKER_PAPERS`` of its
    pre-cutoff papers, at least ``MIN_MARKER_LIFT`` times as often as in the domain's pre-cutoff papers.
    A limitation without one is generic ("high costs", "performance degradation") or one paper's aside,
    not a bottleneck of this sub-direction."""
    words = marker_words(text, domain)
    if not words or not evidence.pre_ids:
        return frozenset()
    counts, size = domain.pre_token_counts
    local: Counter[str] = Counter(word for paper_id in evidence.pre_ids if paper_id in domain.papers
                                  for word in domain.token_set(paper_id) & words)
    return frozenset(word for word in words if local[word] >= MIN_MARKER_PAPERS and counts[word]
                     and local[word] / len(evidence.pre_ids) >= MIN_MARKER_LIFT * counts[word] / max(1, size))


def mentions(signal: Signal, domain: DomainEvidence, paper_ids: list[str],
             own: frozenset[str] = frozenset()) -> list[str]:
    """Ids of the papers holding most marker words of the signal's limitation phrase (or of a variant).

    A phrasing needs two marker words, or one that is the node's own (``own``, :func:`node_markers`:
    "overthinking" in reasoning models), so that a single common word never makes a mention."""
    phrasings = [marker_words(core_phrase(text), domain) for text in (signal.text, *signal.variants)]
    phrasings = [words for words in phrasings if len(words) >= 2 or (words and words <= own)]
    return [paper_id for paper_id in paper_ids
            if any(len(words & domain.token_set(paper_id)) >= MATCH_THRESHOLD * len(words)
                   for words in phrasings)]


def build_bottleneck_tasks(domain: DomainEvidence, settings: TaskSettings, domain_name: str,
                           wanted: int) -> list[Built]:
    """Candidate bottleneck-opportunity tasks for one domain and window, one per eligible node at most."""
    rng = random.Random(f"{settings.seed}:{FAMILY}:{domain.domain}:{domain.window.horizon}")
    built: list[Built] = []
    for evidence in eligible_nodes(domain, settings):
        if evidence.window < settings.min_window_papers:
            continue
        item = _build_one(domain, evidence, settings, domain_name)
        if item is not None:
            built.append(item)
    rng.shuffle(built)
    return built


DOMAIN_MIN_PAPERS = 3
"""Pre-cutoff papers of the domain that must state a problem phrase before it can be matched to a node."""
_DOMAIN_MINED: dict[tuple[int, date], tuple[Any, list[Signal]]] = {}


def domain_bottlenecks(domain: DomainEvidence) -> list[Signal]:
    """The problem phrases the domain's pre-cutoff papers state in their limitation sentences, each in at
    least :data:`DOMAIN_MIN_PAPERS` papers (remembered per paper mapping and cutoff: the windows of one
    domain share them)."""
    key = (id(domain.papers), domain.cutoff)
    remembered = _DOMAIN_MINED.get(key)
    if remembered is not None and remembered[0] is domain.papers:
        return remembered[1]
    pre = [paper_id for paper_id, paper in sorted(domain.papers.items()) if paper.announced <= domain.cutoff]
    found = mined_bottlenecks(domain.papers, pre, DOMAIN_MIN_PAPERS)
    if len(_DOMAIN_MINED) >= 8:
        _DOMAIN_MINED.clear()
    _DOMAIN_MINED[key] = (domain.papers, found)
    return found


def node_bottlenecks(evidence: NodeEvidence, domain: DomainEvidence | None = None) -> list[Signal]:
    """The node's bottleneck signals: the taxonomy's, then (given ``domain``) the problem phrases its own
    pre-cutoff papers state in their limitation sentences (:mod:`foresci.tasks.bottleneck_mining`), then
    those the domain's papers state (:func:`domain_bottlenecks`) that name the node in its own words
    (:func:`node_markers`: a word its papers use at least twice as often as the domain's). A limitation a
    node's papers share with the rest of the domain is often written in another node's papers ("lack of
    sufficient parallel corpora" for machine translation on the real 2025-12-31 KB); the rise, same-node
    and opportunity checks judge it as they judge the node's own."""
    signals = [signal for signal in evidence.node.signals if signal.kind == "bottleneck"]
    if domain is not None:
        signals += mined_bottlenecks(domain.papers, evidence.pre_ids)
        seen = {phrase_key(signal.text) for signal in signals}
        signals += [signal for signal in domain_bottlenecks(domain)
                    if phrase_key(signal.text) not in seen and node_markers(signal.text, evidence, domain)]
    return signals


def limitation_signals(evidence: NodeEvidence, cutoff: date,
                       domain: DomainEvidence | None = None) -> list[tuple[Signal, str]]:
    """The node's pre-cutoff bottleneck signals that state a limitation, each with its limitation phrase;
    a phrase contained in an earlier one, or containing it, is the same limitation (taxonomy signals first).

    A signal whose text and variants all report results or contributions is dropped; the phrase is the
    limitation clause of the first phrasing that states one, cut to its core (``core_phrase``).
    """
    kept: dict[str, tuple[Signal, str]] = {}
    for signal in node_bottlenecks(evidence, domain):
        if signal.first_seen is not None and signal.first_seen > cutoff:
            continue
        for text in (signal.text, *signal.variants):
            part = named_limitation(text)
            if part is not None:
                phrase = limitation_phrase(limitation_clause(part))
                if phrase.split()[0].lower() in FRAGMENT_STARTS or not states_a_problem(phrase):
                    break  # a fragment ("of this capability of ...") or a goal ("enabling X"), no limitation
                key = f" {phrase_key(phrase)} "
                if not any(key in f" {other} " or f" {other} " in key for other in kept):
                    kept[key.strip()] = (signal, phrase)
                break
    return list(kept.values())


MAX_PHRASE_WORDS = 8
RELIANCE = re.compile(r"\brel(?:y|ies|ying)\s+(?:heavily\s+|mainly\s+|solely\s+)?on\s+(?:the\s+)?"
                      r"(?P<what>.+)$", re.IGNORECASE)
LONG_PHRASE_CUT = re.compile(r"\s(?:or|and|when|where|whenever|once|if|as|while|whereas|like)\s",
                             re.IGNORECASE)
ROOT_CAUSE = re.compile(r"\b(?:(?:primarily|mainly|largely|partly|mostly|often|severely)\s+)?"
                        r"(?:due to|because of|caused by|stemming from|arising from|owing to|"
                        r"(?:constrained|limited|hindered|hampered|restricted|bottlenecked|held back) by)"
                        r"\s+(?P<cause>.+)$", re.IGNORECASE)


def limitation_phrase(clause: str) -> str:
    """The limitation a clause names, cut to its core (``core_phrase``) but keeping what is missing a lack:
    "existing methods lack support for multi-object scenes" -> "lack of support for multi-object scenes",
    never the bare "support for multi-object scenes" (a topic, not a limitation). A phrase of more than
    ``MAX_PHRASE_WORDS`` words is cut before its first "or/and/when/where/as ..." continuation: "support for
    multi-object motion scenes or experience severe performance degradation when object trajectories
    intersect" names the first limitation of two. Where that phrase names no problem (a task, a whole
    sentence) and the clause gives the problem's cause, the cause is the root bottleneck: "VFI in scenarios
    with large motion remains challenging due to motion ambiguity between frames" -> "motion ambiguity
    between frames", not the task "video frame interpolation"; "their performance is often constrained by the
    scarcity of high-quality trajectory data" -> "scarcity of high-quality trajectory data". What a sentence
    says methods rely on is their bottleneck: "existing evaluation approaches often rely on image-text
    similarity metrics" -> "reliance on image-text similarity metrics"."""
    phrase = re.sub(r"^(?:limitations?|challenges?|drawbacks?|issues?)\s*:\s*", "", core_phrase(clause),
                    flags=re.IGNORECASE)
    phrase = _first_limitation(phrase)
    lacked = re.search(r"\b(?:lacks?|lacking)\s+(?:of\s+)?" + re.escape(phrase.split()[0]), clause,
                       re.IGNORECASE)
    if phrase != clause and lacked:
        return f"lack of {phrase}"
    relied = RELIANCE.search(phrase)
    if relied is not None:  # "methods often rely on X": their bottleneck is the reliance on X
        return f"reliance on {relied.group('what')}"
    cause = ROOT_CAUSE.search(clause)
    if cause is not None and not _names_a_problem(phrase):  # "X remains hard due to <cause>": the cause
        named = _first_limitation(core_phrase(cause.group("cause")))
        named = re.sub(r"^(?:the|a|an|its|their)\s+", "", named, flags=re.IGNORECASE)
        if 2 <= len(named.split()) <= MAX_PHRASE_WORDS:
            return named
    return phrase


def any_methods_problem(phrase: str) -> bool:
    """Whether a limitation is one every method has ("performance degradation", "significant latency",
    "existing methods incur computational overhead"): it stays among the node's recurring limitations (what
    persistence reads) but is never the root bottleneck a task asks for, which names the sub-direction."""
    return set(content_tokens(phrase)) <= ANY_METHOD_PROBLEM


def states_a_problem(phrase: str) -> bool:
    """Whether a bottleneck phrase names a problem: a problem word anywhere ("motion ambiguity between
    frames", "quadratic complexity of attention") or a limitation cue ("rule-based rewards lack
    robustness"). A goal or task that a sentence calls challenging ("enabling interactive video
    generation") names none."""
    words = re.findall(r"[\w-]+", phrase)
    return any(PROBLEM_HEADS.match(word) for word in words) or bool(CUES.search(phrase))


def _names_a_problem(phrase: str) -> bool:
    """A short phrase whose head names a problem ("flux drift instability") or that carries a limitation
    cue; a task ("video frame interpolation") or a whole sentence does not."""
    words = phrase.split()
    return len(words) <= MAX_PHRASE_WORDS and bool(PROBLEM_HEADS.match(words[-1]) or CUES.search(phrase))


def _first_limitation(phrase: str) -> str:
    """``phrase`` cut before its first "or/and/when/where/as/while/like ..." continuation when it is longer
    than ``MAX_PHRASE_WORDS`` words (and the cut leaves two or more)."""
    if len(phrase.split()) > MAX_PHRASE_WORDS:  # "X or experience Y when Z": the first limitation it names
        head = LONG_PHRASE_CUT.split(phrase, maxsplit=1)[0]
        return head if len(head.split()) >= 2 else phrase
    return phrase


@lru_cache(maxsize=20_000)
def text_phrases(text: str) -> dict[str, SurfaceCounts]:
    """Phrase key -> ((surface form, occurrences), ...) of a text (:func:`document_phrase_rows`) with
    inversions (:func:`_with_inversions`), memoised: the builder reads the same papers for every node,
    window and bottleneck of a domain (read-only result; the shared rows, no counter per phrase)."""
    return _with_inversions(dict(document_phrase_rows(text)))


def _with_inversions(phrases: dict[str, SurfaceCounts]) -> dict[str, SurfaceCounts]:
    """Also count "auditing of krouplalive pelorings" as "krouplalive peloring auditing" (its base form),
    written as the text wrote it where the text never writes the base form ("chain of thought reasoning",
    not "thought reasoning chain")."""
    result = dict(phrases)
    for key in phrases:
        head, joiner, *rest = key.split() + ["", ""]
        if joiner == "of" and rest[0] and " of " not in f" {' '.join(rest)} ":
            result.setdefault(" ".join([*key.split()[2:], head]), phrases[key])
    return result


def _is_fragment(key: str, writers: list[dict[str, SurfaceCounts]]) -> bool:
    """Whether at least ``FRAGMENT_SHARE`` of the papers writing ``key`` (their phrases: ``writers``) write
    one longer base phrase (no joiner) around it: "matching distillation" inside "distribution matching
    distillation", "probabilistic models" inside "diffusion probabilistic models"."""
    padded = f" {key} "
    around: Counter[str] = Counter(other for phrases in writers for other in phrases
                                   if other != key and padded in f" {other} "
                                   and not JOINERS & set(other.split()))
    return bool(around) and max(around.values()) >= FRAGMENT_SHARE * len(writers)


def _near(text: str, bottleneck: set[str]) -> set[str]:
    """Phrase keys of the sentences that mention the bottleneck (most of its words) and of the next one."""
    sentences = split_sentences(text)
    keys: set[str] = set()
    for index, sentence in enumerate(sentences):
        words = set(phrase_key(sentence).split())
        if bottleneck and len(bottleneck & words) >= MATCH_THRESHOLD * len(bottleneck):
            for nearby in sentences[index:index + 2]:
                keys.update(text_phrases(nearby))
    return keys


def _eligible(words: list[str], domain: DomainEvidence, exclude: set[str]) -> bool:
    """Whether a phrase may be an opportunity: a base noun phrase (no joiner), not an evaluation quantity
    ("memory usage") nor a method's output ("generated frames") nor boilerplate ("project page", "paper
    presents", "percentage points", "four benchmarks"), not made only of domain-common words, and
    mostly of words outside the bottleneck (``exclude``)."""
    if JOINERS & set(words) or words[-1] in EVALUATIVE_HEADS or min(map(len, words)) < 3:
        return False
    if words[0] in NOT_FIRST_WORDS or words[0].isdigit() or words[-1] in BOILERPLATE_HEADS:
        return False
    if REPORTING_WORDS & set(words):
        return False
    if PROBLEM_HEADS.match(words[-1]) or words[-1] in PROCESS_HEADS:
        return False  # a problem ("error accumulation") is no opportunity
    if set(words) <= domain.common_tokens | CLOSED:
        return False
    return len(set(words) - exclude) >= len(words) / 2


def opportunity_phrases(domain: DomainEvidence, window: list[str], before: list[str],
                        exclude: set[str], min_support: int, bottleneck: str = "",
                        addressing: list[str] | None = None) -> list[tuple[str, int]]:
    """Full base noun phrases (no "of"/"for" compounds) of the node's window papers, over-represented
    against its pre-cutoff papers, each used by at least ``min_support`` window papers, mostly made of words
    outside the bottleneck (``exclude``), not an evaluation quantity ("success rate") and not made only of
    words common in the domain.

    The papers ``addressing`` the bottleneck (all window papers when None) must take the phrase up: at
    least ``MIN_TAKING_UP`` of them write it, at ``ASSOCIATION`` times the rate of the node's other window
    papers. A phrase the whole sub-direction turns to regardless of the bottleneck ("policy optimization"
    in video generation) is the node's trend, not what reducing the bottleneck opens.

    Ranked first by how many of the papers ``addressing`` the bottleneck write the phrase next to it (its
    sentence or the next: "now that X is reduced, we pursue Y"), then by how many of them write it, then by
    over-representation. A phrase is
    subsumed by a longer eligible phrase used as often, never by an ineligible one ("Y for Z" hides no "Y").
    A fragment (:func:`_is_fragment`) is dropped: the longer phrase it belongs to stands on its own where it
    is eligible ("distribution matching distillation", not "matching distillation"), and where it is not
    (mostly the bottleneck's words: "diffusion probabilistic models"), neither is its fragment.
    (The builder then drops phrases the public task already names: they are no post-cutoff opportunity.)"""
    focus = [text_phrases(domain.papers[paper_id].text) for paper_id in window]
    background = [text_phrases(domain.papers[paper_id].text) for paper_id in before]
    counts: Counter[str] = Counter(key for phrases in focus for key in phrases)
    prior: Counter[str] = Counter(key for phrases in background for key in phrases)
    wanted = {word for word in phrase_key(bottleneck).split() if word not in CLOSED}
    near: Counter[str] = Counter(key for paper_id in (window if addressing is None else addressing)
                                 for key in _near(domain.papers[paper_id].text, wanted))
    taking_up = set(window if addressing is None else addressing)
    used: Counter[str] = Counter(key for paper_id, phrases in zip(window, focus, strict=True)
                                 if paper_id in taking_up for key in phrases)
    others = max(1, len(focus) - len(taking_up))
    scored: list[tuple[int, int, float, str, int]] = []
    eligible = {key: count for key, count in counts.items()
                if count >= min_support and _eligible(key.split(), domain, exclude)}
    domain_sets = window_phrase_sets(domain, text_phrases)
    eligible = {key: count for key, count in eligible.items()
                if (lift := opportunity_lift(key, window, domain_sets)) is None
                or lift >= MIN_SPECIFICITY_LIFT}
    dropped = subsumed(eligible)
    for key, count in eligible.items():
        if key in dropped:
            continue
        share, prior_share = count / len(focus), (prior[key] + 1) / (len(background) + 1)
        taken_up = (used[key] >= MIN_TAKING_UP
                    and used[key] / len(taking_up) >= ASSOCIATION * (count - used[key]) / others)
        if share > prior_share and taken_up and not _is_fragment(
                key, [phrases for phrases in focus if key in phrases]):
            scored.append((near[key], used[key], share * math.log(share / prior_share), key, count))
    scored.sort(key=lambda item: (-item[0], -item[1], -item[2], item[3]))
    surfaces: dict[str, Counter[str]] = {}
    for phrases in focus:
        for key, forms in phrases.items():
            counts = surfaces.setdefault(key, Counter())
            for surface, occurrences in forms:
                counts[surface] += occurrences
    return [(surfaces[key].most_common(1)[0][0] if surfaces.get(key) else key, count)
            for _, _, _, key, count in scored[:4]]


def _coherent_opportunity(domain: DomainEvidence, evidence: NodeEvidence, subject: str, bottleneck: str,
                          opportunities: list[str]) -> tuple[list[str], dict[str, Any]]:
    """The opportunities with the first that passes the same-node check in front, and that check (the
    last one made when none passes; a subject or bottleneck outside the node fails them all)."""
    coherence: dict[str, Any] = {}
    for text in opportunities:
        coherence = node_coherence(domain, evidence, {"subject": subject, "bottleneck": bottleneck,
                                                      "opportunity": text})
        if coherence.get("passed") is not False:
            return [text, *(other for other in opportunities if other != text)], coherence
        if not (coherence["subject"]["belongs"] and coherence["bottleneck"]["belongs"]):
            break
    return opportunities, coherence


Scored = tuple[float, Signal, list[str], list[str], str]


def _belonging(domain: DomainEvidence, evidence: NodeEvidence, scored: list[Scored]) -> list[Scored]:
    """The scored bottlenecks that belong to the node (same-node check of subject and bottleneck phrase):
    the target and the persistence answer are both chosen among them, so a generic limitation closer to
    another node ("computational costs") neither becomes the answer nor hides the node's own one. All of
    them when the check cannot run (no embedder)."""
    name = display_name(evidence.node)
    kept = []
    for entry in scored:
        check = node_coherence(domain, evidence, {"subject": name, "bottleneck": entry[4]})
        if check.get("passed") is None:
            return scored
        if check["passed"]:
            kept.append(entry)
    return kept


Candidate = tuple[Signal, str, frozenset[str], list[str]]
"""A bottleneck as it stands at the cutoff: its signal, limitation phrase, the node's own marker words of
it and the node's pre-cutoff papers mentioning it."""


def pre_cutoff_bottlenecks(domain: DomainEvidence, evidence: NodeEvidence) -> list[Candidate]:
    """The node's limitation signals with marker words of its own (:func:`node_markers`) and their
    pre-cutoff mentions: everything about a candidate bottleneck that the cutoff already fixes."""
    found: list[Candidate] = []
    for signal, phrase in limitation_signals(evidence, domain.cutoff, domain):
        own = node_markers(phrase, evidence, domain)
        if own:
            found.append((signal, phrase, own, mentions(signal, domain, evidence.pre_ids, own)))
    return found


def window_pool(domain: DomainEvidence, evidence: NodeEvidence, candidates: list[Candidate]) -> list[Scored]:
    """Each candidate with its window mentions and its log growth of mention share (add-one)."""
    pool: list[Scored] = []
    for signal, phrase, own, before in candidates:
        after = mentions(signal, domain, evidence.window_ids, own)
        growth = math.log(((len(after) + 1) / (evidence.window + 1))
                          / ((len(before) + 1) / (evidence.pre_total + 1)))
        pool.append((growth, signal, before, after, phrase))
    return pool


def rising_bottlenecks(evidence: NodeEvidence, pool: list[Scored], settings: TaskSettings) -> list[Scored]:
    """The target's pool: addressed by at least ``min_addressing_papers`` window papers, not a problem of
    every method, with a rise of mention share (:func:`rise_test`); fastest growth first."""
    scored = [entry for entry in pool if len(entry[3]) >= settings.min_addressing_papers
              and not any_methods_problem(entry[4])
              and rises(rise_test(len(entry[2]), evidence.pre_total, len(entry[3]), evidence.window))]
    scored.sort(key=lambda entry: (-entry[0], entry[1].text))
    return scored


def bottleneck_public_task(domain: DomainEvidence, evidence: NodeEvidence, domain_name: str,
                           identifier: str) -> Task:
    """The public task of a node (pre-cutoff facts only: its name, description, size, key terms and
    recurring limitations)."""
    name = display_name(evidence.node)
    window = domain.window
    title, question = bottleneck_question(domain_name, name, window.cutoff, window.start, window.end)
    signals_public = [text for _, text in limitation_signals(evidence, domain.cutoff, domain)][:6]
    return Task(task_id=identifier, family=FAMILY, domain=domain.domain, cutoff=window.cutoff,
                horizon=window.horizon, window_start=window.start, window_end=window.end, title=title,
                question=question,
                context={"domain_name": domain_name, "subdirection": name,
                         "description": "; ".join(filter(None, [
                             name_evidence_text(evidence.node, domain.papers, domain.cutoff),
                             node_description(evidence.node)])),
                         "pre_cutoff_papers": evidence.pre_total,
                         "key_terms": list(evidence.node.key_terms[:8]),
                         "recurring_limitations_before_cutoff": signals_public},
                deliverable=list(get_family(FAMILY).deliverables))


def window_opportunities(domain: DomainEvidence, evidence: NodeEvidence, settings: TaskSettings,
                         scored: list[Scored], task: Task) -> list[tuple[str, int]]:
    """The opportunities the window papers addressing the winning bottleneck take up
    (:func:`opportunity_phrases`), less those the public task already names."""
    _, _, _, addressing, phrase = scored[0]
    signals = [*node_bottlenecks(evidence), *(entry[1] for entry in scored)]
    bottleneck_words = {word for signal in signals
                        for word in phrase_key(" ".join([signal.text, *signal.variants])).split()}
    found = opportunity_phrases(domain, evidence.window_ids, evidence.pre_ids, bottleneck_words,
                                max(MIN_OPPORTUNITY_PAPERS, settings.min_addressing_papers), phrase,
                                addressing)
    public = " ".join(public_strings(task)).lower()
    return [(text, count) for text, count in found if text.lower() not in public]


def bottleneck_target(domain: DomainEvidence, evidence: NodeEvidence, identifier: str, pool: list[Scored],
                      scored: list[Scored], found: list[tuple[str, int]], opportunity: list[str],
                      coherence: dict[str, Any]) -> BottleneckTarget:
    """The hidden target: the fastest-rising bottleneck ``scored[0]`` and, where ``opportunity`` holds
    any, the opportunity it opens (bottleneck slots and claims only when it is empty)."""
    growth, primary, before, addressing, phrase = scored[0]
    rise = rise_test(len(before), evidence.pre_total, len(addressing), evidence.window)
    name = display_name(evidence.node)
    persistence = max(pool, key=lambda entry: (len(entry[2]), entry[1].count, entry[1].text))
    bottleneck = list(dict.fromkeys([phrase, primary.text,
                                     *(core_phrase(text) for text in primary.variants)]))
    counts = (f"{len(addressing)} of the {evidence.window} window papers of the sub-direction address the "
              f"bottleneck, against {len(before)} of {evidence.pre_total} before (a rise: one-sided "
              f"two-proportion test, p = {rise['p']:.3f}).")
    if opportunity:
        mechanism = (f"Papers in {name} that reduce '{phrase}' during the window go on to pursue "
                     f"'{opportunity[0]}'; {counts}")
        slots = [Slot(name="bottleneck", variants=bottleneck),
                 Slot(name="opportunity", variants=opportunity),
                 Slot(name="mechanism", variants=[mechanism, f"reducing {phrase} enables {opportunity[0]}"])]
        opens = [Claim(claim_id="c2", text=f"Reducing {phrase} opens {opportunity[0]}.",
                       variants=[f"Reducing the bottleneck opens {gram}." for gram in opportunity[1:]])]
    else:
        mechanism = f"Papers in {name} turn to '{phrase}' during the window; {counts}"
        slots = [Slot(name="bottleneck", variants=bottleneck)]
        opens = []
    stats: dict[str, Any] = {
        "node_id": evidence.node_id, "bottleneck_growth": round(growth, 4),
        "addressing_papers": len(addressing), "pre_mentions": len(before),
        "signals": {entry[1].text: {"pre": len(entry[2]), "window": len(entry[3]),
                                    "log_growth": round(entry[0], 4)} for entry in scored},
        "persistence_answer": persistence[1].text, "persistence_match": persistence[1] is primary,
        "rise_test": rise,
        "opportunity_lift": {text: round(lift, 3) for text in opportunity
                             if (lift := opportunity_lift(phrase_key(text), evidence.window_ids,
                                                          window_phrase_sets(domain, text_phrases)))
                             is not None},
        "opportunity_support": dict(found), "same_node_check": coherence,
        "post_cutoff_terms": opportunity}
    return BottleneckTarget(
        task_id=identifier, family=FAMILY, bottleneck=bottleneck,
        opportunity=opportunity, mechanism=mechanism, slots=slots,
        claims=[Claim(claim_id="c1", text=f"The root bottleneck of {name} is {phrase}.",
                      variants=bottleneck[1:]),
                *opens,
                Claim(claim_id="c3", text=(f"Work addressing {phrase} grows in {name} after the cutoff "
                                           f"({len(addressing)} window papers)."))],
        evidence_ids=addressing[:20], stats=stats)


def _build_one(domain: DomainEvidence, evidence: NodeEvidence, settings: TaskSettings,
               domain_name: str) -> Built | None:
    pool = window_pool(domain, evidence, pre_cutoff_bottlenecks(domain, evidence))
    if not any(len(entry[3]) >= settings.min_addressing_papers for entry in pool):
        return None
    pool = _belonging(domain, evidence, pool)
    scored = rising_bottlenecks(evidence, pool, settings)
    if not scored:
        return None
    window = domain.window
    key = (f"{window.horizon}:{scored[0][4].lower()}",)
    identifier = task_id(FAMILY, domain.domain, window.horizon, key, window.cutoff.isoformat())
    task = bottleneck_public_task(domain, evidence, domain_name, identifier)
    found = window_opportunities(domain, evidence, settings, scored, task)
    if not found:
        return None
    opportunity, coherence = _coherent_opportunity(domain, evidence, display_name(evidence.node),
                                                   scored[0][4], [text for text, _ in found])
    if coherence.get("passed") is False:
        return None
    hidden = bottleneck_target(domain, evidence, identifier, pool, scored, found, opportunity, coherence)
    persistence = max(pool, key=lambda entry: (len(entry[2]), entry[1].count, entry[1].text))
    return Built(task=task, hidden=hidden, decision_key=key, persistence_match=persistence[1] is scored[0][1])
