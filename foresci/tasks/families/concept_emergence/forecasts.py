"""Binary forecast questions of concept emergence (scored by Brier): will two concepts that no paper used
together up to the cutoff be used together in at least ``k`` window papers? And their resolution rule
(:func:`resolve_emergence_questions`, what ``resolve_questions`` of :mod:`foresci.tasks.forecast` runs for
them once the window has closed).

Questions are drawn half from the window's positives and half from its negatives (``positive_share``), so
the Brier score is not dominated by the rare positives' absence; the text never says so. The naive
baseline probability is the positive share of the earlier cutoff's candidates (pre-cutoff data only).
A round's prospective questions are sampled without the window instead
(:mod:`foresci.tasks.families.concept_emergence.rounds`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

import numpy as np
import scipy.sparse as sp

from foresci.core.artifacts import sha256_json
from foresci.emergence.build import EmergenceSet, Snapshot
from foresci.emergence.config import VocabularySettings
from foresci.emergence.questions import pair_option
from foresci.tasks.hidden import Resolution
from foresci.tasks.models import ForecastQuestion

FAMILY = "concept_emergence"
KEYS_PARAM = "concept_keys"  # a round's question: the pair's concept keys (what resolution counts)
WORDS_PARAM = "phrase_words"  # and the phrase word limits its snapshot read papers with


def binary_questions(target: EmergenceSet, domain: str, horizon: str, min_papers: int, wanted: int,
                     baseline: float, seed: int,
                     positive_share: float = 0.5) -> list[tuple[ForecastQuestion, Resolution]]:
    """Up to ``wanted`` questions with their resolutions (positives and negatives drawn uniformly)."""
    labels = target.labels(min_papers)
    rng = np.random.default_rng(seed)
    positives = rng.permutation(np.flatnonzero(labels))
    negatives = rng.permutation(np.flatnonzero(~labels))
    take = min(int(round(wanted * positive_share)), len(positives))
    rows = sorted([*positives[:take].tolist(), *negatives[:wanted - take].tolist()])
    columns = target.snapshot.paper_concepts.tocsc()
    made = []
    for row in rows:
        question = binary_question(target.snapshot, int(row), domain, horizon, min_papers, target.window_end,
                                   baseline, columns)
        count = int(target.counts[row])
        made.append((question, Resolution(question_id=question.question_id,
                                          outcome=float(count >= min_papers),
                                          resolved_with="window papers of the KB",
                                          details={"window_papers": count})))
    return made


def binary_question(snapshot: Snapshot, row: int, domain: str, horizon: str, min_papers: int,
                    window_end: date, baseline: float, columns: sp.csc_matrix | None = None,
                    extra_params: dict[str, Any] | None = None) -> ForecastQuestion:
    """The question about the snapshot's ``row``-th candidate (text and signals: pre-cutoff facts only);
    ``extra_params`` are added after the release's params (a round adds the concept keys it resolves by)."""
    cutoff = snapshot.cutoff
    start = cutoff.fromordinal(cutoff.toordinal() + 1)
    option = pair_option(snapshot, row, columns)
    papers = "paper" if min_papers == 1 else "papers"
    text = (f"Will at least {min_papers} {papers} announced between {start.isoformat()} and "
            f"{window_end.isoformat()} use both “{option.first}” and “{option.second}”? "
            f"Up to {cutoff.isoformat()}: {option.context}.")
    params = {"family": FAMILY, "first": option.first, "second": option.second, "min_papers": min_papers,
              "horizon": horizon, **option.signals, **(extra_params or {})}
    key = {"domain": domain, "cutoff": cutoff.isoformat(), "horizon": horizon,
           "pair": [option.first, option.second], "k": min_papers}
    question_id = "ceq-" + sha256_json(key)[:12]
    return ForecastQuestion(
        question_id=question_id, kind="binary", domain=domain, cutoff=cutoff, window_start=start,
        window_end=window_end, text=text,
        resolution_rule=f"1 if at least {min_papers} window {papers} of the domain use both concepts "
                        "(noun phrases of title and abstract, compared by key), else 0",
        params=params, baseline=baseline)


def vocabulary_settings(words: Sequence[int]) -> VocabularySettings:
    """Vocabulary settings reading phrases of ``words`` = [min, max] words (what resolution needs of them)."""
    return VocabularySettings(min_words=int(words[0]), max_words=int(words[1]))


def is_emergence_question(question: ForecastQuestion) -> bool:
    """Whether the question is a concept-emergence binary question."""
    return question.params.get("family") == FAMILY


def resolve_emergence_questions(questions: Sequence[ForecastQuestion], kb: Any,
                                fingerprint: str = "") -> list[Resolution]:
    """1 when the question's pair is used together in at least ``min_papers`` window papers of its domain,
    else 0. Concept keys come from ``params`` (a release's questions, which carry only the names: the names'
    phrase keys)."""
    from foresci.emergence.config import load_emergence_settings
    from foresci.emergence.resolve import domain_window_papers, pair_window_counts
    from foresci.taxonomy.phrases import phrase_key

    if not questions:
        return []
    defaults = load_emergence_settings().vocabulary
    resolutions: list[Resolution] = []
    groups: dict[tuple[str, date, date], list[ForecastQuestion]] = {}
    for question in questions:
        groups.setdefault((question.domain, question.cutoff, question.window_end), []).append(question)
    for (name, cutoff, end), chosen in sorted(groups.items()):
        papers = domain_window_papers(kb, name, cutoff, end)
        pairs: dict[tuple[int, int], list[tuple[ForecastQuestion, tuple[str, str]]]] = {}
        for question in chosen:  # one concept extraction per vocabulary setting, not one per question
            params = question.params
            keys = params.get(KEYS_PARAM) or [phrase_key(str(params["first"])),
                                              phrase_key(str(params["second"]))]
            words = params.get(WORDS_PARAM) or [defaults.min_words, defaults.max_words]
            pair = (str(keys[0]), str(keys[1]))
            pairs.setdefault((int(words[0]), int(words[1])), []).append((question, pair))
        counted: dict[str, int] = {}
        for words, asked in pairs.items():
            found = pair_window_counts(papers, [pair for _, pair in asked], vocabulary_settings(list(words)))
            counted.update({question.question_id: count
                            for (question, _), count in zip(asked, found, strict=True)})
        for question in chosen:
            params, count = question.params, counted[question.question_id]
            resolutions.append(Resolution(
                question_id=question.question_id, outcome=float(count >= int(params["min_papers"])),
                resolved_with=fingerprint or "kb", details={"window_papers": count}))
    order = {question.question_id: position for position, question in enumerate(questions)}
    return sorted(resolutions, key=lambda resolution: order[resolution.question_id])
