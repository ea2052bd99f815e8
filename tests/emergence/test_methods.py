"""The shipped link-prediction methods and what the family adds to a release: the network baselines
rank a task's pairs by the measure the task states, ``learned_links`` ranks and forecasts from a model
trained on pre-cutoff data only, and the release parts (binary questions, bulk set) resolve from the
window while their public side reads the snapshot only."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import numpy as np
import pytest

from foresci.kb.models import Paper
from foresci.methods.forecast_runner import plan_forecasts
from foresci.methods.registry import MethodInput, registered
from foresci.sim.emergence import generate_emergence_world
from foresci.tasks.builders.common import Built
from foresci.tasks.config import TaskSettings
from foresci.tasks.evidence import DomainEvidence
from foresci.tasks.families.concept_emergence.builder import build_emergence_tasks
from foresci.tasks.families.concept_emergence.release import emergence_release_parts
from foresci.tasks.models import ForecastQuestion
from foresci.tasks.text import vocabulary
from foresci.tasks.windows import make_window
from foresci.taxonomy.models import Snapshot
from tests.emergence.world import CONFIG, CutoffView

NETWORK = ("preferential_attachment", "common_neighbours", "adamic_adar", "jaccard", "resource_allocation")


@pytest.fixture(scope="module")
def world() -> tuple[list[Built], DomainEvidence, list[Paper]]:
    generated = generate_emergence_world(CONFIG)
    window = make_window(CONFIG.cutoff, "3m")
    papers = list(generated.papers)
    pre_texts = [paper.text for paper in papers if paper.announced <= CONFIG.cutoff]
    evidence = DomainEvidence(domain="synthetic", snapshot=Snapshot.model_construct(), window=window,
                              papers={paper.paper_id: paper for paper in papers}, assignment={}, nodes={},
                              reference_baseline=0, reference_window=0, reference_monthly={},
                              pre_vocabulary=vocabulary(pre_texts))
    return build_emergence_tasks(evidence, TaskSettings(), "synthetic systems", 8), evidence, papers


def test_network_methods_read_the_measures_from_the_kb_not_the_task(
        world: tuple[list[Built], DomainEvidence, list[Paper]]) -> None:
    """#43: a task states no network measure (the rule reading the stated Adamic–Adar tied trend); the link
    methods read the network the KB view shows at the cutoff: the same measures the builder's snapshot
    holds for each pair."""
    import re

    from foresci.agents.baselines.pair_network import network_score, pair_signals
    from foresci.emergence.questions import pair_option
    from foresci.tasks.families.concept_emergence.builder import window_target

    items, evidence, papers = world
    tools = SimpleNamespace(view=CutoffView(papers, CONFIG.cutoff, SimpleNamespace(path="world-6m",
                                                                                   fingerprint="f")))
    snapshot = window_target(evidence).snapshot
    rows = {f"{snapshot.vocabulary.names[int(first)]} + {snapshot.vocabulary.names[int(second)]}": row
            for row, (first, second) in enumerate(snapshot.candidates.pairs)}
    methods = registered()
    for item in items:
        assert "pair_signals" not in item.task.context
        assert not any(re.search(r"\d+ (papers|concepts?)", c.description) for c in item.task.candidates)
        signals = pair_signals(tools.view, item.task)
        for candidate in item.task.candidates:
            stated = pair_option(snapshot, rows[candidate.name]).signals  # what the task used to state
            read = {key: signals[candidate.option_id][key] for key in stated}
            assert read == pytest.approx(stated, abs=1e-6)
        for name in NETWORK:
            assert methods[name].needs_kb
            result = methods[name].answer(MethodInput(task=item.task, mode="full",
                                                      tools=tools))  # type: ignore[arg-type]
            ranked = [entry.option_id for entry in result.answer.ranking]  # type: ignore[union-attr]
            values = [network_score(signals[option], name) for option in ranked]
            assert sorted(ranked) == sorted(c.option_id for c in item.task.candidates)
            assert values == sorted(values, reverse=True)
    with pytest.raises(ValueError, match="needs a KB"):
        methods["adamic_adar"].answer(MethodInput(task=items[0].task, mode="full"))


def test_learned_links_ranks_and_forecasts_from_the_view_only(
        world: tuple[list[Built], DomainEvidence, list[Paper]]) -> None:
    items, evidence, papers = world
    spec = registered()["learned_links"]
    kb = SimpleNamespace(path="world-6", fingerprint="f")
    tools = SimpleNamespace(view=CutoffView(papers, CONFIG.cutoff, kb))
    for item in items:
        result = spec.answer(MethodInput(task=item.task, mode="full", tools=tools))  # type: ignore[arg-type]
        ranked = [entry.option_id for entry in result.answer.ranking]  # type: ignore[union-attr]
        assert sorted(ranked) == sorted(c.option_id for c in item.task.candidates)
    from foresci.emergence.pair_model import domain_model
    from foresci.emergence.scoring import score_pairs

    model = domain_model(tools.view, "synthetic", CONFIG.cutoff, 3)
    from foresci.agents.baselines.pair_network import _network

    # the network baselines and the learned model read one computation (emergence/domain_network.py)
    assert items[0].task.horizon == "3m" and _network(tools.view, items[0].task)[1] is model.snapshot.network
    bulk = emergence_release_parts([evidence], TaskSettings(), forecast_questions=0)
    names = [(row["first"], row["second"]) for row in bulk.public_files["emergence_pairs.jsonl"]]
    labels = np.asarray([row["window_papers"] >= 1 for row in bulk.hidden_files["emergence_hidden.jsonl"]])
    scores = np.asarray([model.probability(*pair) for pair in names], dtype=float)
    assert score_pairs(scores, labels, [], 0, 0)["auc"].value > 0.8  # difficulty 0: announced pairs
    parts = emergence_release_parts([evidence], TaskSettings(), forecast_questions=1)
    outcomes = {row.question_id: row.outcome for row in parts.resolutions}
    assert set(outcomes.values()) == {0.0, 1.0}
    probabilities = {}
    for question in parts.questions:
        answer = spec.forecast(question, SimpleNamespace(tools=tools))  # type: ignore[misc, arg-type]
        probabilities[question.question_id] = answer.probability
    positive = [p for q, p in probabilities.items() if outcomes[q] == 1.0]
    negative = [p for q, p in probabilities.items() if outcomes[q] == 0.0]
    assert np.mean(positive) > np.mean(negative)
    # a model trained from a view that also held the window would be a leak: the view's cutoff bounds it
    later = CutoffView(papers, CONFIG.window_end, kb)
    assert later.papers() != tools.view.papers()


def test_release_parts_hide_the_window_and_sample_before_reading_it(
        world: tuple[list[Built], DomainEvidence, list[Paper]]) -> None:
    _, evidence, _ = world
    parts = emergence_release_parts([evidence], TaskSettings(), forecast_questions=0)
    assert parts.questions == [] and parts.resolutions == []
    public = parts.public_files["emergence_pairs.jsonl"]
    hidden = parts.hidden_files["emergence_hidden.jsonl"]
    assert [row["pair_id"] for row in public] == [row["pair_id"] for row in hidden]
    assert all("window_papers" not in row for row in public)
    assert parts.counts["emergence_pairs"] == len(public) > 0
    asked = emergence_release_parts([evidence], TaskSettings(), forecast_questions=16)
    assert len(asked.questions) == 2
    assert {question.params["family"] for question in asked.questions} == {"concept_emergence"}
    assert all(q.question_id.startswith("ceq-") and q.kind == "binary" for q in asked.questions)
    assert asked.public_files == parts.public_files  # forecast questions do not move the bulk sample


def test_a_run_asks_link_methods_only_concept_emergence_questions() -> None:
    methods = registered()
    question = ForecastQuestion(question_id="fq-1", kind="binary", domain="d", cutoff=date(2025, 1, 31),
                                window_start=date(2025, 2, 1), window_end=date(2025, 4, 30), text="?",
                                resolution_rule="r", params={"family": "direction_forecasting"})
    ce = question.model_copy(update={"question_id": "ceq-1", "params": {"family": "concept_emergence"}})
    specs = [methods[name] for name in ("trend", "learned_links", *NETWORK)]
    planned = plan_forecasts([question, ce], specs, [], "full")
    jobs = {(job.question.question_id, job.spec.name) for job in planned}
    assert jobs == {("fq-1", "trend"), ("ceq-1", "trend"), ("ceq-1", "learned_links")}


def test_link_methods_answer_any_family_declaring_the_pair_network_strategy_through_its_ranked_by() -> None:
    """The link methods name no family: a run asks them the tasks of every family declaring the
    ``pair_network`` baseline strategy (an extension included) and they answer through its ``ranked_by``."""
    from foresci.tasks.families import base as family_base
    from foresci.tasks.families import family_names, get_family, register_family
    from foresci.tasks.families.concept_emergence.family import ConceptEmergence
    from foresci.tasks.families.lookup import FAMILIES
    from foresci.tasks.models import Candidate, Task

    calls: list[tuple[str, str]] = []

    class Pairs(ConceptEmergence):
        name = "outside_pairs_family"
        abbreviation = "op"
        round_default = None
        round_items = None

        def ranked_by(self, task, score, who, value, tie=None):  # type: ignore[no-untyped-def]
            calls.append((score, who))
            return super().ranked_by(task, score, who, value, tie)

    window = make_window(CONFIG.cutoff, "3m")
    register_family(Pairs)
    try:
        methods = registered()
        assert [family for family in family_names() if methods["jaccard"].asks(family)] == [
            name for name in family_names() if get_family(name).baseline_strategy == "pair_network"]
        assert methods["jaccard"].asks(Pairs.name) and not methods["jaccard"].asks("no such family")
        signals = {"A": {"common_neighbours": 3, "degree_first": 4, "degree_second": 5},
                   "B": {"common_neighbours": 1, "degree_first": 2, "degree_second": 2}}
        task = Task(task_id="op-1", family=Pairs.name, domain="synthetic", cutoff=CONFIG.cutoff, horizon="3m",
                    window_start=window.start, window_end=window.end, title="t", question="q?",
                    candidates=[Candidate(option_id="A", name="a + b"),
                                Candidate(option_id="B", name="c + d")],
                    context={"pair_signals": signals})
        result = methods["common_neighbours"].answer(MethodInput(task=task, mode="full"))
        assert calls == [("common_neighbours", "common_neighbours")]
        assert [entry.option_id for entry in result.answer.ranking] == ["A", "B"]
    finally:
        FAMILIES.remove(Pairs.name)
        family_base._family_tuple.cache_clear()
