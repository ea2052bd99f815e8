"""A round's question supply (foresci.tasks.forecast.supply_questions): every rule, the node cap, naive
answers from pre-cutoff facts only, the resolution of the new rules, share growth and its mirror share
decline, the venue cap, the concept cap and the stratum weights of the ceq- questions and the ledger's
override of the supply size."""

from __future__ import annotations

import json
from collections import Counter
from datetime import date
from pathlib import Path

import pytest
from pydantic import ValidationError

from foresci.rounds.config import RoundSettings
from foresci.rounds.family_tasks import PreCutoffReader
from foresci.rounds.ledger import LedgerConfig, init_ledger, load_round
from foresci.rounds.open import open_round
from foresci.rounds.submit import round_questions
from foresci.tasks.families.concept_emergence.forecasts import KEYS_PARAM
from foresci.tasks.families.concept_emergence.rounds import EmergenceFreeze, strata_of, stratum_cycle
from foresci.tasks.forecast import RULES, freeze_questions, question_rule, resolve_questions
from tests.rounds.helpers import toy_settings
from tests.tasks.toy import CUTOFF, ToyKB


def _supply(kb: ToyKB, wanted: int = 200, cutoff: date = CUTOFF, node_cap: int = 4,
            rules: list[str] | None = None, venue_cap: int | None = None) -> list:
    settings = toy_settings()
    settings.rounds.node_cap = node_cap
    if venue_cap is not None:
        settings.rounds.venue_cap = venue_cap
    settings.rounds.rules = list(RULES) if rules is None else rules
    snapshot = ToyKB(until=CUTOFF).snapshot
    questions, _, _ = freeze_questions(kb, cutoff, "3m", wanted, settings, {"toy": snapshot},
                                       supply=settings.rounds, seed="s")
    return questions


def test_supply_spans_every_rule_and_caps_each_node() -> None:
    questions = _supply(ToyKB(until=CUTOFF), node_cap=3)
    per_node = Counter(question.node_id for question in questions)
    assert set(per_node.values()) == {3}  # every node reaches the cap and none passes it
    assert {question_rule(question) for question in questions} == set(RULES)
    assert len({question.question_id for question in questions}) == len(questions)
    assert all(question.baseline is not None for question in questions)
    more = _supply(ToyKB(until=CUTOFF), node_cap=5)
    assert len(more) > len(questions)
    assert max(Counter(question.node_id for question in more).values()) == 5


def test_supply_is_outcome_blind_and_naive_answers_are_pre_cutoff() -> None:
    whole = ToyKB()  # holds the window too
    cut = ToyKB(until=CUTOFF)
    dumps = [json.dumps([question.model_dump(mode="json") for question in _supply(kb)], sort_keys=True)
             for kb in (whole, cut)]
    assert dumps[0] == dumps[1]
    first = _supply(cut, wanted=5)
    assert [question.question_id for question in first] == [question.question_id for question in
                                                            _supply(cut)[:5]]


def test_new_rules_resolve_from_the_window() -> None:
    questions = _supply(ToyKB(until=CUTOFF))
    snapshot = ToyKB(until=CUTOFF).snapshot
    resolutions = {row.question_id: row for row in resolve_questions(questions, {"toy": snapshot}, ToyKB())}
    seen = Counter()
    for question in questions:
        row = resolutions[question.question_id]
        rule = question_rule(question)
        seen[rule] += 1
        if rule == "count_growth":
            expected = float(row.details["window_papers"] > question.params["baseline_count"])
            assert row.outcome == expected
        elif rule == "venue_count":
            assert row.outcome == sum(row.details["window_venues"].values())
    assert seen["count_growth"] and seen["venue_count"]
    # the toy world's n_vorp triples and n_quel collapses in the window
    growth = {question.node_id: resolutions[question.question_id].outcome for question in questions
              if question_rule(question) == "count_growth"}
    assert growth.get("n_vorp", 1.0) == 1.0 and growth.get("n_quel", 0.0) == 0.0


