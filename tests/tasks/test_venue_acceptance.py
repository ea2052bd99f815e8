"""Venue targets and evidence count acceptances only; a tied top venue family drops the task."""

from __future__ import annotations

from collections import Counter

from foresci.kb.models import Paper
from foresci.tasks.evidence import collect_evidence
from foresci.tasks.families.venue_positioning.builder import build_venue_tasks, top_is_tied
from foresci.tasks.windows import make_window
from foresci.taxonomy.venues import accepted_venue_family
from tests.tasks.test_builders import SETTINGS, classify
from tests.tasks.toy import CUTOFF, toy_world

CV, ML = "CVPR/ICCV/ECCV", "ICLR/ICML/NeurIPS"


def _relabel(papers: list[Paper], assignment: dict[str, str], node: str, family: str, comment: str,
             limit: int | None = None) -> list[Paper]:
    """Give ``limit`` (all when None) window papers of ``node`` at ``family`` a non-acceptance comment,
    keeping the family an old parser stored on them."""
    window = make_window(CUTOFF, "venue_cycle")
    changed, result = 0, []
    for paper in papers:
        hit = (assignment[paper.paper_id] == node and paper.venue_family == family
               and window.contains(paper.announced) and (limit is None or changed < limit))
        if hit:
            changed += 1
            paper = paper.model_copy(update={"comment": comment})
        result.append(paper)
    return result


def _built(papers: list[Paper]) -> dict[str, list[str]]:
    snapshot, _, assignment = toy_world()
    evidence = collect_evidence(snapshot, papers, assignment, make_window(CUTOFF, "venue_cycle"), classify)
    built = {}
    for item in build_venue_tasks(evidence, SETTINGS, "toy", 10):
        names = {candidate.option_id: candidate.name for candidate in item.task.candidates}
        built[item.hidden.stats["node_id"]] = [names[option] for option in item.hidden.ranking]
    return built


def test_accepted_family_rereads_the_comment() -> None:
    old = Paper(paper_id="1", title="t", abstract="a", announced=CUTOFF, venue_family=ML,
                comment="[ICLR26 Submission]")
    assert accepted_venue_family(old) is None
    assert accepted_venue_family(old.model_copy(update={"comment": "Accepted at ICLR 2026"})) == ML
    assert accepted_venue_family(old.model_copy(update={"comment": None})) == ML


def test_submissions_do_not_make_a_hidden_top_venue() -> None:
    _, papers, assignment = toy_world()
    assert _built(papers)["n_vorp"][0] == CV
    relabelled = _relabel(papers, assignment, "n_vorp", CV, "CVPR 2026 submission")
    assert _built(relabelled)["n_vorp"][0] != CV


def test_a_tie_at_the_top_drops_the_task() -> None:
    assert top_is_tied(Counter({CV: 2, ML: 2, "AAAI/IJCAI": 1})) and not top_is_tied(Counter({CV: 3, ML: 2}))
    _, papers, assignment = toy_world()
    window = make_window(CUTOFF, "venue_cycle")
    counts = Counter(paper.venue_family for paper in papers if assignment[paper.paper_id] == "n_vorp"
                     and window.contains(paper.announced) and paper.venue_family)
    surplus = counts[CV] - counts[ML]
    assert surplus > 0
    tied = _relabel(papers, assignment, "n_vorp", CV, "Accepted at the CVPR 2026 Workshop on X", surplus)
    assert "n_vorp" not in _built(tied)


def test_venue_key_is_fit_against_the_domain_mix_not_the_calendar() -> None:
    """#44: in a window where CVPR acceptances flood the whole domain (the calendar), a node with most of
    its papers at CVPR but NeurIPS-family papers well above the domain's share is keyed NeurIPS; a node
    mirroring the domain's mix has no family above noise."""
    from foresci.tasks.families.venue_positioning.builder import venue_fit, venue_order

    domain = Counter({CV: 80, ML: 10, "ACL/EMNLP/NAACL": 10})
    node = Counter({CV: 6, ML: 5})
    assert venue_order(node, domain)[0] == ML
    fit = venue_fit(node, domain)
    assert fit[ML]["z"] >= 1.0 > fit[CV]["z"]
    mirror = venue_fit(Counter({CV: 8, ML: 1, "ACL/EMNLP/NAACL": 1}), domain)
    assert max(value["z"] for value in mirror.values()) < 1.0
