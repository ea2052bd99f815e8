"""Learned baseline II: trained only on the latest window the cutoff closes, named (never scored) when the
papers do not cover it, and its growth features read papers up to the cutoff only."""

from __future__ import annotations

from datetime import date

import numpy as np

from benchmarks.emergence import report, table_line
from foresci.emergence.build import shift_months
from foresci.emergence.candidates import candidate_pairs
from foresci.emergence.concepts import ConceptPaper, concept_papers, mine_vocabulary
from foresci.emergence.config import EmergenceSettings, VocabularySettings, load_emergence_settings
from foresci.emergence.evaluate import LEARNED, evaluate_window, training_period
from foresci.emergence.features import FEATURE_NAMES, pair_features
from foresci.emergence.network import build_network, incidence
from foresci.sim.emergence import EmergenceWorldConfig, generate_emergence_world

SETTINGS = load_emergence_settings()
FAST = SETTINGS.model_copy(update={
    "targets": SETTINGS.targets.model_copy(update={"positive_min_papers": [1]}),
    "scoring": SETTINGS.scoring.model_copy(update={"bootstrap_resamples": 30}),
})


def _papers(config: EmergenceWorldConfig) -> list[ConceptPaper]:
    return concept_papers(generate_emergence_world(config).papers, FAST.vocabulary)


def test_an_untrainable_row_is_named_and_not_scored(capsys) -> None:  # type: ignore[no-untyped-def]
    # four months of papers: the 3-month training window needs papers from 6 months before the cutoff
    config = EmergenceWorldConfig(seed=5, difficulty=0.0, months_before=4)
    (result,) = evaluate_window(_papers(config), config.cutoff, config.window_months, FAST)
    assert result.not_trainable is not None and result.not_trainable.startswith("not trainable")
    assert "the papers begin" in result.not_trainable
    assert LEARNED not in result.scores and LEARNED not in result.stratified
    assert result.audit["learned_minus_preferential_attachment_auc"] is None
    failures = report("world", config.window_months, result)
    assert not any("learned" in failure for failure in failures)
    assert "NOT TRAINABLE" in capsys.readouterr().out and "NOT TRAINABLE" in table_line("world", 3, result)


def test_the_training_period_is_the_latest_closed_window_whatever_the_task_window() -> None:
    corpus_start = date(2025, 3, 18)
    six = training_period(date(2025, 9, 30), corpus_start, SETTINGS)
    assert (six.cutoff, six.end, six.reason) == (date(2025, 6, 30), date(2025, 9, 30), None)
    early = training_period(date(2025, 6, 30), corpus_start, SETTINGS)
    assert early.reason is not None and "2025-03-18" in early.reason
    config = EmergenceWorldConfig(seed=5, difficulty=0.0)  # nine months of papers
    (result,) = evaluate_window(_papers(config), config.cutoff, 6, FAST)  # a 6-month task window
    assert result.not_trainable is None and LEARNED in result.scores
    assert result.audit["learned_training"] == {"cutoff": shift_months(config.cutoff, -3).isoformat(),
                                                "window_end": config.cutoff.isoformat()}
    assert "poisson on" in result.audit["learned"] and "as normal_scores" in result.audit["learned"]


def _paper(index: int, day: date, *keys: str) -> ConceptPaper:
    return ConceptPaper(paper_id=f"p{index}", announced=day, phrases={key: {key: 1} for key in keys})


