"""Bottleneck supply (#44): a limitation the domain's papers state is matched to the node whose own words
name it, though the node's papers never state it in a limitation sentence."""

from __future__ import annotations

from foresci.tasks.evidence import collect_evidence
from foresci.tasks.families.bottleneck_opportunity.builder import node_bottlenecks
from foresci.tasks.windows import make_window
from tests.tasks.test_builders import classify
from tests.tasks.toy import CUTOFF, toy_world

STATED = "However, reward models remain limited by gradient collapse."
USED = "We track gradient collapse during sarn reward shaping."


def test_a_limitation_stated_elsewhere_in_the_domain_is_matched_to_the_node_whose_words_it_uses() -> None:
    snapshot, papers, assignment = toy_world()
    stated = used = 0
    changed = []
    for paper in papers:
        node, before = assignment[paper.paper_id], paper.announced <= CUTOFF
        if before and node == "n_glim" and stated < 4:  # another node's papers state the limitation
            paper = paper.model_copy(update={"abstract": f"{paper.abstract} {STATED}"})
            stated += 1
        elif before and node == "n_sarn" and used < 6:  # its papers use the words, never as a limitation
            paper = paper.model_copy(update={"abstract": f"{paper.abstract} {USED}"})
            used += 1
        changed.append(paper)
    evidence = collect_evidence(snapshot, changed, assignment, make_window(CUTOFF, "3m"), classify)
    sarn = [signal.text for signal in node_bottlenecks(evidence.nodes["n_sarn"], evidence)]
    assert "gradient collapse" in sarn
    assert node_bottlenecks(evidence.nodes["n_sarn"]) == []  # not the node's own statement: domain-mined
    quel = [signal.text for signal in node_bottlenecks(evidence.nodes["n_quel"], evidence)]
    assert "gradient collapse" not in quel  # its papers never use the words
    assert "cache eviction thrash" in quel
