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
    others = [_paper(f"o{index}", f"Sparse routing variant {index}", "We propose a router.",
                     date(2025, 5, 1 + index)) for index in range(20)]  # the domain's other papers: methods
    papers = {paper.paper_id: paper for paper in (*before, *after, *others)}
    node = Node(node_id="n1", label="tool_agents", name="tool agents",
                representative_ids=["a0", "a1", "b0", "m0"])
    evidence = SimpleNamespace(node=node, pre_ids=[paper.paper_id for paper in before])
    project = project_description(evidence, papers, CUTOFF, "tool agents")
    assert project["kind"] == "a benchmark or dataset"  # 5 benchmarks against 1 method; window surveys unread
    # central papers, those of the project's kind first
    assert project["examples"] == ["TaskBench 0: a benchmark for tool agents",
                                   "TaskBench 1: a benchmark for tool agents"]
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
        # every toy title reads "<topic> study <n>": no kind is more common in a node than in its domain
        assert project["type"] == "a new method"
        assert len(project["pre_cutoff_examples"]) == 2


def test_the_type_is_the_kind_a_node_holds_more_often_than_its_domain() -> None:
    """Methods are most papers of every node; the type is the kind over-represented in the node (#44)."""
    def papers_of(prefix: str, benchmarks: int, surveys: int, methods: int) -> list[Paper]:
        made = [_paper(f"{prefix}b{index}", f"EvalSuite {index}: a benchmark for agents", "We release it.",
                       date(2025, 3, 1 + index)) for index in range(benchmarks)]
        made += [_paper(f"{prefix}s{index}", f"A survey of agents, part {index}", "We survey.",
                        date(2025, 4, 1 + index)) for index in range(surveys)]
        made += [_paper(f"{prefix}m{index}", f"FastAgent {index}: planning with tools", "We plan.",
                        date(2025, 5, 1 + index % 28)) for index in range(methods)]
        return made

    nodes = {"bench": papers_of("x", 4, 0, 12), "plain": papers_of("y", 1, 1, 30),
             "review": papers_of("z", 0, 3, 9), "few": papers_of("w", 2, 0, 6)}
    papers = {paper.paper_id: paper for members in nodes.values() for paper in members}
    kinds = {}
    for name, members in nodes.items():
        ids = [paper.paper_id for paper in members]
        node = Node(node_id=name, label=name, name=name, representative_ids=ids)
        evidence = SimpleNamespace(node=node, pre_ids=ids)
        kinds[name] = project_description(evidence, papers, CUTOFF, name)
    assert kinds["bench"]["kind"] == "a benchmark or dataset"  # 4 of 16 against 7 of 84 in the domain
    assert kinds["bench"]["examples"][0].startswith("EvalSuite")  # an example of the project's kind first
    assert kinds["review"]["kind"] == "a survey"
    assert kinds["plain"]["kind"] == "a new method"  # the domain's own mix
    assert kinds["few"]["kind"] == "a new method"  # 2 benchmarks are under MIN_KIND_PAPERS
    assert kinds["plain"]["kinds"] == {"a benchmark or dataset": 1, "a new method": 30, "a survey": 1}
