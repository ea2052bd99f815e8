"""Rule-based English noun-phrase chunking for naming nodes and opportunities.

Part-of-speech possibilities come from the lemminflect lexicon (shipped inside its PyPI wheel, no model
download); closed-class words (determiners, prepositions, pronouns, auxiliaries) are listed here. A base
noun phrase is a run of modifiers (adjectives, nouns, ``-ed`` participles, words the lexicon does not know
such as "LLM" or "tool-use") ending on a noun; two base phrases joined by "of", "for", "via", "with", "in",
"on", "under", "across" or "from" form one compound phrase ("reinforcement learning for web agents").
Words the lexicon knows only as verbs or adverbs break a phrase, so "LLMs require domain expertise" yields
"domain expertise", never "require domain expertise".

Phrases are compared by *key*: lower-case, hyphens as spaces, nouns singular, so "Vision-Language Models"
and "vision language model" match ("near-verbatim").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from foresci.taxonomy.phrase_store import active, row_key

_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:['’][A-Za-z]+)?(?:-[A-Za-z0-9]+)*|\d+(?:\.\d+)?%?|"
                    r"[^\sA-Za-z0-9]")


def _words(text: str) -> list[str]:
    return text.split()


DETERMINERS = frozenset(_words(
    "a an the this that these those our their its his her my your each every some any such all both no "
    "another either neither which what whose whichever"))
JOINERS = frozenset(_words(
    "of for via with in on under across from without"))
CLOSED = frozenset(_words(
    "and or but nor yet so if then than as at by to into onto upon about above below between among "
    "through during before after against toward towards within beyond is are was were be been being am "
    "can could may might will would shall should must do does did done has have had having it they we "
    "i you he she them us me him who whom whose which that there here when where while whereas whether "
    "how why not also only just very more most less least much many few however thus therefore hence "
    "although though because since until unless even still already often always never rather quite "
    "well e.g i.e etc vs versus via over off out up down per near like around along beside besides now "
    "then")) | DETERMINERS | JOINERS
GENERIC_MODIFIERS = frozenset(_words(
    "novel new proposed existing various different several many multiple significant comprehensive "
    "extensive simple effective recent current strong better best key crucial critical important overall "
    "specific particular certain other same first second main diverse general typical standard common "
    "popular prior previous traditional conventional advanced powerful promising remarkable superior "
    "substantial considerable impressive notable state-of-the-art sota further additional given whole "
    "entire full growing increasing emerging wide broad great large-scale underlying respective"))
GENERIC_HEADS = frozenset(_words(
    "approach method framework paper work study result performance experiment problem task issue way "
    "manner fact number variety range set lot kind type use case effectiveness improvement advantage "
    "benefit gain capability ability need importance role impact state art field area domain question "
    "aspect end part term line step challenge limitation solution insight finding advance advancement "
    "development progress potential effort"))
GERUND_VERBS = frozenset(_words(
    "using including leveraging enabling improving achieving providing making allowing showing yielding "
    "requiring following according regarding existing combining building introducing proposing "
    "presenting addressing demonstrating exploring investigating incorporating utilizing utilising "
    "employing integrating outperforming maintaining reducing increasing ensuring capturing generating "
    "producing performing considering focusing relying enhancing boosting advancing rethinking unlocking "
    "bridging mitigating evaluating benchmarking revisiting exploiting harnessing empowering unifying "
    "facilitating optimizing optimising accelerating assessing analyzing analysing probing measuring "
    "quantifying characterizing towards toward boosts enhances"))
VERB_LIKE = frozenset(_words(
    "struggle struggles fail fails lack lacks suffer suffers remain remains rely relies need needs require "
    "requires show shows focus focuses aim aims help helps lead leads tend tends face faces offer offers "
    "enable enables yield yields exhibit exhibits hinder hinders cause causes exist exists provide provides "
    "achieve achieves improve improves reduce reduces increase increases allow allows perform performs "
    "outperform outperforms remains serve serves"))
_PARTICIPLE_SUFFIXES = ("ed", "en")
_WORD_CACHE = 1 << 18  # distinct written words remembered by the per-word caches below
SurfaceCounts = tuple[tuple[str, int], ...]  # (surface form, count) of one phrase in one text
PhraseRows = tuple[tuple[str, SurfaceCounts], ...]  # (key, ((surface, count), ...)) per phrase
_LEADING_TRIM = GENERIC_MODIFIERS | GERUND_VERBS  # words trimmed from the start of a base phrase


@lru_cache(maxsize=_WORD_CACHE)
def _lexicon(word: str) -> frozenset[str]:
    """Universal POS tags lemminflect knows for ``word`` (empty: unknown word)."""
    from lemminflect import getAllLemmas

    return frozenset(getAllLemmas(word))


@lru_cache(maxsize=_WORD_CACHE)
def _noun_lemma(word: str) -> str:
    from lemminflect import getLemma

    lemmas = getLemma(word, upos="NOUN")
    return lemmas[0] if lemmas else word


@dataclass(frozen=True)
class Token:
    """One token of a sentence and its coarse phrase role."""

    text: str
    lower: str
    role: str  # "noun", "mod" (modifier only), "gerund", "join", "break"


def _role(text: str) -> str:
    lower = text.lower()
    if not re.match(r"[a-z]", lower):
        return "break"
    if lower in JOINERS:
        return "join"
    if lower in CLOSED or lower in VERB_LIKE or len(lower) < 2:
        return "break"
    if "-" in lower or any(char.isdigit() for char in lower) or _keeps_case(text):
        return "noun"
    tags = _lexicon(lower)
    if not tags:
        return "noun"
    if "NOUN" in tags or "PROPN" in tags:
        return "noun"
    if "ADJ" in tags:
        return "mod"
    if lower.endswith("ing") and lower not in GERUND_VERBS:
        return "gerund"
    if tags <= {"VERB", "AUX"} and lower.endswith(_PARTICIPLE_SUFFIXES):
        return "mod"
    return "break"


@lru_cache(maxsize=_WORD_CACHE)
def _token(text: str) -> Token:
    """The token of one written word (tokens are immutable, so one instance serves every occurrence)."""
    return Token(text=text, lower=text.lower(), role=_role(text))


def tokenize(text: str) -> list[Token]:
    """Tokens of ``text`` with their phrase roles (punctuation breaks phrases)."""
    return [_token(match) for match in _TOKEN.findall(text)]


@lru_cache(maxsize=_WORD_CACHE)
def word_key(word: str) -> str:
    """Comparison key of one word: lower case, hyphens as spaces, a plural noun made singular."""
    lower = word.lower().replace("’", "'")
    parts = lower.split("-")
    parts[-1] = _noun_lemma(parts[-1]) if len(parts[-1]) > 3 and parts[-1].endswith("s") else parts[-1]
    return " ".join(part for part in parts if part)


def phrase_key(phrase: str) -> str:
    """Comparison key of a phrase (see :func:`word_key`)."""
    return " ".join(word_key(match) for match in _TOKEN.findall(phrase) if re.match(r"[A-Za-z0-9]", match))


_ROLE_CODES = {"noun": "n", "mod": "m", "gerund": "g", "join": "j", "break": "b"}
_RUN = re.compile(r"[nmg]+")  # a run of phrase words (noun, modifier, gerund) in a string of role codes


def _base_phrases(codes: str, words: Sequence[str]) -> list[tuple[int, int]]:
    """(start, end) spans of base noun phrases: modifiers then a noun head, generic modifiers trimmed.

    ``codes``: one role code per token (:data:`_ROLE_CODES`); ``words``: the tokens as written."""
    spans: list[tuple[int, int]] = []
    for run in _RUN.finditer(codes):
        start, stop = run.span()
        while start < stop and (words[start].lower() in _LEADING_TRIM
                                or codes[start] == "g" and start + 1 < stop and codes[start + 1] != "n"):
            start += 1
        while stop > start and not _is_head(codes, words, start, stop - 1):
            stop -= 1
        if stop > start:
            spans.append((start, stop))
    return spans


def _is_head(codes: str, words: Sequence[str], start: int, position: int) -> bool:
    """Nouns head a phrase; so does a gerund after a modifier ("visual prompting") or before "of"
    ("auditing of pelorings")."""
    code = codes[position]
    if code == "n":
        return True
    return code == "g" and (position > start
                            or position + 1 < len(words) and words[position + 1].lower() == "of")


@dataclass(frozen=True)
class Phrase:
    """A candidate noun phrase: its words as written and its comparison key."""

    text: str
    key: str

    @property
    def words(self) -> int:
        """Number of words."""
        return len(self.text.split())


def _keeps_case(word: str) -> bool:
    """Acronym-like words keep their case ('LLM', 'LoRA', 'GPT-4'); others are lower-cased."""
    return any(sum(char.isupper() for char in part) >= 2 for part in word.split("-"))


@lru_cache(maxsize=_WORD_CACHE)
def _surface_word(text: str) -> str:
    return text if _keeps_case(text) else text.lower()


def _phrase_spans(tokens: Sequence[Token], max_words: int) -> list[tuple[int, int]]:
    """(begin, stop) token spans of the noun phrases of one token run, in the order of
    :func:`sentence_phrases`: base phrases and their right-anchored suffixes, then compounds."""
    return _code_spans("".join(_ROLE_CODES[token.role] for token in tokens), [token.text for token in tokens],
                       max_words)


def _code_spans(codes: str, words: Sequence[str], max_words: int) -> list[tuple[int, int]]:
    """:func:`_phrase_spans` of tokens given by their role codes and written forms."""
    spans = _base_phrases(codes, words)
    found: list[tuple[int, int]] = []
    for start, stop in spans:
        found.extend((begin, stop) for begin in range(max(start, stop - max_words), stop))
    for (first_start, first_stop), (second_start, second_stop) in zip(spans, spans[1:], strict=False):
        if second_start - first_stop != 1 or codes[first_stop] != "j":
            continue
        found.extend((begin, second_stop) for begin in range(max(first_start, second_stop - max_words),
                                                               first_stop))
    return found


def _span_words(tokens: Sequence[Token]) -> tuple[list[str], list[str]]:
    """Each token's written form in a phrase and its comparison key (a span joins a slice of each)."""
    return [_surface_word(token.text) for token in tokens], [word_key(token.text) for token in tokens]