def test_growth_features_read_only_papers_up_to_the_cutoff() -> None:
    cutoff = date(2025, 6, 30)
    edges = [("a", "b"), ("a", "c"), ("b", "c"), ("c", "d"), ("d", "e"), ("a", "f"), ("f", "e"), ("b", "f")]
    before = [_paper(i, date(2025, 1 + i % 6, 1 + i), *edge) for i, edge in enumerate(edges)]
    later = [_paper(50 + i, date(2025, 7, 1 + i), "a", "e", "d") for i in range(4)]
    settings = EmergenceSettings(vocabulary=VocabularySettings(min_document_frequency=1, min_words=1))
    vocabulary = mine_vocabulary(before, cutoff, settings.vocabulary)

    def features(papers: list[ConceptPaper]):  # type: ignore[no-untyped-def]
        network = build_network(papers, incidence(papers, vocabulary), cutoff, shift_months(cutoff, -3))
        pairs = candidate_pairs(network, 1000, 1).pairs
        return network, pair_features(network, pairs)

    network, alone = features(before)
    _, seen = features([*before, *later])  # the window's papers are handed in too: never read
    assert np.array_equal(alone.matrix(), seen.matrix()) and alone.matrix().shape[1] == len(FEATURE_NAMES)
    for name in ("growth_left", "previous_left", "last_month_left", "new_degree_left", "common_gained",
                 "age_left"):
        assert np.array_equal(getattr(alone, name), getattr(seen, name)), name
    names = list(vocabulary.keys)
    assert network.monthly is not None and network.first_seen is not None
    # 'a' is used on Jan 1, Feb 2 and Jun 6: buckets are calendar months back from June
    assert network.monthly[names.index("a")].tolist() == [1, 0, 0, 0, 1, 1]
    assert network.first_seen[names.index("a")] == date(2025, 1, 1).toordinal()
    # a pre-cutoff paper of the last month moves the growth: the features can fail
    _, moved = features([*before, _paper(99, date(2025, 6, 20), "a", "e")])
    assert not np.array_equal(alone.last_month_left + alone.last_month_right,
                              moved.last_month_left + moved.last_month_right)


def test_degree_stratified_auc_reads_what_a_score_knows_beyond_size() -> None:
    from foresci.emergence.scoring import degree_strata, score_pairs, stratified_aucs

    rng = np.random.default_rng(3)
    size = rng.lognormal(2.0, 1.0, 4000)  # d_i * d_j
    hidden = rng.normal(size=4000)  # what emerges beyond size
    labels = (np.log(size) + 1.5 * hidden + rng.normal(size=4000)) > 3.5
    strata = degree_strata(size, 5)
    assert sorted(set(strata.tolist())) == [0, 1, 2, 3, 4]
    found = stratified_aucs({"size": size, "beyond": hidden + 0.01 * np.log(size)}, labels, strata, 50, 1,
                            differences=(("beyond", "size"),))
    overall = score_pairs(size, labels, [], 0, 0)["auc"].value
    assert overall > 0.7 and abs(found["size"].value - 0.5) < abs(overall - 0.5) / 2  # little within strata
    lift = found["beyond-size"]
    assert found["beyond"].value > 0.75 and lift.low is not None and lift.low > 0


def test_history_features_are_left_out_where_the_papers_do_not_cover_them() -> None:
    import pytest

    from foresci.emergence.features import HISTORY_FEATURES, feature_columns

    short = {FEATURE_NAMES[column] for column in feature_columns(1.0)}
    assert short and not short & HISTORY_FEATURES and "name_similarity" in short
    assert {FEATURE_NAMES[column] for column in feature_columns(6.5)} == set(FEATURE_NAMES)
    chosen = ["log_preferential_attachment", "log_min_age_days", "log_min_growth"]
    kept = [FEATURE_NAMES[column] for column in feature_columns(3.0, chosen)]
    assert kept == ["log_preferential_attachment"]
    with pytest.raises(ValueError, match="unknown learned feature"):
        feature_columns(9.0, ["no_such_feature"])
    # papers in the six calendar months up to the training snapshot (January-June): age is read
    config = EmergenceWorldConfig(seed=5, difficulty=0.0)
    (result,) = evaluate_window(_papers(config), config.cutoff, 3, FAST)
    assert FAST.learned.features and "log_min_age_days" in FAST.learned.features
    assert f", {len(FAST.learned.features)} features" in result.audit["learned"]
    # on the arXiv corpus (from 2025-03-18) a 2025-09-30 model trains at 2025-06-30: four months, no age
    assert "log_min_age_days" not in {FEATURE_NAMES[column] for column in feature_columns(4, chosen)}


