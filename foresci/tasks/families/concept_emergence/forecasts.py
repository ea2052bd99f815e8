"""Binary forecast questions of concept emergence (scored by Brier): will two concepts that no paper used
together up to the cutoff be used together in at least ``k`` window papers?

Questions are drawn half from the window's positives and half from its negatives (``positive_share``), so
the Brier score is not dominated by the rare positives' absence; the text never says so. The naive
baseline probability is the positive share of the earlier cutoff's candidates (pre-cutoff data only).
"""

from __future__ import annotations

import numpy as np

from foresci.core.artifacts import sha256_json
from foresci.emergence.build import EmergenceSet
from foresci.emergence.questions import pair_option
from foresci.tasks.hidden import Resolution
from foresci.tasks.models import ForecastQuestion

FAMILY = "concept_emergence"


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
    snapshot = target.snapshot
    cutoff = snapshot.cutoff
    start = cutoff.fromordinal(cutoff.toordinal() + 1)
    columns = snapshot.paper_concepts.tocsc()
    made = []
    for row in rows:
        option = pair_option(snapshot, int(row), columns)
        papers = "paper" if min_papers == 1 else "papers"
        text = (f"Will at least {min_papers} {papers} announced between {start.isoformat()} and "
                f"{target.window_end.isoformat()} use both “{option.first}” and “{option.second}”? "
                f"Up to {cutoff.isoformat()}: {option.context}.")
        params = {"family": FAMILY, "first": option.first, "second": option.second, "min_papers": min_papers,
                  "horizon": horizon, **option.signals}
        key = {"domain": domain, "cutoff": cutoff.isoformat(), "horizon": horizon,
               "pair": [option.first, option.second], "k": min_papers}
        question_id = "ceq-" + sha256_json(key)[:12]
        question = ForecastQuestion(
            question_id=question_id, kind="binary", domain=domain, cutoff=cutoff, window_start=start,
            window_end=target.window_end, text=text,
            resolution_rule=f"1 if at least {min_papers} window {papers} of the domain use both concepts "
                            "(noun phrases of title and abstract, compared by key), else 0",
            params=params, baseline=baseline)
        count = int(target.counts[row])
        made.append((question, Resolution(question_id=question_id, outcome=float(count >= min_papers),
                                          resolved_with="window papers of the KB",
                                          details={"window_papers": count})))
    return made