def sentence_phrases(tokens: Sequence[Token], max_words: int = 8) -> list[Phrase]:
    """Noun phrases of one token run: base phrases, their right-anchored suffixes, and compounds."""
    spans = _phrase_spans(tokens, max_words)
    if not spans:
        return []
    surfaces, keys = _span_words(tokens)
    return [Phrase(text=" ".join(surfaces[begin:stop]), key=" ".join(keys[begin:stop]))
            for begin, stop in spans]


def noun_phrases(text: str, min_words: int = 1, max_words: int = 8) -> list[Phrase]:
    """All noun phrases of ``text`` with ``min_words``..``max_words`` words, in text order (repeats kept)."""
    return [phrase for phrase in sentence_phrases(tokenize(text), max_words)
            if min_words <= phrase.words <= max_words]


def is_generic(phrase: Phrase) -> bool:
    """True for phrases whose head is a generic word ('the proposed approach', 'downstream task', 'core
    problem in X')."""
    return _generic_key(phrase.key)


@lru_cache(maxsize=1 << 16)
def _generic_key(key: str) -> bool:
    words = key.split()
    if not words:
        return True
    heads = [word for word, after in zip(words, [*words[1:], ""], strict=True)
             if after in JOINERS or not after]
    return any(head in GENERIC_HEADS for head in heads) or all(
        word in GENERIC_MODIFIERS or word in GENERIC_HEADS for word in words)


