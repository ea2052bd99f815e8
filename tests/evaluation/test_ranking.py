"""Ranking-aware FTA (eq. 8-11) on hand-computed cases, and ranking parsing from payload and text."""

from __future__ import annotations

import pytest

from foresci.evaluation.ranking import ranking_checks, ranking_fta
from foresci.tasks.options import parse_answer_ranking
from tests.evaluation.fixtures import DIRECTIONS, VENUES


def test_perfect_ranking_scores_one() -> None:
    score = ranking_fta(["A", "B", "C"], ["A", "B", "C"])
    assert score.f1 == pytest.approx(1.0)
    assert score.precision == pytest.approx(1.0) and score.recall == pytest.approx(1.0)


def test_swapped_tail() -> None:
    # gold A,B,C vs A,C,B: top 1; pos (1 + .5 + .5)/3 = 2/3; pairs (A<B yes, A<C yes, B<C no) = 2/3
    score = ranking_fta(["A", "B", "C"], ["A", "C", "B"])
    assert score.recall == pytest.approx((1 + 2 / 3 + 2 / 3) / 3)
    assert score.precision == pytest.approx((1 + 2 / 3 + 2 / 3) / 3)
    assert score.f1 == pytest.approx(7 / 9)


def test_missing_item_lowers_recall_only() -> None:
    # gold A,B,C,D; predicted A,B,D (C missing)
    # R: top 1; pos (1 + 1 + 0 + .5)/4 = .625; pairs kept: AB AD BD = 3 of 6 -> .5   => R = 2.125/3
    # P over A,B,D vs gold: top 1; pos (1 + 1 + .5)/3 = 5/6; pairs AB AD BD all kept = 1 => P = (2 + 5/6)/3
    score = ranking_fta(["A", "B", "C", "D"], ["A", "B", "D"])
    recall, precision = 2.125 / 3, (2 + 5 / 6) / 3
    assert score.recall == pytest.approx(recall)
    assert score.precision == pytest.approx(precision)
    assert score.f1 == pytest.approx(2 * precision * recall / (precision + recall))
    assert score.precision > score.recall


def test_extra_item_lowers_precision_only() -> None:
    # gold A,B; predicted X,A,B (X invented)
    # R: top 0; pos (.5 + .5)/2 = .5; pair A<B kept = 1 => R = 1.5/3 = .5
    # P over X,A,B: top 0; pos (0 + .5 + .5)/3 = 1/3; pairs XA XB missing, AB kept = 1/3 => P = (2/3)/3
    score = ranking_fta(["A", "B"], ["X", "A", "B"])
    assert score.recall == pytest.approx(0.5)
    assert score.precision == pytest.approx(2 / 9)
    assert score.f1 == pytest.approx(2 * (2 / 9) * 0.5 / (2 / 9 + 0.5))


def test_empty_prediction_scores_zero_and_single_item_drops_pairs() -> None:
    assert ranking_fta(["A", "B"], []).f1 == 0.0
    checks = ranking_checks(["A"], ["A"])
    assert checks.pairwise is None and checks.mean == pytest.approx(1.0)


def test_parse_from_payload_by_id_and_name() -> None:
    payload = {
        "ranking": [{"option_id": "C"}, "memory-augmented agents", {"option_id": "Tool-use benchmarks"}]
    }
    ranking, source = parse_answer_ranking(payload, "", DIRECTIONS)
    assert (ranking, source) == (["C", "A", "B"], "payload")


def test_unknown_payload_label_is_kept_as_an_extra_item() -> None:
    ranking, _ = parse_answer_ranking({"ranking": ["A", "quantum agents"]}, "", DIRECTIONS)
    assert ranking == ["A", "quantum agents"]


def test_parse_from_numbered_text_with_names() -> None:
    text = (
        "My plan:\n1. Multi-agent debate first\n2) memory-augmented agents next\n3. Tool-use benchmarks last"
    )
    assert parse_answer_ranking({}, text, DIRECTIONS) == (["C", "A", "B"], "text")


def test_parse_from_mentions_ignores_bare_article_a() -> None:
    text = "A careful team should submit to ICLR/ICML/NeurIPS, then ACL/EMNLP/NAACL."
    ranking, source = parse_answer_ranking({}, text, VENUES)
    assert (ranking, source) == (["ml", "acl"], "text")
    ranking, _ = parse_answer_ranking({}, "A plan: option B before (A).", DIRECTIONS)
    assert ranking == ["B", "A"]


def test_an_empty_payload_ranking_scores_as_empty_even_when_the_text_names_options() -> None:
    text = "Priority order:\nMilestones:\n- memory-augmented agents first, then tool-use benchmarks"
    assert parse_answer_ranking({"ranking": []}, text, DIRECTIONS) == ([], "payload")
    assert ranking_fta(["A", "B", "C"], []).f1 == 0.0
    assert parse_answer_ranking({}, text, DIRECTIONS)[1] == "text"  # no payload ranking: the text is read


def test_payload_labels_in_the_shapes_models_emit() -> None:
    labels = ["B: tool-use benchmarks", "Option C", "(a)"]
    payload = {"ranking": [{"option_id": label} for label in labels]}
    assert parse_answer_ranking(payload, "", DIRECTIONS) == (["B", "C", "A"], "payload")
    ambiguous = {"ranking": [{"option_id": "A: multi-agent debate"}]}  # id of one option, name of another
    assert parse_answer_ranking(ambiguous, "", DIRECTIONS) == (["A: multi-agent debate"], "payload")