def test_share_decline_mirrors_share_growth_and_resolves_from_the_window() -> None:
    questions = _supply(ToyKB(until=CUTOFF), node_cap=6)
    snapshot = ToyKB(until=CUTOFF).snapshot
    resolutions = {row.question_id: row for row in resolve_questions(questions, {"toy": snapshot}, ToyKB())}
    by_rule: dict[str, dict[str, float]] = {"share_growth": {}, "share_decline": {}}
    for question in questions:
        rule = question_rule(question)
        if rule not in by_rule:
            continue
        row = resolutions[question.question_id]
        share, baseline = row.details["window_share"], question.params["baseline_share"]
        if rule == "share_decline":
            assert question.params["direction"] == "decline" and question.params["threshold"] < 1
            assert row.outcome == float(share * 1.10 <= baseline)
            assert 0 < float(question.baseline or 0) < 1
        by_rule[rule][str(question.node_id)] = row.outcome
    assert by_rule["share_growth"] and by_rule["share_decline"]
    both = set(by_rule["share_growth"]) & set(by_rule["share_decline"])
    assert both and not any(by_rule["share_growth"][node] and by_rule["share_decline"][node] for node in both)
    # the toy world's n_vorp triples and n_quel collapses in the window
    assert by_rule["share_decline"].get("n_vorp") == 0.0 and by_rule["share_decline"].get("n_quel") == 1.0


def test_venue_cap_spreads_a_domains_venue_questions_over_the_venue_families() -> None:
    def per_family(questions: list) -> Counter:
        return Counter((question.domain, question.params["venue_family"]) for question in questions
                       if "venue_family" in question.params)

    loose = _supply(ToyKB(until=CUTOFF), node_cap=4, venue_cap=100)
    capped = _supply(ToyKB(until=CUTOFF), node_cap=4, venue_cap=1)
    assert max(per_family(loose).values()) > 1
    assert max(per_family(capped).values()) == 1
    assert len(capped) == len(loose)  # a node past the cap takes its next rule


def test_default_supply_leaves_out_count_growth_and_fills_with_the_other_rules() -> None:
    from foresci.core.errors import UserError
    from foresci.rounds.config import SUPPLY_OFF, RoundSettings
    from foresci.tasks.forecast import chosen_rules

    default = _supply(ToyKB(until=CUTOFF), node_cap=5, rules=list(RoundSettings().rules))
    asked = chosen_rules(RoundSettings())
    assert {question_rule(question) for question in default} == set(asked) == set(RULES) - set(SUPPLY_OFF)
    assert "count_growth" in SUPPLY_OFF
    capped = _supply(ToyKB(until=CUTOFF), node_cap=3, rules=list(RoundSettings().rules))
    assert len(capped) == len(_supply(ToyKB(until=CUTOFF), node_cap=3))  # nodes fill their cap from the rest
    shares = [_supply(ToyKB(until=CUTOFF), node_cap=3, rules=["share_growth"])]
    assert {question_rule(question) for question in shares[0]} == {"share_growth"}
    try:
        _supply(ToyKB(until=CUTOFF), node_cap=3, rules=["share_growth", "coin_flip"])
    except UserError as error:
        assert "coin_flip" in str(error) and "rounds.rules" in str(error)
    else:
        raise AssertionError("an unknown supply rule was accepted")


def test_emergence_questions_cap_each_concept() -> None:
    from tests.rounds.test_emergence_items import CUTOFF as WORLD_CUTOFF
    from tests.rounds.test_emergence_items import DOMAIN, WorldKB

    freeze = EmergenceFreeze(PreCutoffReader(WorldKB(until=WORLD_CUTOFF), WORLD_CUTOFF), [DOMAIN], "1:r")
    capped = freeze.questions("3m", 40, concept_cap=1)
    keys = Counter(key for question in capped for key in question.params[KEYS_PARAM])
    assert capped and max(keys.values()) == 1
    loose = EmergenceFreeze(PreCutoffReader(WorldKB(until=WORLD_CUTOFF), WORLD_CUTOFF), [DOMAIN], "1:r")
    uncapped = Counter(key for question in loose.questions("3m", 40) for key in question.params[KEYS_PARAM])
    assert max(uncapped.values()) > 1  # the cap, not the world, keeps the concepts apart