def test_normal_scores_keep_each_columns_order_and_spread_its_tails() -> None:
    from scipy.stats import rankdata

    from foresci.emergence.learned import model_inputs, normal_scores

    raw = np.random.default_rng(4).lognormal(2.0, 1.5, (1000, 2))  # heavy-tailed, like d_i * d_j
    percentiles = rankdata(raw, axis=0) / len(raw)
    scores = normal_scores(percentiles)
    assert np.isfinite(scores).all() and abs(float(np.median(scores))) < 0.01
    for column in range(2):
        order = np.argsort(raw[:, column])
        assert np.all(np.diff(scores[order, column]) > 0)  # no ties in the raw column: strictly rising
        top, middle = np.sort(scores[:, column])[[-1, -2]], np.sort(scores[:, column])[[500, 499]]
        # one rank apart: at the top the scores lie far apart, in the middle close (percentiles: 0.001 both)
        assert top[0] - top[1] > 50 * (middle[0] - middle[1])
    assert model_inputs(percentiles, "percentiles") is percentiles
    assert np.array_equal(model_inputs(percentiles, "normal_scores"), scores)


def test_a_poisson_model_scores_the_chance_of_at_least_one_window_paper() -> None:
    from scipy.stats import rankdata, spearmanr

    from foresci.emergence.config import LearnedSettings
    from foresci.emergence.learned import fit_learned, normal_scores

    rng = np.random.default_rng(8)
    raw = rng.normal(size=(6000, 3))
    expected = np.exp(-3.0 + 1.2 * raw[:, 0] + 0.6 * raw[:, 1])  # the third column carries nothing
    counts = rng.poisson(expected)
    features = rankdata(raw, axis=0) / len(raw)
    settings = LearnedSettings(model="poisson", inputs="normal_scores", min_training_positives=10)
    model = fit_learned(features, counts >= 1, settings, counts=counts)
    assert model.trainable and model.counts and "poisson" in model.note and "normal_scores" in model.note
    assert model.training_positives == int((counts >= 1).sum())
    scores = model.score(features)
    predicted = model.estimator.predict(normal_scores(features))  # type: ignore[union-attr]
    assert np.allclose(scores, 1.0 - np.exp(-predicted)) and ((scores > 0) & (scores < 1)).all()
    assert spearmanr(scores, expected)[0] > 0.95
    # the count is what it learns: ones for every positive would rank the same pairs less well
    flat = fit_learned(features, counts >= 1, settings).score(features)
    assert spearmanr(flat, expected)[0] < spearmanr(scores, expected)[0]


def _row(positives: int, lift: tuple[float, float, float] | None):  # type: ignore[no-untyped-def]
    from foresci.emergence.evaluate import Evaluation
    from foresci.emergence.scoring import Interval

    interval = Interval(0.8, 0.75, 0.85)
    scores = {name: {"auc": interval, "precision@100": interval}
              for name in ("preferential_attachment", "common_neighbours", "adamic_adar", "jaccard",
                           "resource_allocation", *([LEARNED] if lift else []))}
    stratified = {name: interval for name in (*scores, "degree", *([f"{LEARNED}-preferential_attachment"]
                                                                   if lift else []))}
    audit = {"positive_share": 0.01, "degree_auc": 0.79, "degree_strata": 5, "pre_cutoff_papers": 100,
             "window_papers": 50, "features_read_after_cutoff": False, "features_last_read": "2025-09-30",
             "learned": "poisson on 10 pairs" if lift else "not trainable: no papers",
             "learned_minus_preferential_attachment_auc":
                 dict(zip(("value", "low", "high"), lift, strict=True)) if lift else None}
    return Evaluation(cutoff=date(2025, 9, 30), window_end=date(2025, 12, 31), min_papers=3,
                      total_candidates=1000, scored_candidates=1000, positives=positives, scores=scores,
                      audit=audit, stratified=stratified, not_trainable=None if lift else "not trainable: x")


