"""The opportunity miner and the bottleneck miner of the bottleneck-opportunity builder."""

from __future__ import annotations

from datetime import date

from foresci.kb.models import Paper
from foresci.tasks.bottleneck_mining import mined_bottlenecks
from foresci.tasks.evidence import DomainEvidence
from foresci.tasks.families.bottleneck_opportunity.builder import opportunity_phrases
from foresci.tasks.windows import make_window
from foresci.taxonomy.models import Snapshot

CUTOFF = date(2024, 12, 31)


def _paper(paper_id: str, announced: date, abstract: str) -> Paper:
    return Paper(paper_id=paper_id, title=f"Study {paper_id}", abstract=abstract, announced=announced)


def _domain(papers: list[Paper]) -> DomainEvidence:
    snapshot = Snapshot(domain="d", cutoff=CUTOFF, slice_index=0, slice_bounds=[(date(2024, 1, 1), CUTOFF)],
                        nodes=[])
    return DomainEvidence(domain="d", snapshot=snapshot, window=make_window(CUTOFF, "3m"),
                          papers={paper.paper_id: paper for paper in papers}, assignment={}, nodes={},
                          reference_baseline=1, reference_window=1, reference_monthly={},
                          pre_vocabulary=frozenset())


def test_opportunity_next_to_the_bottleneck_beats_a_more_distinctive_unrelated_phrase() -> None:
    """"gloam auditing" is written next to the reduced bottleneck by every addressing paper, always as part
    of "gloam auditing for vesper routing" (a joiner phrase, never an opportunity itself, so it must not
    hide the base phrase); "quill lattice" is new in the window too, more frequent, but no paper addressing
    the bottleneck writes it: it is no opportunity of the bottleneck at all."""
    before = [_paper(f"p{index}", date(2024, 6, 1), text) for index, text in enumerate(
        ["Prior methods remain limited by cache drift in routing.", "We study sparse heads for routing.",
         "A benchmark for routing under noisy labels.", "Token budgets in routing.",
         "Heads and caches for routing.", "Pruning schedules for sparse routing.",
         "Routing with learned gates.", "Gate collapse in routing.", "Load balance in expert routing.",
         "Cache drift hurts routing at scale."])]
    addressing = [
        "Now that cache drift has been reduced, we pursue gloam auditing for vesper routing.",
        "A tidal pruner reduces cache drift, which opens the way to gloam auditing for vesper routing.",
        "Now that cache drift is reduced, gloam auditing for vesper routing becomes practical.",
        "A pruner reduces cache drift and enables gloam auditing for vesper routing at scale.",
    ]
    unrelated = ["We train a quill lattice on routing data.", "A quill lattice improves routing.",
                 "Quill lattice models for routing.", "We scale the quill lattice to new data.",
                 "The quill lattice is a new routing model.", "A quill lattice for sparse routing."]
    window = [_paper(f"w{index}", date(2025, 1, 15), text)
              for index, text in enumerate(addressing + unrelated)]
    domain = _domain(before + window)
    found = opportunity_phrases(domain, [paper.paper_id for paper in window],
                                [paper.paper_id for paper in before], exclude={"cache", "drift"},
                                min_support=3, bottleneck="cache drift",
                                addressing=[f"w{index}" for index in range(len(addressing))])

    support = {text.lower(): count for text, count in found}
    assert found[0][0].lower() == "gloam auditing" and support["gloam auditing"] == 4
    assert "quill lattice" not in support


def test_recurring_problem_phrases_of_limitation_sentences_are_bottleneck_candidates() -> None:
    abstracts = [
        "However, multi-hop pipelines suffer from severe error propagation across retrieval steps.",
        "Existing retrievers remain limited by error propagation and high token costs.",
        "Our method reduces error propagation by 20% over strong baselines.",  # a result, not a limitation
        "Long-context readers still struggle with high token costs in practice.",
        "We propose a new retriever for question answering.",
    ]
    papers = {f"p{index}": _paper(f"p{index}", date(2024, 3 + index, 1), text)
              for index, text in enumerate(abstracts)}
    mined = mined_bottlenecks(papers, list(papers))

    assert [(signal.text, signal.count) for signal in mined] == [("error propagation", 2), ("token costs", 2)]
    assert mined[0].paper_ids == ["p0", "p1"] and mined[0].first_seen == date(2024, 3, 1)
    assert mined[1].variants[0].startswith("Existing retrievers remain limited by error propagation")
    assert mined_bottlenecks(papers, list(papers), min_papers=3) == []