def is_noun_phrase(text: str, min_words: int = 2, max_words: int = 8) -> bool:
    """True when ``text`` as a whole is one noun phrase of ``min_words``..``max_words`` words."""
    tokens = tokenize(text)
    if not min_words <= len([token for token in tokens if token.role != "break"]) <= max_words:
        return False
    key = phrase_key(text)
    return any(phrase.key == key for phrase in sentence_phrases(tokens, max_words))


def text_keys(text: str) -> list[str]:
    """Word keys of a text in order, with a sentinel at punctuation (so phrases never span it)."""
    keys: list[str] = []
    for match in _TOKEN.findall(text):
        if re.match(r"[A-Za-z0-9]", match):
            keys.extend(word_key(match).split())
        elif match in ".,;:!?()[]{}\"":
            keys.append("|")
    return keys


def contains_phrase(text_key_list: Sequence[str], key: str) -> bool:
    """True when the phrase ``key`` occurs contiguously in a text's word keys (near-verbatim match)."""
    wanted = key.split()
    if not wanted:
        return False
    size = len(wanted)
    first = wanted[0]
    return any(text_key_list[index:index + size] == wanted
               for index, word in enumerate(text_key_list) if word == first)


def phrase_support(key: str, texts: Iterable[str]) -> int:
    """Number of texts containing the phrase near-verbatim."""
    return sum(contains_phrase(text_keys(text), key) for text in texts)


