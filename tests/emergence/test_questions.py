"""Option sets for LLM questions: one pair per outcome bucket, strict hidden order, pre-cutoff texts."""

from __future__ import annotations

from foresci.emergence.build import emergence_set
from foresci.emergence.concepts import concept_papers
from foresci.emergence.config import load_emergence_settings
from foresci.emergence.questions import BUCKETS, binary_base_rate, option_sets, pair_option
from foresci.sim.emergence import EmergenceWorldConfig, generate_emergence_world
from foresci.tasks.families.concept_emergence.forecasts import binary_questions

CONFIG = EmergenceWorldConfig(seed=5, difficulty=0.0, planted_pairs=40, papers_per_pair=4,
                              min_papers_per_pair=1)
SETTINGS = load_emergence_settings()


def test_option_sets_cover_every_bucket_with_pre_cutoff_context() -> None:
    world = generate_emergence_world(CONFIG)
    papers = concept_papers(world.papers, SETTINGS.vocabulary)
    target = emergence_set(papers, CONFIG.cutoff, CONFIG.window_end, SETTINGS)
    sets = option_sets(target, 3, seed=1)
    assert sets, "the world plants pairs with several window papers"
    for option_set in sets:
        counts = sorted(option_set.window_papers, reverse=True)
        assert [min(count, 3) for count in counts] == list(BUCKETS)  # 3+, 2, 1, 0: a strict order
        assert [option_set.window_papers[i] for i in option_set.hidden_order()] == counts
        for option in option_set.options:
            assert option.first in option.context and option.second in option.context
            assert f"never in one paper up to {CONFIG.cutoff.isoformat()}" in option.context
    labels = [option.label for option_set in sets for option in option_set.options]
    assert len(labels) == len(set(labels))  # no pair twice
    alone = emergence_set([p for p in papers if p.announced <= CONFIG.cutoff], CONFIG.cutoff,
                          CONFIG.window_end, SETTINGS)
    for row in range(0, len(alone.counts), 97):  # the same text without the window
        assert pair_option(alone.snapshot, row) == pair_option(target.snapshot, row)
    assert binary_base_rate([True, False, False]) == round(1.5 / 4, 6)


def test_binary_questions_resolve_from_the_window_and_read_only_the_snapshot() -> None:
    world = generate_emergence_world(CONFIG)
    papers = concept_papers(world.papers, SETTINGS.vocabulary)
    target = emergence_set(papers, CONFIG.cutoff, CONFIG.window_end, SETTINGS)
    made = binary_questions(target, "synthetic", "3m", 2, 10, baseline=0.02, seed=3)
    assert len(made) == 10
    outcomes = [resolution.outcome for _, resolution in made]
    assert sum(outcomes) == 5  # half drawn from the positives
    for question, resolution in made:
        assert question.kind == "binary" and question.baseline == 0.02
        assert question.question_id == resolution.question_id
        count = resolution.details["window_papers"]
        assert resolution.outcome == float(count >= 2)
        assert question.params["first"] in question.text and "window_papers" not in question.params
        assert question.window_start > question.cutoff
    again = binary_questions(target, "synthetic", "3m", 2, 10, baseline=0.02, seed=3)
    assert [q.question_id for q, _ in again] == [q.question_id for q, _ in made]


def test_forms_of_one_phrase_are_no_question_pair() -> None:
    from foresci.emergence.questions import variant_pair

    assert variant_pair("tool call", "tool calling") and variant_pair("reasoning", "reasoning")
    assert not variant_pair("camera pose", "camera control")
    assert not variant_pair("graph reasoning", "graph reasoner")
    assert variant_pair("synthetic data", "synthetic data generation")  # one concept named twice
    assert variant_pair("synthetic data generation", "synthetic data")
    assert not variant_pair("synthetic data", "synthetic images")
    assert not variant_pair("reasoning", "reasoning models")  # a one-word key is too broad to call nested
    assert not variant_pair("LLM agents", "multi-agent LLM agents planning")


def test_option_sets_are_degree_matched_so_the_most_popular_pair_does_not_win_by_default() -> None:
    """#43: each non-top option is the pair of its bucket nearest the top pair in log(1 + d_i * d_j); drawn
    uniformly within buckets instead, the top pair is the strictly most popular one more often."""
    import numpy as np

    world = generate_emergence_world(CONFIG)
    target = emergence_set(concept_papers(world.papers, SETTINGS.vocabulary), CONFIG.cutoff,
                           CONFIG.window_end, SETTINGS)
    popularity = np.log1p(target.snapshot.features.baseline("preferential_attachment"))
    index = {(target.snapshot.vocabulary.names[int(a)], target.snapshot.vocabulary.names[int(b)]): row
             for row, (a, b) in enumerate(target.snapshot.candidates.pairs)}

    def spread(sets: list) -> float:  # mean |log popularity - the top pair's| of the non-top options
        gaps = []
        for option_set in sets:
            rows = [index[(option.first, option.second)] for option in option_set.options]
            top = rows[option_set.hidden_order()[0]]
            gaps += [abs(popularity[row] - popularity[top]) for row in rows if row != top]
        return float(np.mean(gaps))

    matched = option_sets(target, 30, seed=1, max_persistence_share=1.0, floors=(3, 1, 0))
    uniform = option_sets(target, 30, seed=1, max_persistence_share=1.0, floors=(3, 1, 0), matched=False)
    assert len(matched) == len(uniform) >= 10
    assert spread(matched) < 0.5 * spread(uniform)
    on_top = [sum(item.persistence_match for item in sets) for sets in (matched, uniform)]
    assert on_top[0] < on_top[1] and on_top[0] <= len(matched) / 3


def test_the_top_pairs_place_rotates_so_the_first_option_wins_no_more_than_chance() -> None:
    """The top-bucket pair takes each place in turn (a seeded order alone put it first in 9 of 14 kept
    concept tasks at a real cutoff, and the first-option gate left the family out of that release); the
    other options keep a seeded order."""
    from collections import Counter

    world = generate_emergence_world(CONFIG)
    target = emergence_set(concept_papers(world.papers, SETTINGS.vocabulary), CONFIG.cutoff,
                           CONFIG.window_end, SETTINGS)
    for matched in (True, False):
        sets = option_sets(target, 30, seed=3, max_persistence_share=1.0, floors=(3, 1, 0), matched=matched)
        assert len(sets) >= 10
        places = [option_set.hidden_order()[0] for option_set in sets]
        assert places == [index % 3 for index in range(len(sets))]
        assert max(Counter(places).values()) - min(Counter(places).values()) <= 1
