"""Fact F1 with partials, Trace weights and citation checks, CRPS/coverage/Brier, bootstrap statistics."""

from __future__ import annotations

import math
from datetime import date

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.stats import norm

from foresci.contracts import Answer
from foresci.evaluation.fact import claim_f1, offline_fact
from foresci.evaluation.forecast import (
    QUANTILE_SPAN,
    brier,
    brier_skill,
    crps_gaussian,
    numeric_scores,
    reliability_bins,
)
from foresci.evaluation.stats import bootstrap_mean, delta_norm, low_score_weights, paired_bootstrap_pvalue
from foresci.evaluation.trace import citation_checks, offline_trace, trace_score
from foresci.tasks.hidden import Claim
from tests.evaluation.conftest import WordEncoder
from tests.evaluation.fixtures import P1, P9, support


def test_fact_f1_with_partials() -> None:
    # phi: supported, partial, unsupported, not checkable -> P = 1.5/4; psi: covered, partial, not -> R = .5
    f1, precision, recall = claim_f1([1.0, 0.5, 0.0, 0.0], [1.0, 0.5, 0.0])
    assert (precision, recall) == pytest.approx((0.375, 0.5))
    assert f1 == pytest.approx(2 * 0.375 * 0.5 / 0.875)
    assert claim_f1([0.0], [0.0]) == (0.0, 0.0, 0.0)
    assert claim_f1([], [1.0]) == (0.0, 0.0, 1.0)


def test_offline_fact_grades_sentences_against_the_claim_bank() -> None:
    gold = [
        Claim(claim_id="g1", text="Memory agents grow fast."),
        Claim(claim_id="g2", text="Debate fades away."),
    ]
    result = offline_fact(
        "Memory agents grow fast. Something unrelated entirely here.",
        gold,
        WordEncoder(),
        12,
        supported=0.9,
        partial=0.5,
    )
    assert result.name == "fact_offline"
    assert result.details["phi"] == [1.0, 0.0] and result.details["psi"] == [1.0, 0.0]
    assert result.value == pytest.approx(0.5)


def test_trace_weights() -> None:
    assert trace_score(1.0, 0.0, 0.0) == pytest.approx(0.5)
    assert trace_score(0.0, 1.0, 0.0) == pytest.approx(0.25)
    assert trace_score(1.0, 0.5, 0.0) == pytest.approx(0.625)


def test_citation_checks_flag_unknown_and_post_cutoff_ids() -> None:
    answer = Answer(
        task_id="D1", family="direction_forecasting", method="aris", support=support([P1, P9, "zz"])
    )
    checks = citation_checks(answer, date(2025, 6, 30))
    assert checks["unknown_ids"] == ["zz"] and checks["after_cutoff_ids"] == [P9]
    assert checks["valid"] == 1 and checks["valid_share"] == pytest.approx(1 / 3)
    assert checks["retrieved_after_cutoff"] == [P9]


def test_offline_trace_is_not_applicable_without_support() -> None:
    bare = Answer(task_id="D1", family="direction_forecasting", method="native", text="text")
    result = offline_trace("text", None, citation_checks(bare, date(2025, 6, 30)), WordEncoder())
    assert result.value is None and not result.available
    cited = bare.model_copy(update={"support": support([P1])})
    linked = offline_trace(
        "Memory-augmented agents gain momentum.",
        cited.support,
        citation_checks(cited, date(2025, 6, 30)),
        WordEncoder(),
    )
    assert linked.value == pytest.approx(trace_score(1.0, 1.0, 1.0), abs=1e-6)


def test_crps_matches_numerical_integration() -> None:
    for mu, sigma, observed in [(0.0, 1.0, 0.3), (1.7, 0.2, 2.4), (1.0, 0.5, 0.1)]:

        def integrand(x: float, mu: float = mu, sigma: float = sigma, observed: float = observed) -> float:
            return (norm.cdf(x, mu, sigma) - (1.0 if x >= observed else 0.0)) ** 2

        low, high = mu - 12 * sigma, mu + 12 * sigma
        numeric = quad(integrand, low, observed, limit=200)[0] + quad(integrand, observed, high, limit=200)[0]
        assert crps_gaussian(mu, sigma, observed) == pytest.approx(numeric, abs=1e-6)


def test_numeric_scores_in_log_space() -> None:
    scores = numeric_scores(30, 60, 120, 80, baseline=50)
    mu, sigma = math.log10(61), (math.log10(121) - math.log10(31)) / QUANTILE_SPAN
    z = (math.log10(81) - mu) / sigma
    assert scores["z"] == pytest.approx(z)
    assert scores["crps"] == pytest.approx(crps_gaussian(mu, sigma, math.log10(81)))
    assert (scores["cover_1"], scores["cover_2"], scores["cover_3"]) == (abs(z) < 1, True, True)
    assert scores["within_x3"] and scores["within_x10"]
    assert scores["crps_skill"] == pytest.approx(1 - scores["crps"] / abs(math.log10(51) - math.log10(81)))
    far = numeric_scores(5, 10, 20, 80)
    assert not far["within_x3"] and far["within_x10"] and not far["cover_2"]
    with pytest.raises(ValueError):
        numeric_scores(50, 10, 20, 5)