def document_phrase_rows(text: str, min_words: int = 2, max_words: int = 8) -> PhraseRows:
    """:func:`document_phrases` as (key, ((surface, count), ...)) rows in the same order, shared and
    immutable (no per-call dictionaries: for readers of keys and surfaces only)."""
    return _document_phrase_rows(text, min_words, max_words)


def document_phrases(text: str, min_words: int = 2, max_words: int = 8) -> dict[str, Counter[str]]:
    """Phrase key -> counts of its surface forms in one document (generic phrases dropped)."""
    return {key: _counter(forms) for key, forms in _document_phrase_rows(text, min_words, max_words)}


def _counter(forms: SurfaceCounts) -> Counter[str]:
    """``Counter(dict(forms))`` filled by ``dict.update`` (no per-item Python code; the same counter)."""
    counts: Counter[str] = Counter()
    dict.update(counts, forms)
    return counts


class _WordTable(dict[str, str]):
    """Written word -> one of its per-word values (``compute``), filled on first sight, emptied past
    ``_WORD_CACHE`` words; read with ``map`` so a text costs no Python call per known word."""

    def __init__(self, compute: Callable[[str], str]) -> None:
        super().__init__()
        self.compute = compute

    def __missing__(self, word: str) -> str:
        if len(self) >= _WORD_CACHE:
            self.clear()
        value = self[word] = self.compute(word)
        return value


class _GenericKeys(dict[str, bool]):
    """Phrase key -> :func:`_generic_key`, filled on first sight, emptied past ``_WORD_CACHE`` keys."""

    def __missing__(self, key: str) -> bool:
        if len(self) >= _WORD_CACHE:
            self.clear()
        value = self[key] = _generic_key(key)
        return value


_CODES = _WordTable(lambda word: _ROLE_CODES[_token(word).role])
_KEYS = _WordTable(word_key)
_SURFACES = _WordTable(_surface_word)
_GENERIC_KEYS = _GenericKeys()


WIDEST_ROWS = (2, 8)
"""The word limits every text's phrases are extracted with once (taxonomy naming and the bottleneck builder
read these; narrower limits, such as concept emergence's 2..4, are cut from them: :func:`narrowed_rows`)."""


@lru_cache(maxsize=32768)
def _document_phrase_rows(text: str, min_words: int, max_words: int) -> PhraseRows:
    """:func:`document_phrases` as immutable rows, remembered for the last 32,768 (text, limits): release
    builders read the same abstracts once per node and window, after naming read them for every domain
    (about 10 KB a text; at 8,192 the real KB's four domains evicted each other between naming and the
    bottleneck builder: `tasks build` at 2025-12-31 from scratch took 67.6 s, then 57.0 s at 32,768).

    Limits within :data:`WIDEST_ROWS` are cut from the text's widest rows (extracted once per text, shared by
    every reader and every word limit) where :func:`narrowed_rows` can; otherwise extracted
    (:func:`_extracted_rows`)."""
    widest_min, widest_max = WIDEST_ROWS
    if (min_words, max_words) != WIDEST_ROWS and widest_min <= min_words and max_words <= widest_max:
        narrowed = narrowed_rows(_document_phrase_rows(text, widest_min, widest_max), min_words, max_words)
        if narrowed is not None:
            return narrowed
    return _extracted_rows(text, min_words, max_words)


