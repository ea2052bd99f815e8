"""A venue task asks about a project (#44): a contribution type and what the node's papers do, from the
node's pre-cutoff papers only, stated in the public question."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace

from foresci.kb.models import Paper
from foresci.tasks.families.venue_positioning.project import contribution_kind, project_description
from foresci.taxonomy.models import Node

CUTOFF = date(2025, 12, 31)


def _paper(paper_id: str, title: str, abstract: str, announced: date) -> Paper:
    return Paper(paper_id=paper_id, title=title, abstract=abstract, announced=announced)


def test_contribution_kinds() -> None:
    assert contribution_kind("A Survey of Agent Memory", "") == "a survey"
    assert contribution_kind("AgentBench-X", "We introduce a benchmark.") == "a benchmark or dataset"
    assert contribution_kind("On tool calls", "We conduct a systematic empirical study of tool calls.") == \
        "an empirical study"
    assert contribution_kind("FastRoute: sparse routing", "We propose a router.") == "a new method"
    assert contribution_kind("FastRoute: sparse routing", "Results on five benchmarks.") == "a new method"


def test_the_project_is_read_from_pre_cutoff_papers_only() -> None:
    before = [_paper(f"b{index}", f"TaskBench {index}: a benchmark for tool agents",
                     "We release a dataset of tool calls.", date(2025, 6, 1 + index)) for index in range(5)]
    before.append(_paper("m0", "RouteNet: sparse routing for agents", "We propose a method.",
                         date(2025, 7, 1)))
    after = [_paper(f"a{index}", f"A survey of tool agents {index}", "A survey.", date(2026, 2, 1 + index))
             for index in range(9)]
    papers = {paper.paper_id: paper for paper in (*before, *after)}
    node = Node(node_id="n1", label="tool_agents", name="tool agents",
                representative_ids=["a0", "a1", "b0", "m0"])
    evidence = SimpleNamespace(node=node, pre_ids=[paper.paper_id for paper in before])
    project = project_description(evidence, papers, CUTOFF, "tool agents")
    assert project["kind"] == "a benchmark or dataset"  # 5 benchmarks against 1 method; window surveys unread
    assert project["examples"] == ["TaskBench 0: a benchmark for tool agents",
                                   "RouteNet: sparse routing for agents"]
    assert project["text"].startswith("The project is a benchmark or dataset on tool agents")
    assert "survey" not in project["text"].lower()


def test_a_built_venue_task_states_its_project() -> None:
    from foresci.tasks.evidence import collect_evidence
    from foresci.tasks.families.venue_positioning.builder import build_venue_tasks
    from foresci.tasks.windows import make_window
    from tests.tasks.test_builders import SETTINGS, classify
    from tests.tasks.toy import toy_world

    snapshot, papers, assignment = toy_world()
    evidence = collect_evidence(snapshot, papers, assignment, make_window(CUTOFF, "venue_cycle"), classify)
    built = build_venue_tasks(evidence, SETTINGS, "toy", 10)
    assert built
    for item in built:
        project = item.task.context["project"]
        assert project["description"] in item.task.question
        assert project["type"] == "an empirical study"  # the toy titles read "<topic> study <n>"
        assert len(project["pre_cutoff_examples"]) == 2
