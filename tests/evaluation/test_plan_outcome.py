"""A plan's milestones and go/no-go criterion are scored against the window (#44), and the metric is
registered where metrics are and applies where the planning family lists it."""

from __future__ import annotations

from datetime import date

from foresci.contracts import Answer
from foresci.evaluation.config import EvaluationSettings
from foresci.evaluation.metrics import ScoringContext, get_metric
from foresci.evaluation.plan_outcome import criterion_verdict, milestone_credit, plan_outcome
from foresci.tasks.families import family_names, get_family
from foresci.tasks.hidden import make_hidden_target
from foresci.tasks.models import Candidate, Task

TITLES = ["GUI-Bench: a benchmark for mobile GUI agents", "Screen grounding with small vision models"]
STATS = {"options": {"A": {"window": 12, "log_share_growth": 0.4, "newcomer_share": 0.6,
                           "baseline_newcomer_share": 0.4},
                     "B": {"window": 3, "log_share_growth": -0.3, "newcomer_share": 0.2,
                           "baseline_newcomer_share": 0.5}},
         "window_titles": {"A": TITLES, "B": ["Tool routing revisited"]}}


def test_a_milestone_is_credited_by_a_matching_window_paper_only() -> None:
    assert milestone_credit("release a benchmark for GUI agents in the first month", TITLES) == TITLES[0]
    assert milestone_credit("a first result within 2 months", TITLES) is None  # filler only
    assert milestone_credit("a compiler for code agents", TITLES) is None  # shares 'agents' only


def test_the_go_no_go_criterion_is_read_against_the_window() -> None:
    assert criterion_verdict("go if at least 10 new papers appear", STATS["options"]["A"])[0] is True
    assert criterion_verdict("go if at least 10 new papers appear", STATS["options"]["B"])[0] is False
    assert criterion_verdict("continue if its share grows by 30 %", STATS["options"]["A"])[0] is True
    assert criterion_verdict("continue if newcomers keep publishing", STATS["options"]["B"])[0] is False
    assert criterion_verdict("trust your instincts", STATS["options"]["A"])[0] is None


def test_a_stated_newcomer_share_is_the_bar_not_the_options_own_past() -> None:
    # A's newcomers wrote 60 % of its window papers (40 % before the cutoff), B's 20 % (50 % before)
    assert criterion_verdict("continue if newcomers write at least 55 % of its papers",
                             STATS["options"]["A"])[0]
    assert not criterion_verdict("continue if newcomers write at least 65 % of its papers",
                                 STATS["options"]["A"])[0]
    assert criterion_verdict("go on while newcomers write 15% of its window papers", STATS["options"]["B"])[0]
    rounded = {"newcomer_share": 0.875, "baseline_newcomer_share": 0.9}  # a bar stated rounded is met
    assert criterion_verdict("newcomers wrote 88% of its papers", rounded)[0]
    assert not criterion_verdict("newcomers wrote 87.6% of its papers", rounded)[0]


def test_the_keys_own_plan_passes_its_go_no_go() -> None:
    """The planning builder's key states its top option's window newcomer share in its criterion; read as
    the bar, the key's own plan says go for the option that was right to go (main read it as 'share at
    least the option's own before the cutoff' and failed the key on 10 of 25 real tasks)."""
    stats = {"options": {"A": {"window": 12, "log_share_growth": 0.4, "newcomer_share": 0.4483,
                               "baseline_newcomer_share": 0.7},
                         "B": {"window": 3, "log_share_growth": -0.3, "newcomer_share": 0.2,
                               "baseline_newcomer_share": 0.1}}}
    key = ("continue if newcomers keep publishing in GUI agents (they wrote 45% of its window papers); stop "
           "if its papers come back to the teams already in it")
    scored = plan_outcome("A", [], key, ["A", "B"], stats)
    assert scored is not None and scored["go_no_go"] == 1.0, scored


def test_plan_scores() -> None:
    good = plan_outcome("A", ["release a benchmark for GUI agents", "a first result in month one"],
                        "go if at least 10 new papers", ["A", "B"], STATS)
    assert good is not None and good["milestones"] == 0.5 and good["go_no_go"] == 1.0
    assert good["value"] == 0.75
    wrong = plan_outcome("B", ["release a benchmark for GUI agents"], "go if its share keeps growing",
                         ["A", "B"], STATS)
    assert wrong is not None and wrong["milestones"] == 0.0
    assert wrong["go_no_go"] == 1.0  # B shrank: the criterion says stop, and B was the wrong option
    vague = plan_outcome("A", [], "see how it goes", ["A", "B"], STATS)
    assert vague is not None and vague["value"] == 0.0
    assert plan_outcome("C", [], "", ["A", "B"], STATS) is None


def test_the_metric_is_registered_and_listed_by_the_planning_family_only() -> None:
    metric = get_metric("plan_outcome")
    assert [name for name in family_names() if metric.applies_to(name)] == [
        name for name in family_names() if "plan_outcome" in get_family(name).metrics]
    task = Task(task_id="sp-x", family="strategic_planning", domain="d", cutoff=date(2025, 12, 31),
                horizon="3m", window_start=date(2026, 1, 1), window_end=date(2026, 3, 31), title="t",
                question="q", candidates=[Candidate(option_id="A", name="GUI agents"),
                                          Candidate(option_id="B", name="tool routing")])
    hidden = make_hidden_target(task_id="sp-x", family="strategic_planning", ranking=["A", "B"], stats=STATS)
    answer = Answer(task_id="sp-x", family="strategic_planning", method="m",
                    payload={"ranking": [{"option_id": "A"}, {"option_id": "B"}],
                             "milestones": ["release a benchmark for GUI agents"],
                             "go_no_go": "go if at least 10 new papers"})
    result = metric.compute(ScoringContext(answer=answer, settings=EvaluationSettings(), task=task,
                                           hidden=hidden))
    assert result is not None and result.value == 1.0 and result.details["credited"]
