"""Phrase helpers behind bottleneck and opportunity targets."""

from __future__ import annotations

import pytest

from foresci.tasks.text import core_phrase, distinctive_ngrams


@pytest.mark.parametrize(("sentence", "phrase"), [
    ("However, the approach remains limited by flux drift instability.", "flux drift instability"),
    ("Training also suffers from token budget overrun.", "token budget overrun"),
    ("A critical limitation: their knowledge is static, so answers age.", "their knowledge is static"),
    ("However, training such models remains challenging and costly.", "training such models"),
    ("flux drift instability", "flux drift instability"),
])
def test_core_phrase_extracts_the_limitation(sentence: str, phrase: str) -> None:
    assert core_phrase(sentence) == phrase


def test_distinctive_ngrams_prefer_what_is_new_in_the_focus_texts() -> None:
    background = ["token budget overrun hurts training of spectral adapters"] * 10
    focus = ["reducing drift enables zorbic lattice meshing; token budget overrun hurts training"] * 4
    grams = [gram for gram, _ in distinctive_ngrams(focus, background)]
    assert grams[0] == "zorbic lattice meshing"
    assert not any("budget" in gram for gram in grams)