def narrowed_rows(rows: PhraseRows, min_words: int, max_words: int) -> PhraseRows | None:
    """The rows a narrower word limit gives, cut from ``rows`` (a text's rows at wider limits); None when
    that cannot be read from them exactly.

    A surface form's words are its tokens (a token holds no space), so each (key, surface) pair knows the
    token span it came from: pairs outside ``min_words..max_words`` are dropped, counts and first-seen
    order kept. Where a key keeps some surface forms and loses others, its first occurrence may move past
    another key's: the rows are then not read from ``rows`` (None) but extracted anew."""
    narrowed: list[tuple[str, SurfaceCounts]] = []
    for key, forms in rows:
        kept = tuple([form for form in forms if min_words <= form[0].count(" ") + 1 <= max_words])
        if len(kept) != len(forms):
            if kept:
                return None
            continue
        narrowed.append((key, forms))
    return tuple(narrowed)


def _extracted_rows(text: str, min_words: int, max_words: int) -> PhraseRows:
    """:func:`_mined_rows`, read from the active phrase store when it holds them (and kept there when not:
    :mod:`foresci.taxonomy.phrase_store`, a round's opening mines each text once across rounds)."""
    store = active()
    if store is None:
        return _mined_rows(text, min_words, max_words)
    key = row_key(text, min_words, max_words)
    rows: PhraseRows | None = store.get(key)
    if rows is None:
        rows = _mined_rows(text, min_words, max_words)
        store.put(key, rows)
    return rows


def _mined_rows(text: str, min_words: int, max_words: int) -> PhraseRows:
    """:func:`document_phrases` as immutable rows, extracted from the text.

    The same phrases, in the same order, as :func:`_phrase_spans` over :func:`tokenize` gives (a token is
    one word of a phrase), read from per-word tables (:class:`_WordTable`) and role codes matched as a
    string instead of through :class:`Token` objects."""
    words = _TOKEN.findall(text)
    codes = "".join(map(_CODES.__getitem__, words))
    spans = _code_spans(codes, words, max_words)
    if not spans:
        return ()
    keys = list(map(_KEYS.__getitem__, words))
    surfaces = list(map(_SURFACES.__getitem__, words))
    generic = _GENERIC_KEYS
    pairs: list[tuple[str, str]] = []
    for begin, stop in spans:
        if stop - begin >= min_words:
            key = " ".join(keys[begin:stop])
            if not generic[key]:
                pairs.append((key, " ".join(surfaces[begin:stop])))
    found: dict[str, dict[str, int]] = {}
    # (key, surface) pairs counted in C; first occurrences keep the order a per-key count would have
    for (key, surface), count in Counter(pairs).items():
        forms = found.get(key)
        if forms is None:
            found[key] = {surface: count}
        else:
            forms[surface] = count
    return tuple([(key, tuple(forms.items())) for key, forms in found.items()])


def subsumed(counts: Mapping[str, int]) -> set[str]:
    """Keys contained in a longer key that is used at least as often (the longer phrase says more).

    Keys are words joined by single spaces, so "contained" is a run of a longer key's words: each key's
    shorter runs are listed once with the highest count of a key holding them (linear in the keys, where
    comparing every pair was quadratic)."""
    best: dict[str, int] = {}
    for other, count in counts.items():
        words = other.split()
        size = len(words)
        for begin in range(size):
            for end in range(begin + 1, size + 1 if begin else size):
                part = " ".join(words[begin:end])
                if best.get(part, -1) < count:
                    best[part] = count
    return {key for key, count in counts.items() if key in best and best[key] >= count}