def test_a_problem_is_no_opportunity() -> None:
    """Every paper reducing cache drift also writes 'error accumulation' (a problem) and 'gloam auditing':
    only the latter is what reducing the bottleneck opens (the real release had offered 'error
    accumulation' as the opportunity of 'computationally intensive sampling')."""
    found = _cache_drift_opportunities("A pruner reduces cache drift, which enables gloam auditing. Severe "
                                       "error accumulation follows.")
    assert "gloam auditing" in found and not any("accumulation" in phrase for phrase in found), found


def _cache_drift_opportunities(window_text: str) -> list[str]:
    """Opportunities of the bottleneck 'cache drift' (6 papers state it before the cutoff) when 4 window
    papers addressing it write ``window_text``."""
    before = [_paper(f"p{index}", date(2024, 6, 1), "Learned gates remain limited by cache drift.")
              for index in range(6)]
    window = [_paper(f"w{index}", date(2025, 1, 15), window_text) for index in range(4)]
    domain = _domain(before + window)
    return [text.lower() for text, _ in opportunity_phrases(
        domain, [paper.paper_id for paper in window], [paper.paper_id for paper in before],
        exclude={"cache", "drift"}, min_support=3, bottleneck="cache drift",
        addressing=[paper.paper_id for paper in window])]


def test_a_cost_measure_or_an_output_is_no_opportunity() -> None:
    """Papers reducing cache drift also write 'memory usage' (a cost measure) and 'generated frames' (what a
    method outputs): neither is a research line it opens (the real release had offered both)."""
    found = _cache_drift_opportunities("A pruner reduces cache drift and memory usage of the generated "
                                       "frames, which enables gloam auditing.")
    assert "gloam auditing" in found, found
    assert not any("usage" in phrase or "generated" in phrase for phrase in found), found


def test_a_fragment_of_a_longer_phrase_is_no_opportunity() -> None:
    """Three of the four papers reducing cache drift write 'vesper matching distillation', the fourth
    'matching distillation' alone: the opportunity is the full phrase, never its fragment (the real release
    offered 'matching distillation' first). 'gloam probabilistic models' is written whole by every paper
    but is mostly the bottleneck's own words ('gloam' is excluded), so its fragment 'probabilistic models'
    is no opportunity either."""
    before = [_paper(f"p{index}", date(2024, 6, 1), "Learned gates remain limited by cache drift.")
              for index in range(6)]
    texts = ["A pruner reduces cache drift, which enables vesper matching distillation with gloam "
             "probabilistic models."] * 3 + [
             "A pruner reduces cache drift, which enables matching distillation with gloam probabilistic "
             "models."]
    window = [_paper(f"w{index}", date(2025, 1, 15), text) for index, text in enumerate(texts)]
    found = [text.lower() for text, _ in opportunity_phrases(
        _domain(before + window), [paper.paper_id for paper in window], [paper.paper_id for paper in before],
        exclude={"cache", "drift", "gloam", "model"}, min_support=3, bottleneck="cache drift",
        addressing=[paper.paper_id for paper in window])]

    assert found[0] == "vesper matching distillation", found
    assert "matching distillation" not in found and "probabilistic models" not in found, found


def test_an_opportunity_written_only_with_of_reads_as_written() -> None:
    """Papers write 'chain of quill reasoning': its base form 'quill reasoning chain' is counted, but shown
    as the papers wrote it; a project page is no opportunity."""
    found = _cache_drift_opportunities("A pruner reduces cache drift, which enables a chain of quill "
                                       "reasoning. Project page: https://example.org/quill")
    assert "chain of quill reasoning" in found, found
    assert "quill reasoning chain" not in found and "project page" not in found, found


def test_how_an_abstract_reports_is_no_opportunity() -> None:
    """'this paper presents', 'percentage points', 'results highlight' (the real release at cutoff
    2025-09-30 offered all three), 'four benchmarks' and 'source code' (at 2025-06-30) are how papers
    report, not what reducing a bottleneck opens."""
    found = _cache_drift_opportunities("This paper presents a pruner that reduces cache drift by ten "
                                       "percentage points on four benchmarks, which enables gloam auditing. "
                                       "Our results highlight the gains. Source code is released.")
    assert "gloam auditing" in found, found
    assert not any(word in phrase for phrase in found
                   for word in ("paper", "percentage", "results", "benchmarks", "code")), found
