"""The fast per-document phrase extraction gives exactly what the Token-based path gives, and the
lower-cased cue matching gives the verdict of the IGNORECASE patterns."""

from __future__ import annotations

import random
import re
from collections import Counter
from datetime import date

import pytest

from foresci.kb.models import Paper
from foresci.taxonomy.phrases import (
    WIDEST_ROWS,
    PhraseRows,
    _document_phrase_rows,
    _generic_key,
    _phrase_spans,
    _span_words,
    document_phrases,
    narrowed_rows,
    subsumed,
    tokenize,
)
from foresci.taxonomy.signals import SIGNAL_KINDS, SignalPatterns, StatementExtractor, split_sentences

_WORD_TEXT = (
    "large language models LLMs Vision-Language Model auditing of krouplalive pelorings chain thought "
    "reasoning for web agents with retrieval-augmented generation the novel proposed approach suffers from "
    "high latency and GPT-4 LoRA fine-tuning improves 3.5% visual prompting diffusion models struggle to "
    "capture long-range dependencies in video frame interpolation existing methods lack support "
    "multi-object scenes under distribution shift across domains via token pruning")
WORDS = _WORD_TEXT.split()
PUNCTUATION = [",", ".", ";", "(", ")", ":", " -", "’s"]


def reference_rows(text: str, min_words: int, max_words: int) -> PhraseRows:
    """Document phrases through Token objects, as the extraction was first written."""
    tokens = tokenize(text)
    spans = [(begin, stop) for begin, stop in _phrase_spans(tokens, max_words) if min_words <= stop - begin]
    found: dict[str, Counter[str]] = {}
    surfaces, keys = _span_words(tokens)
    for begin, stop in spans:
        key = " ".join(keys[begin:stop])
        if not _generic_key(key):
            found.setdefault(key, Counter())[" ".join(surfaces[begin:stop])] += 1
    return tuple((key, tuple(forms.items())) for key, forms in found.items())


def random_text(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(0, 60)):
        word = rng.choice(WORDS)
        shown = word.upper() if rng.random() < 0.05 else word.capitalize() if rng.random() < 0.1 else word
        parts.append(shown)
        if rng.random() < 0.12:
            parts.append(rng.choice(PUNCTUATION))
    return " ".join(parts)


@pytest.mark.parametrize("limits", [(2, 8), (2, 6), (2, 4), (3, 5), (2, 2), (1, 3)])
def test_fast_rows_equal_the_token_path(limits: tuple[int, int]) -> None:
    rng = random.Random(f"phrases:{limits}")
    texts = [random_text(rng) for _ in range(300)]
    texts += ["", "...", "LLMs require domain expertise.", _STRADDLING,
              "Auditing of krouplalive pelorings improves recall.",
              "Visual prompting of vision-language models"]
    for text in texts:
        assert _document_phrase_rows(text, *limits) == reference_rows(text, *limits), text


_STRADDLING = ("Large vision language model training. Robust model tuning. "
               "Large vision-language model training.")
"""A key written in 5 tokens first and in 4 after another key ("large vision language model training"): cut
to 2..4 words, its first occurrence moves behind "robust model tuning"."""


def test_narrow_limits_are_cut_from_the_widest_rows_or_extracted() -> None:
    widest = _document_phrase_rows(_STRADDLING, *WIDEST_ROWS)
    assert narrowed_rows(widest, 2, 4) is None  # a key keeps one surface and loses the other
    keys = [key for key, _ in reference_rows(_STRADDLING, 2, 4)]
    assert keys.index("robust model tuning") < keys.index("large vision language model training")
    assert _document_phrase_rows(_STRADDLING, 2, 4) == reference_rows(_STRADDLING, 2, 4)
    text = ("Vision-language models and retrieval-augmented generation for web agents under "
            "distribution shift.")
    cut = narrowed_rows(_document_phrase_rows(text, *WIDEST_ROWS), 2, 4)
    assert cut is not None and cut == reference_rows(text, 2, 4)
    assert any(len(form.split()) > 4 for _, forms in _document_phrase_rows(text, 2, 8) for form, _ in forms)


def test_repeated_phrases_count_every_surface_in_first_seen_order() -> None:
    phrases = document_phrases("Large Language Models help. large language models fail. "
                               "LARGE LANGUAGE MODELS.")
    forms = phrases["large language model"]
    assert list(forms) == ["large language models", "LARGE LANGUAGE MODELS"]
    assert forms["large language models"] == 2


def test_lowered_signal_cues_give_the_ignorecase_verdict() -> None:
    extractor = StatementExtractor(SignalPatterns.load())
    rng = random.Random("signals")
    abstracts = [random_text(rng) + ". Future WORK will address this. These methods SUFFER FROM drift; open "
                 "questions remain." for _ in range(100)]
    abstracts += ["Straße methods suffer from drift in several settings. İstanbul models suffer from bias."]
    for number, abstract in enumerate(abstracts):
        paper = Paper(paper_id=f"p{number}", title="t", abstract=abstract, announced=date(2025, 1, 1))
        expected = []
        for sentence in split_sentences(abstract):
            kinds = [kind for kind in SIGNAL_KINDS if len(sentence) >= 25 and any(
                pattern.search(sentence) for pattern in extractor._compiled[kind])]  # the IGNORECASE patterns
            expected += [(kinds[0], sentence)] if kinds else []
        assert [(found.kind, found.text) for found in extractor.extract(paper)] == expected


def test_lower_cased_pattern_matches_like_ignorecase() -> None:
    from foresci.tasks.limitations import _CUES_TEXT, CUES, LowerCasedPattern

    reference = re.compile(_CUES_TEXT, re.IGNORECASE)
    rng = random.Random("cues")
    for _ in range(300):
        text = random_text(rng) + rng.choice(["", " Is LIMITED", " lack OF data", " İ suffers", " ſuffers"])
        assert CUES.search(text) == bool(reference.search(text)), text
    with pytest.raises(ValueError, match="lower-case ASCII"):
        LowerCasedPattern(r"\S+ fails")


def reference_subsumed(counts: dict[str, int]) -> set[str]:
    """Every pair compared, as :func:`subsumed` was first written."""
    return {key for key in counts for other in counts
            if len(other.split()) > len(key.split()) and counts[other] >= counts[key]
            and f" {key} " in f" {other} "}


def test_subsumed_equals_the_pairwise_definition() -> None:
    rng = random.Random("subsumed")
    vocabulary = ["model", "language", "large", "vision", "agent", "web", "of", "token", "pruning"]
    for _ in range(200):
        counts = {" ".join(rng.choice(vocabulary) for _ in range(rng.randint(1, 5))): rng.randint(1, 6)
                  for _ in range(rng.randint(0, 30))}
        assert subsumed(counts) == reference_subsumed(counts), counts
    assert subsumed({"language model": 3, "large language model": 3, "model": 9}) == {"language model"}