def test_brier_and_skill() -> None:
    assert brier(0.8, 1.0) == pytest.approx(0.04)
    assert brier_skill(brier(0.8, 1.0), brier(0.5, 1.0)) == pytest.approx(1 - 0.04 / 0.25)
    assert brier_skill(0.1, 0.0) is None
    bins = reliability_bins([0.05, 0.1, 0.95], [0.0, 1.0, 1.0], bins=10)
    assert [(b["bin"], b["observed"], b["count"]) for b in bins] == [
        (0, 0.0, 1.0),
        (1, 1.0, 1.0),
        (9, 1.0, 1.0),
    ]


def test_bootstrap_interval_and_paired_pvalue() -> None:
    values = np.linspace(0, 1, 40)
    interval = bootstrap_mean(values, samples=500, seed=3)
    assert interval.low < interval.mean < interval.high and interval.mean == pytest.approx(0.5)
    assert bootstrap_mean([0.3, 0.3, 0.3]).low == pytest.approx(0.3)
    leader, other = np.full(30, 0.9), np.linspace(0.0, 0.6, 30)
    assert paired_bootstrap_pvalue(leader, other, samples=500) < 0.01
    assert paired_bootstrap_pvalue(other, other, samples=500) == pytest.approx(1.0)


def test_low_score_weights_and_delta_norm() -> None:
    weights = low_score_weights([0.5, 0.1, 0.9, 0.2, 0.7, 0.3, 0.8, 0.6, 0.4, 1.0], 0.2)
    assert np.flatnonzero(weights).tolist() == [1, 3] and weights.sum() == pytest.approx(2)
    tied = low_score_weights([0.0, 0.0, 0.0, 0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0], 0.2)
    assert tied[:4].tolist() == [0.5] * 4 and tied[4:].sum() == 0  # two slots shared by four tied zeros
    values, severity = [1.0, 0.8, 0.2, 0.0], [0, 0, 2, 3]
    assert delta_norm(values, severity) == pytest.approx((0.9 - 0.1) / np.std(values, ddof=1))
    assert delta_norm([1.0, 0.5], [0, 1]) is None


def test_payload_only_answers_are_scored_from_their_payload() -> None:
    from foresci.contracts import Answer
    from foresci.evaluation.metrics import answer_text

    answer = Answer(
        task_id="B1",
        family="bottleneck_opportunity",
        method="trend",
        text=" ",
        payload={
            "bottleneck": "credit assignment is unreliable.",
            "risks": ["drift", "cost"],
            "confidence": 0.4,
        },
    )
    assert answer_text(answer) == "Bottleneck: credit assignment is unreliable.\nRisks: drift; cost."
    assert answer_text(answer.model_copy(update={"text": "Rendered."})) == "Rendered."


def test_difficulty_adjustment_separates_method_skill_from_question_difficulty() -> None:
    from foresci.evaluation.forecast import difficulty_adjusted

    # a = (q1 .1, q2 .2, q3 .6); b = (A 0, B .05); A answered the easy questions, B the hard one
    rows = [("q1", "A", 0.1), ("q2", "A", 0.2), ("q2", "B", 0.25), ("q3", "B", 0.65)]
    fitted = difficulty_adjusted(rows)
    assert fitted["A"] == pytest.approx(0.3) and fitted["B"] == pytest.approx(0.35)
    assert difficulty_adjusted([("q1", "A", 0.1)]) == {}


def test_offline_fact_gives_nothing_for_restating_the_candidate_names() -> None:
    """The offline-proxy case a real model produced: a ranking that only lists the candidates by name."""
    from foresci.agents.render import render_text
    from foresci.contracts import RankedOption
    from foresci.evaluation.fact import public_texts
    from foresci.tasks.families.strategic_planning.family import PlanningAnswer
    from tests.evaluation.fixtures import release_rows

    task = release_rows()[0][2]
    names = {candidate.option_id: candidate.name for candidate in task.candidates}
    gold = [  # the planning builder's claim bank shapes
        Claim(claim_id="c1", text=f"{names['A']} is the top priority for the window."),
        Claim(claim_id="c2", text=f"{names['A']} should rank above {names['B']}."),
        Claim(claim_id="c3", text=f"{names['B']} should rank above {names['C']}."),
    ]
    restating = render_text(task, PlanningAnswer(ranking=[RankedOption(option_id=o) for o in "ABC"]))
    claiming = (
        f"{names['A']} is the top priority for the window because its share grows fastest. "
        f"{names['A']} should rank above {names['B']}, and {names['B']} should rank above {names['C']}."
    )
    encoder, texts = WordEncoder(), public_texts(task)
    # what the proxy gave before: 0.4 here, 0.74 with the packaged MiniLM
    assert offline_fact(restating, gold, encoder, 12, 0.7, 0.5).value >= 0.4
    empty = offline_fact(restating, gold, encoder, 12, 0.7, 0.5, texts)
    assert empty.value == 0.0 and empty.details["restating_task"] == [0, 1, 2]
    real = offline_fact(claiming, gold, encoder, 12, 0.7, 0.5, texts)
    assert real.value > 0.8 and real.details["restating_task"] == []
