"""The one option resolver, on the label shapes real models emit, and agents/evaluation agreeing on it."""

from __future__ import annotations

import pytest

from foresci.agents.render import check_contract
from foresci.contracts import RankedOption
from foresci.tasks.families.strategic_planning.family import PlanningAnswer
from foresci.tasks.models import Candidate
from foresci.tasks.options import parse_answer_ranking, resolve_option
from tests.agents.toy import toy_tasks

OPTIONS = [
    Candidate(option_id="A", name="graph memory"),
    Candidate(option_id="B", name="tool routing"),
    Candidate(option_id="C", name="reward shaping"),
]
VENUES = [
    Candidate(option_id="acl", name="ACL/EMNLP/NAACL"),
    Candidate(option_id="ml", name="ICLR/ICML/NeurIPS"),
    Candidate(option_id="cv", name="CVPR/ICCV/ECCV"),
]


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("A", "A"),
        ("a", "A"),
        ("  A.  ", "A"),
        ("A: graph memory", "A"),
        ("A - graph memory", "A"),
        ("A) graph memory", "A"),
        ("Option A", "A"),
        ("option b:", "B"),
        ("(A)", "A"),
        ("[C]", "C"),
        ("**B**", "B"),
        ("(B) tool routing", "B"),
        ("tool routing (B)", "B"),
        ("graph memory", "A"),
        ("Graph-Memory!", "A"),
        ("  reward   shaping ", "C"),
        ("graph memories", "A"),  # near miss
        ("grpah memory", "A"),  # typo
        ("Option C: Reward shaping.", "C"),
    ],
)
def test_shapes_real_models_emit_resolve(label: str, expected: str) -> None:
    assert resolve_option(label, OPTIONS) == expected


@pytest.mark.parametrize(
    "label",
    [
        "2",
        "https://arxiv.org/abs/2506.00001",
        "",
        "D",
        "A: tool routing",  # id of one option, name of another
        "graph routing",  # equally near two names
        "A careful choice",
        None,
    ],
)
def test_unknown_or_ambiguous_labels_resolve_to_nothing(label: str | None) -> None:
    assert resolve_option(label, OPTIONS) is None


def test_shared_fragment_of_two_names_is_ambiguous() -> None:
    options = [Candidate(option_id="A", name="LLM agents"), Candidate(option_id="B", name="VLM agents")]
    assert resolve_option("agents", options) is None
    assert resolve_option("LM agents", options) is None
    assert resolve_option("llm agent", options) == "A"


def test_word_ids_and_slash_names() -> None:
    assert resolve_option("ML", VENUES) == "ml"
    assert resolve_option("ICLR/ICML/NeurIPS", VENUES) == "ml"
    assert resolve_option("acl: ACL/EMNLP/NAACL", VENUES) == "acl"
    assert resolve_option("iclr icml neurips", VENUES) == "ml"


def test_agents_and_evaluation_read_a_ranking_the_same_way() -> None:
    task = next(task for task in toy_tasks() if task.family == "strategic_planning")
    labels = ["B: tool routing", "Option C", "(a)", "A: tool routing", "quantum agents"]
    said = PlanningAnswer(ranking=[RankedOption(option_id=label) for label in labels])
    checked = check_contract(task, said)
    agent_side = [item.option_id for item in checked.answer.ranking]  # type: ignore[attr-defined]
    payload = {"ranking": [{"option_id": label} for label in labels]}
    scored, source = parse_answer_ranking(payload, "", task.candidates)
    assert agent_side == scored == ["B", "C", "A", "A: tool routing", "quantum agents"]
    assert source == "payload"
