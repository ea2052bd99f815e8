"""Signals, evolution edges, venue profiles, CLI on a stored taxonomy."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest
from typer.testing import CliRunner

from foresci.cli import app
from foresci.core.settings import Settings
from foresci.kb.models import VENUE_FAMILIES, Paper
from foresci.taxonomy.evolution import EvolutionRules, evolution_edges
from foresci.taxonomy.induce import TaxonomyHistory
from foresci.taxonomy.models import Node, Snapshot
from foresci.taxonomy.signals import SignalPatterns, StatementExtractor, attach_signals, split_sentences
from foresci.taxonomy.store import save_taxonomy
from foresci.taxonomy.venues import load_venue_profiles, venue_shares


def paper(paper_id: str, abstract: str, day: date = date(2025, 5, 1), **extra: object) -> Paper:
    return Paper(paper_id=paper_id, title=f"Paper {paper_id}", abstract=abstract, announced=day, **extra)


def test_recurring_limitations_become_one_counted_signal() -> None:
    papers = [
        paper("a", "We build a web agent. However, long-horizon planning remains challenging for web "
                   "agents."),
        paper("b", "A new agent. Current web agents struggle to plan over long horizons in web tasks."),
        paper("c", "Agents for tables. Long-horizon planning of web agents is limited by context length.",
              day=date(2025, 4, 1)),
        paper("d", "A retrieval study with no stated limitation at all in this abstract sentence."),
        paper("e", "Memory for agents.", limitations=["Evaluation is restricted to English benchmarks."]),
    ]
    node = Node(node_id="n1", label="web agents", paper_ids=[p.paper_id for p in papers])
    snapshot = Snapshot(domain="d", cutoff=date(2025, 6, 1), nodes=[node])
    attach_signals(snapshot, papers)
    bottlenecks = [signal for signal in snapshot.nodes[0].signals if signal.kind == "bottleneck"]
    assert len(bottlenecks) == 1
    assert set(bottlenecks[0].paper_ids) == {"a", "b", "c"} and bottlenecks[0].count == 3
    assert bottlenecks[0].first_seen == date(2025, 4, 1)


def test_explicit_kb_layer_statements_are_used_and_future_work_detected() -> None:
    extractor = StatementExtractor(SignalPatterns.load())
    found = extractor.extract(paper("x", "We propose X. In future work we plan to extend X to robots.",
                                    limitations=["Only one domain is tested."]))
    assert ("bottleneck", "Only one domain is tested.") in [(s.kind, s.text) for s in found]
    assert any(s.kind == "future_work" and "robots" in s.text for s in found)
    assert split_sentences("A b c. D e f? G h.") == ["A b c.", "D e f?", "G h."]


def test_evolution_edge_needs_time_order_cues_and_borrowed_terms() -> None:
    old = Node(node_id="old", label="tree search", key_terms=["tree search", "mcts"],
               first_seen=date(2025, 1, 1), paper_ids=["o1"], centroid=[1.0, 0.0])
    new = Node(node_id="new", label="agent planning", key_terms=["planning agent"],
               first_seen=date(2025, 3, 1), paper_ids=["n1", "n2", "n3"], centroid=[0.8, 0.6])
    papers = [paper("o1", "MCTS for games."),
              paper("n1", "We extend tree search to LLM planning agents."),
              paper("n2", "Our planner builds on MCTS and adds reflection."),
              paper("n3", "We outperform prompting baselines.")]
    snapshot = Snapshot(domain="d", cutoff=date(2025, 6, 1), nodes=[old, new])
    edges = evolution_edges(snapshot, papers, EvolutionRules.load())
    assert [(edge.source, edge.target, edge.relation) for edge in edges] == [("old", "new", "extension")]
    assert edges[0].evidence_ids == ["n1", "n2"]
    far = new.model_copy(update={"centroid": [0.0, 1.0]})
    assert evolution_edges(Snapshot(domain="d", cutoff=date(2025, 6, 1), nodes=[old, far]), papers) == []


def test_venue_profiles_cover_the_five_families_and_shares_sum_to_one() -> None:
    profiles = load_venue_profiles()
    assert set(profiles.families) == set(VENUE_FAMILIES)
    assert all(profile.reviewer_risks and profile.evidence_package for profile in profiles.families.values())
    node = Node(node_id="n", label="x", venue_counts={"ACL/EMNLP/NAACL": 3, "SIGIR/KDD": 1})
    shares = venue_shares(node)
    assert shares["ACL/EMNLP/NAACL"] == 0.75 and sum(shares.values()) == pytest.approx(1.0)


def test_cli_show_export_plot(tmp_path, planted_history: TaxonomyHistory) -> None:
    folder = save_taxonomy(planted_history, tmp_path / "tax")
    runner = CliRunner()
    shown = runner.invoke(app, ["taxonomy", "show", str(folder), "--signals"])
    assert shown.exit_code == 0, shown.output
    assert all(node.node_id in shown.output for node in planted_history.final.nodes)
    exported = runner.invoke(app, ["taxonomy", "export", str(folder), "--format", "graphml"])
    assert exported.exit_code == 0 and (folder / "taxonomy.graphml").is_file()
    bad = runner.invoke(app, ["taxonomy", "export", str(folder), "--format", "csv"])
    assert bad.exit_code != 0
    plotted = runner.invoke(app, ["taxonomy", "plot", str(folder)])
    assert plotted.exit_code == 0
    assert (folder / "plots" / "node_growth.png").stat().st_size > 1000


def test_signals_are_attached_to_the_final_snapshot_only_by_default(planted_history: TaxonomyHistory) -> None:
    assert all(node.signals for node in planted_history.final.nodes)
    assert not any(node.signals for node in planted_history.snapshots[0].nodes)
    assert Settings().taxonomy.signals_every_slice is False
    assert np.isfinite([node.cohesion or 0 for node in planted_history.final.nodes]).all()


def test_a_comments_accepted_venue_is_parsed_once() -> None:
    from foresci.taxonomy import venues

    def paper(comment: str | None) -> Paper:
        return Paper(paper_id="2501.00001", title="t", abstract="a", announced=date(2025, 1, 2),
                     comment=comment,
                     venue_family="ACL/EMNLP/NAACL")

    venues._accepted_family.cache_clear()
    comment = "Accepted at ICML 2025"
    family = venues.parse_venue_status(comment).accepted_family
    assert family is not None and venues.accepted_venue_family(paper(comment)) == family
    assert venues.accepted_venue_family(paper(comment)) == family
    assert venues._accepted_family.cache_info().hits == 1  # the second paper with it: not parsed again
    assert venues.accepted_venue_family(paper("Under review at ICML 2025")) is None  # another comment: parsed
    assert venues._accepted_family.cache_info().misses == 2
    assert venues.accepted_venue_family(paper(None)) == "ACL/EMNLP/NAACL"