def test_rows_with_too_few_positives_are_named_underpowered_and_left_out_of_the_learned_goal(capsys) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    from benchmarks.emergence import MIN_GOAL_POSITIVES, lift_verdict

    few = _row(MIN_GOAL_POSITIVES - 1, (0.01, -0.02, 0.04))
    assert lift_verdict(few).startswith("UNDERPOWERED")
    assert not any("learned" in failure for failure in report("d", 3, few))
    assert "UNDERPOWERED" in capsys.readouterr().out and "UNDERPOWERED" in table_line("d", 3, few)
    wide = _row(MIN_GOAL_POSITIVES, (0.01, -0.002, 0.03))
    assert lift_verdict(wide) == "MISS (interval reaches 0)"
    assert any("interval reaches 0" in failure for failure in report("d", 3, wide))
    assert lift_verdict(_row(500, (-0.01, -0.03, 0.01))) == "MISS (effect <= 0)"
    assert lift_verdict(_row(500, (0.02, 0.01, 0.03))) == "ok" and " ok;" in table_line("d", 3, _row(500, (
        0.02, 0.01, 0.03)))
    assert lift_verdict(_row(500, None)) == "NOT TRAINABLE"


def test_short_span_features_are_read_where_a_young_kb_covers_them() -> None:
    from foresci.emergence.features import HISTORY_FEATURES, HISTORY_NEEDED, feature_columns

    # the arXiv corpus from 2025-03-18: a 2025-09-30 model trains at 2025-06-30, four calendar months
    four = {FEATURE_NAMES[column] for column in feature_columns(4)}
    assert {"log_min_last_month", "min_month_acceleration", "log_max_recent_age",
            "log_common_neighbours_activity", "log_min_growth"} <= four
    assert not four & {"min_acceleration", "log_min_age_days", "log_common_neighbours_gained"}
    two = {FEATURE_NAMES[column] for column in feature_columns(2)}
    assert "log_min_last_month" in two and "min_month_acceleration" not in two
    assert all(HISTORY_NEEDED[name] >= 2 for name in HISTORY_FEATURES)


def test_short_span_features_read_the_last_month_a_capped_age_and_the_shared_neighbours_activity() -> None:
    from foresci.emergence.features import RECENT_AGE_DAYS

    cutoff = date(2025, 6, 30)
    papers = [_paper(1, date(2025, 1, 5), "a", "c"), _paper(2, date(2025, 5, 10), "b", "c"),
              _paper(3, date(2025, 6, 3), "a", "d"), _paper(4, date(2025, 6, 9), "c", "x"),
              _paper(5, date(2025, 6, 12), "c", "y"), _paper(6, date(2025, 6, 20), "b", "d")]
    settings = EmergenceSettings(vocabulary=VocabularySettings(min_document_frequency=1, min_words=1))
    vocabulary = mine_vocabulary(papers, cutoff, settings.vocabulary)
    names = list(vocabulary.keys)
    network = build_network(papers, incidence(papers, vocabulary), cutoff, shift_months(cutoff, -3))
    pairs = np.asarray([sorted((names.index("a"), names.index("b")))], dtype=np.int64)
    features = pair_features(network, pairs)
    column = {name: index for index, name in enumerate(FEATURE_NAMES)}
    # a and b share c (2 papers in June) and d (2 papers in June): the neighbourhood's last month
    assert features.common_activity is not None and features.common_activity.tolist() == [4.0]
    # a: 1 paper in June, 0 in May -> (1 - 0) / (1 + 0 + 1); b: 1 in June, 1 in May -> 0
    left_is_a = names.index("a") < names.index("b")
    a, b = (0, 1) if left_is_a else (1, 0)
    assert [features.last_month_left[0], features.last_month_right[0]][a] == 1
    assert features.previous_month_left is not None and features.previous_month_right is not None
    assert [features.previous_month_left[0], features.previous_month_right[0]][b] == 1
    raw = np.stack([features.age_left, features.age_right])[:, 0]
    assert raw[a] == (cutoff - date(2025, 1, 5)).days > RECENT_AGE_DAYS  # a: first used in January
    assert raw[b] == (cutoff - date(2025, 5, 10)).days < RECENT_AGE_DAYS  # b: in May
    # one pair: every percentile is 1, so read the columns' order on two pairs instead
    two = np.asarray([pairs[0], sorted((names.index("x"), names.index("y")))], dtype=np.int64)
    both = pair_features(network, two).matrix()
    activity = column["log_common_neighbours_activity"]
    assert both[0, activity] > both[1, activity]
    assert both[0, column["max_month_acceleration"]] <= both[1, column["max_month_acceleration"]]
