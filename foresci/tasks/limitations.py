"""Limitation extraction from abstracts: the limitations a paper states, never its results.

A sentence is a limitation statement when it carries a limitation cue ("suffer from", "struggle to",
"remains challenging", "costly", "lack of", "prone to", ...) and no result or contribution marker ("we
propose", "our method", "outperforms", "achieves", "% improvement", ...). One exception keeps the motive of
a contribution: "To address the high cost of X, we propose Y" yields "the high cost of X", and so does
"we propose Y to mitigate the high cost of X" (a motive named mid-sentence). Each statement is trimmed to
the clause that names the limitation (see :func:`limitation_clause`).

Praise of the field is no limitation ("Recent advances in X have enabled Y"); when a contrast follows
("..., but Z remains challenging"), only what follows it is. A result not obtained ("fail to achieve",
"demonstrate limited") is no result; a remedy ("which can relieve the burden") is no limitation.

Measured against the LLM-extracted problem statements and limitations of the ResearchForesight KB layer by
``benchmarks/quality.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from foresci.taxonomy.phrases import is_noun_phrase
from foresci.taxonomy.signals import split_sentences

_CUES_TEXT = (
    r"\b(suffers?|suffering|struggles?|struggling|fails?|failing|lacks?|lacking|lack of|limited|"
    r"limitations?|limits|bottlenecks?|bottlenecked|shortcomings?|drawbacks?|weakness(?:es)?|challenges?|"
    r"challenging|difficult(?:y|ies)?|hard to|costly|expensive|prohibitive(?:ly)?|inefficien(?:t|cy)|"
    r"overhead|hinders?|hindered|hampers?|hampered|impedes?|prone to|vulnerab(?:le|ility)|susceptib\w+|"
    r"unreliab\w+|brittle|fragile|unstable|instability|insufficient|inadequate|scarce|scarcity|"
    r"overlooks?|overlooked|ignores?|ignored|neglects?|neglected|poorly|degrades?|degradation|"
    r"hallucinat\w+|inconsisten\w+|unexplored|underexplored|under-explored|unclear|open (?:problem|"
    r"question|challenge)|error accumulation|catastrophic forgetting|overfit\w*|bias(?:es|ed)?|"
    r"restrict(?:s|ed|ive)?|constrain(?:s|ed|t|ts)|impractical|infeasible|not (?:scal\w+|robust|"
    r"generaliz\w+|suitable|sufficient|reliable)|remains? (?:a |an )?(?:major |key |significant |"
    r"critical |fundamental |central )?(?:issue|problem|obstacle|concern|gap)|penalty|trade-?offs?|impair\w*|"
    r"burden\w*|flaws?|limiting|concerns?|risks?|deviat\w+|"
    r"rel(?:y|ies) (?:heavily |mainly |solely |only )?on|"
    r"existing \w+(?: \w+)? (?:typically|often|usually|mainly|mostly|only|still|either|rarely)|"
    r"not (?:yet )?(?:been )?(?:well |fully |thoroughly |systematically |conclusively |adequately |"
    r"sufficiently )?(?:established|studied|explored|addressed|understood|investigated|examined)|"
    r"cannot|can not|unable to|inability|incapable|fall(?:s|ing)? short|lag(?:s|ging)? behind|"
    r"underperform\w*|sub-?optimal|time-consuming|labou?r-intensive|error-prone|resource-intensive|"
    r"computationally (?:intensive|demanding|heavy)|spurious|"
    r"(?:demand|require)s? (?:significant|substantial|extensive|massive|considerable|large|costly|"
    r"expensive|manual|careful)|do(?:es)? not (?:\w+ )?(?:utilize|use|exploit|consider|capture|account|"
    r"model|address|scale|generalize|support|handle|leverage|incorporate|reflect|guarantee|transfer)|"
    r"(?:most|many) (?:existing|current|prior|previous) \w+)\b")


class LowerCasedPattern:
    """A lower-case pattern that ignores case: an ASCII text is lower-cased and searched without
    ``re.IGNORECASE`` (the same verdict, about 4x faster for a long alternation such as :data:`CUES`); any
    other text is searched with the flag. Only says whether the pattern occurs (no match positions)."""

    def __init__(self, pattern: str) -> None:
        if pattern != pattern.lower() or not pattern.isascii():
            raise ValueError(f"pattern {pattern[:40]!r}...: not all lower-case ASCII (an escape such as \\S "
                             "would change meaning)")
        self.pattern = re.compile(pattern)
        self.ignoring_case = re.compile(pattern, re.IGNORECASE)

    def search(self, text: str) -> bool:
        """Whether the pattern occurs in ``text``, case ignored."""
        if text.isascii():
            return self.pattern.search(text.lower()) is not None
        return self.ignoring_case.search(text) is not None


CUES = LowerCasedPattern(_CUES_TEXT)
RESULT = LowerCasedPattern(
    r"\b(we|our|ours|us)\b|\b(this|the present) (paper|work|study|article)\b|\b(outperform\w*|surpass\w*|"
    r"achiev\w+|attain\w*|state-of-the-art|sota|experiments?|empirical(?:ly)?|results? (?:show|demonstrate|"
    r"indicate|reveal)|demonstrat\w+|yields?|improv(?:es|ed|ement|ements)|boost\w*|gains?)\b|\d+(?:\.\d+)?\s?\\?%"
    r"|\b(?:code|data|models?) (?:is|are) (?:publicly )?available\b"
    # a problem measured absent is a result: "resulted in negligible performance degradation"
    r"|\b(?:negligible|marginal|minimal|little to no|no noticeable|no significant)\s+(?:[\w-]+\s+){0,2}?"
    r"(?:degradation|loss|drop|overhead|cost|costs|errors?|latency)\b")
MOTIVE = re.compile(
    r"^\s*(?:to|in order to)\s+(?:further |better |effectively |jointly )?(?:address|tackle|overcome|"
    r"mitigate|alleviate|resolve|bridge|close|reduce|remedy|solve|handle|fill)\s+(?P<motive>.+?),\s*"
    r"(?:we|this|our)\b",
    re.IGNORECASE)
# the motive of a contribution inside a sentence: "we propose X to mitigate <motive> by ..."
INNER_MOTIVE = re.compile(
    r"\b(?:to|that|which)\s+"
    r"(?:further |better |effectively |explicitly |jointly )?(?:address(?:es)?|"
    r"tackles?|overcomes?|mitigates?|alleviates?|resolves?|remed(?:y|ies)|eliminates?|circumvents?|"
    r"combats?|counteracts?)\s+(?P<motive>[^,;:()]+?)(?=\s*[,;:()]|\s+(?:by|through|via|while|whereby|"
    r"thereby|using|with|without|and (?:thus|thereby|enables?|improves?|achieves?))\b|\s*$)",
    re.IGNORECASE)
# results not obtained are no results: "fail to achieve", "demonstrate limited", "requires X to achieve"
UNOBTAINED = re.compile(
    r"\b(?:fail\w*|unable|struggl\w*|difficult|hard|cannot|can not|not|no longer|without|rarely|lack\w*|"
    r"inability)\s+(?:\w+\s+){0,3}?(?:achiev|attain|improv|yield|demonstrat|surpass|outperform|boost|"
    r"tackl|address|handl|resolv|overcom|mitigat|alleviat|eliminat)\w*|"
    r"\bto\s+(?:achieve|attain|improve|boost|surpass|outperform|yield|demonstrate)\b(?:\s+[\w-]+){0,3}|"
    r"\b(?:demonstrat|exhibit|show)\w*\s+(?:limited|poor|weak|insufficient|inferior|degraded|suboptimal|"
    r"unstable|inconsistent)\b",
    re.IGNORECASE)
# a sentence describing a remedy, not a limitation ("which can relieve the burden", "to overcome X")
SOLVES = LowerCasedPattern(
    r"\b(?:reliev\w+|alleviat\w+|mitigat\w+|overcom\w+|resolv\w+|eliminat\w+|remed(?:y|ies|ied)|"
    r"circumvent\w*|tackl\w+|(?:thus|thereby|to|can|will|which|and) reduc\w+)\b"
    # lowering a cost is a remedy: "USM significantly lowers computational overhead"
    r"|\b(?:lower(?:s|ing)?|reduc(?:es|ing)|cuts?|cutting|minimi[sz](?:es|ing)|decreas(?:es|ing))\s+"
    r"(?:the\s+|its\s+)?(?:[\w-]+\s+){0,2}?(?:overhead|costs?|latency|burden|footprint|consumption)\b")
# a contrast inside a sentence: what follows it is the limitation ("X has enabled Y, but Z remains hard")
CONTRAST_SPLIT = re.compile(
    r",\s*yet\s+(?!also\b|not\b)|(?:,\s*|\s+)but\s+(?!also\b|not\b)|"
    r"[,;]\s*(?:however|whereas|nevertheless|nonetheless)"
    r"\s*,?\s+", re.IGNORECASE)
# progress that raises a problem is no praise ("The rapid advancement of X has raised concerns about Y")
RAISES = re.compile(r"\b(?:rais(?:e|es|ed|ing)|pos(?:e|es|ed|ing)|brings?|brought|introduc\w+)\s+"
                    r"(?:\w+\s+){0,2}(?:concerns?|challenges?|risks?|questions?|issues?|problems?)\b",
                    re.IGNORECASE)
# a clause without its own subject ("..., but often suffer from X"): it takes the subject of the sentence
PREDICATE_START = re.compile(
    r"^(?:(?:often|still|also|usually|typically|largely|frequently|heavily|generally|remain|remains|are|is|"
    r"suffers?|struggles?|faces?|lacks?|fails?|tends?|have|has|can|cannot|do|does|introduces?|incurs?|"
    r"requires?|rel(?:y|ies)|overlooks?|ignores?|neglects?|exhibits?|yields?|produces?)\b)", re.IGNORECASE)
SUBJECT = re.compile(
    r"^(?P<subject>.+?)\s+(?:is|are|was|were|has|have|had|can|could|show|shows|shown|demonstrates?|"
    r"excels?|achieves?|enables?|offers?|provides?|becomes?|becoming|performs?|improves?|holds?|made|makes|"
    r"emerged|emerges|leverages?|utili[sz]es?|uses?|allows?)\b", re.IGNORECASE)
# a sentence praising the field: no limitation unless a contrast follows
POSITIVE_OPENER = re.compile(
    r"^(?:(?:the\s+)?(?:recent|rapid|remarkable|significant|impressive|substantial|tremendous|great)\s+"
    r"(?:\w+\s+)?(?:advances?|advancements?|progress|breakthroughs?|developments?|success(?:es)?|"
    r"improvements?)\b|.*\bha(?:s|ve)\s+(?:recently\s+)?(?:enabled|revolutionized|transformed|"
    r"achieved|shown (?:great|remarkable|impressive|strong|promising)|demonstrated (?:great|remarkable|"
    r"impressive|strong|promising)|emerged as))",
    re.IGNORECASE)
LEAD = re.compile(
    r"^(?:however|nevertheless|nonetheless|yet|but|unfortunately|moreover|furthermore|in addition|"
    r"additionally|meanwhile|still|despite (?:this|these|their \w+)|while (?:effective|promising|"
    r"powerful|successful))\s*,?\s*",
    re.IGNORECASE)
CONTRAST = re.compile(r"^(?:however|nevertheless|nonetheless|unfortunately|but|yet)\b", re.IGNORECASE)
CONCESSION = re.compile(r"^(?:although|though|even though|while|whilst|despite|in spite of)\b[^,]*,\s*",
                        re.IGNORECASE)
FINDING = re.compile(
    r"^.*?\b(?:we|our (?:analys[ie]s|study|experiments?|investigation|results?|findings?|evaluations?|"
    r"benchmark))\s+(?:\w+\s+)?"
    r"(?:identify|identifies|find|finds|found|observe|observes|note|notes|argue|argues|show|shows|reveal|"
    r"reveals|discover|discovers|highlight|highlights)\s+(?:that\s+)?",
    re.IGNORECASE)
GENERIC_INNER = re.compile(r"^(?:th(?:is|ese|ose|e above|e aforementioned)|such|both|all|each|it|its|their|"
                           r"them|the (?:\w+ )?(?:challenges?|issues?|problems?|limitations?|gaps?)$|"
                           r"(?:key|major|main|several|many|various) (?:challenges|issues|problems|"
                           r"limitations))\b", re.IGNORECASE)
CONTRIBUTION = re.compile(r"\b(?:we|our|this (?:paper|work|study)|propos\w+|introduc\w+|present\w*)\b",
                          re.IGNORECASE)
GENERIC_MOTIVE = re.compile(r"^(?:th(?:is|ese|ose) (?:issues?|limitations?|challenges?|problems?|gaps?|"
                            r"shortcomings?|drawbacks?)|them|it|this)$", re.IGNORECASE)


@dataclass(frozen=True)
class Limitation:
    """One limitation statement of a paper: the trimmed clause and the sentence it came from."""

    text: str
    sentence: str
    kind: str  # "stated": a limitation sentence; "motive": the problem a contribution addresses


def limitation_part(sentence: str) -> str | None:
    """The part of ``sentence`` that states a limitation, or None when it states none.

    A concessive opening ("While X has shown promise, ...") is dropped first; a reported finding ("we find
    that X struggles with Y") is reduced to what was found. What remains must carry a limitation cue (or
    open with "However"/"Unfortunately") and report no result or contribution.
    """
    text = CONCESSION.sub("", sentence.strip(), count=1)
    finding = FINDING.match(text)
    if finding:
        text = CONCESSION.sub("", text[finding.end():], count=1)
    contrast = CONTRAST_SPLIT.search(text)
    if contrast is not None and _stated(text[:contrast.start()]) is None:
        after = _stated(text[contrast.end():])
        if after is not None:
            subject = SUBJECT.match(text[:contrast.start()])
            if PREDICATE_START.match(after) and subject is not None and "," not in subject.group("subject"):
                return f"{subject.group('subject')} {after}"
            return after
    if POSITIVE_OPENER.match(text) and not RAISES.search(text):
        return None
    return _stated(text)


# what an evaluation covers is no limitation, whatever problems it lists ("These metrics span ..., social
# biases, ...", "The benchmark includes hallucination and bias tasks")
COVERAGE = re.compile(
    r"^(?:(?:these|the|this|such|its|their)\s+)?(?:[\w-]+\s+){0,2}(?:metrics?|measures?|benchmarks?|datasets?|"
    r"suites?|tasks?|dimensions?|categories|criteria|scenarios)\s+(?:spans?|covers?|includes?|encompass(?:es)?|"
    r"ranges?|comprises?|consists? of|assess(?:es)?|evaluates?|measures?)\b", re.IGNORECASE)


def _stated(text: str) -> str | None:
    """``text`` when it carries a limitation cue (or opens with a contrast) and reports no result (the cue is
    looked for first: most sentences have none, and the result checks are then not needed)."""
    if not (CONTRAST.match(text) or CUES.search(text)):
        return None
    obtained = UNOBTAINED.sub(" ", text)
    if len(text.split()) < 3 or RESULT.search(obtained) or SOLVES.search(obtained) or COVERAGE.match(text):
        return None
    return text


PROBLEM_HEADS = re.compile(
    r"(?:overrun|instabilit(?:y|ies)|drift|thrash\w*|overhead|leakage|saturation|collapse|forgetting|"
    r"hallucinations?|bias(?:es)?|gaps?|costs?|latency|noise|shifts?|mismatch(?:es)?|scarcity|sparsity|"
    r"redundancy|degradation|errors?|failures?|bottlenecks?|limitations?|inefficiency|vulnerabilit(?:y|ies)|"
    r"brittleness|inconsistency|conflicts?|ambiguity|uncertainty|misalignment|overfitting|explosion|"
    r"penalty|trade-?offs?|insensitivity|deficiency|shortage|lack|complexity)$", re.IGNORECASE)


def named_limitation(text: str) -> str | None:
    """The limitation a signal text names: a bare noun phrase naming a problem ("token budget overrun",
    "vector similarity gap", as in a KB layer's explicit limitations) is taken as it is, a bare topic
    ("medical question answering") is not; a sentence must state a limitation (:func:`limitation_part`)."""
    phrase = text.strip().rstrip(".")
    if is_noun_phrase(phrase, 2, 8) and not RESULT.search(phrase):
        head = phrase.split()[-1]
        return phrase if PROBLEM_HEADS.match(head) or CUES.search(phrase) else None
    return limitation_part(text)


def is_limitation(sentence: str) -> bool:
    """True when ``sentence`` states a limitation and reports no result or contribution."""
    return limitation_part(sentence) is not None


def limitation_clause(sentence: str) -> str:
    """The part of a limitation sentence that names the limitation: leading discourse words and trailing
    'which/while/thus ...' clauses removed, at most 40 words."""
    text = LEAD.sub("", sentence.strip())
    head = re.split(r"(?:,\s*|\s)(?:which|thereby|thus|hence|making it|leading to|resulting in|"
                    r"motivating|calling for)\b", text, maxsplit=1, flags=re.IGNORECASE)[0]
    if CUES.search(head) or not CUES.search(text):
        text = head  # the trailing clause goes unless only it names the limitation ("..., making it hard")
    words = text.rstrip(" .;:").split()
    return " ".join(words[:40])


def extract_limitations(abstract: str) -> list[Limitation]:
    """Limitation statements of one abstract, in text order (duplicates removed)."""
    found: list[Limitation] = []
    for sentence in split_sentences(abstract):
        if len(sentence) < 25:
            continue
        motive = MOTIVE.match(sentence)
        if motive and not GENERIC_MOTIVE.match(motive.group("motive").strip()):
            clause = motive.group("motive").strip()
            if len(clause.split()) >= 3 and not RESULT.search(clause):
                found.append(Limitation(text=clause, sentence=sentence, kind="motive"))
            continue
        part = limitation_part(sentence)
        if part is not None:
            found.append(Limitation(text=limitation_clause(part), sentence=sentence, kind="stated"))
            continue
        for inner in INNER_MOTIVE.finditer(sentence if CONTRIBUTION.search(sentence) else ""):
            clause = inner.group("motive").strip().rstrip(" .")
            if len(clause.split()) >= 2 and not RESULT.search(clause) and not GENERIC_INNER.match(clause):
                found.append(Limitation(text=clause, sentence=sentence, kind="motive"))
    unique: dict[str, Limitation] = {}
    for item in found:
        unique.setdefault(item.text.lower(), item)
    return list(unique.values())