def test_stratum_cycle_gives_each_stratum_its_weight_interleaved() -> None:
    assert stratum_cycle([1, 1, 1, 1]) == [0, 1, 2, 3]  # equal weights: the rotation rounds had before
    cycle = stratum_cycle([1, 2, 4, 4])
    assert Counter(cycle) == {0: 1, 1: 2, 2: 4, 3: 4}
    assert all(cycle[index - 1] != cycle[index] for index in range(len(cycle)))  # interleaved, wrapping too
    assert Counter(stratum_cycle([0, 0, 3, 1])) == {2: 3, 3: 1}
    with pytest.raises(ValueError, match="stratum weights"):
        stratum_cycle([0, 0, 0, 0])
    with pytest.raises(ValidationError, match="emergence_strata"):
        RoundSettings(emergence_strata=[0, 0, 0, 0])
    with pytest.raises(ValidationError):
        RoundSettings(emergence_strata=[1, 2, 4])
    assert RoundSettings().emergence_strata[0] < RoundSettings().emergence_strata[-1]  # the top stratum least


def test_emergence_questions_follow_the_stratum_weights() -> None:
    from tests.rounds.test_emergence_items import CUTOFF as WORLD_CUTOFF
    from tests.rounds.test_emergence_items import DOMAIN, WorldKB

    freeze = EmergenceFreeze(PreCutoffReader(WorldKB(until=WORLD_CUTOFF), WORLD_CUTOFF), [DOMAIN], "1:r")
    snapshot = freeze.snapshot(DOMAIN, "3m")
    stratum = {tuple(snapshot.vocabulary.keys[int(c)] for c in snapshot.candidates.pairs[row]): position
               for position, rows in enumerate(strata_of(snapshot)) for row in rows}
    weighted = freeze.questions("3m", 11, strata_weights=[1, 2, 4, 4])
    drawn = [stratum[tuple(question.params[KEYS_PARAM])] for question in weighted]
    assert Counter(drawn) == {0: 1, 1: 2, 2: 4, 3: 4}
    rates = freeze.stratum_base_rates(DOMAIN, "3m")
    assert [question.baseline for question in weighted] == [rates[position] for position in drawn]
    only_low = freeze.questions("3m", 6, strata_weights=[0, 0, 1, 1])
    assert {stratum[tuple(question.params[KEYS_PARAM])] for question in only_low} == {2, 3}


def test_round_takes_supply_size_from_settings_unless_the_ledger_sets_it(tmp_path: Path) -> None:
    settings = toy_settings()
    settings.rounds.questions = 20
    sizes = {}
    for name, questions in (("default", None), ("ledger", 6)):
        ledger = tmp_path / name
        init_ledger(ledger, LedgerConfig(schedule="manual", windows=["3m"], questions=questions,
                                         family_tasks=0, families=["direction_forecasting"], seed=1))
        round_id = open_round(ledger, ToyKB(until=CUTOFF), settings,
                              snapshots={"toy": ToyKB(until=CUTOFF).snapshot})
        manifest = load_round(ledger, round_id)
        sizes[name] = len(round_questions(ledger / "rounds" / round_id, manifest))
        assert manifest.counts["supply"]["node_cap"] == settings.rounds.node_cap
        assert manifest.counts["supply"]["venue_cap"] == settings.rounds.venue_cap
        assert manifest.counts["supply"]["emergence_strata"] == settings.rounds.emergence_strata
    assert sizes == {"default": 20, "ledger": 6}
