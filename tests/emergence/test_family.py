"""The concept_emergence family: tasks built from a domain's window evidence pass the leakage lint, their
hidden order is the window's, the baselines answer from the task's pre-cutoff signals, and the evaluation
scores rankings against the hidden order."""

from __future__ import annotations

import pytest

from foresci.evaluation.ranking import ranking_fta
from foresci.sim.emergence import EmergenceWorldConfig, generate_emergence_world
from foresci.tasks.builders.common import Built
from foresci.tasks.config import TaskSettings
from foresci.tasks.evidence import DomainEvidence
from foresci.tasks.families import family_names, get_family
from foresci.tasks.families.concept_emergence.builder import build_emergence_tasks
from foresci.tasks.families.concept_emergence.family import EmergenceAnswer
from foresci.tasks.hidden import parse_hidden_target
from foresci.tasks.lint import lint_task
from foresci.tasks.text import content_tokens, vocabulary
from foresci.tasks.windows import make_window
from foresci.taxonomy.models import Snapshot

CONFIG = EmergenceWorldConfig(seed=6, difficulty=0.0, planted_pairs=40, papers_per_pair=4,
                              min_papers_per_pair=1)


@pytest.fixture(scope="module")
def built() -> tuple[list[Built], DomainEvidence]:
    world = generate_emergence_world(CONFIG)
    window = make_window(CONFIG.cutoff, "3m")
    papers = {paper.paper_id: paper for paper in world.papers}
    pre_texts = [paper.text for paper in world.papers if paper.announced <= CONFIG.cutoff]
    evidence = DomainEvidence(domain="synthetic", snapshot=Snapshot.model_construct(), window=window,
                              papers=papers, assignment={}, nodes={}, reference_baseline=0,
                              reference_window=0, reference_monthly={}, pre_vocabulary=vocabulary(pre_texts))
    return build_emergence_tasks(evidence, TaskSettings(), "synthetic systems", 4), evidence


def test_tasks_are_clean_and_hide_the_window_order(built: tuple[list[Built], DomainEvidence]) -> None:
    items, evidence = built
    assert len(items) == 4
    assert family_names()[-1] == "concept_emergence"  # shipped: last of BUILTIN_FAMILIES
    for item in items:
        allowed = frozenset(content_tokens("synthetic systems"))
        assert lint_task(item.task, item.hidden, evidence.pre_vocabulary, allowed=allowed) == []
        hidden = parse_hidden_target(item.hidden.model_dump(mode="json"))
        assert hidden == item.hidden and hidden.top_option() == hidden.ranking[0]
        counts = [hidden.window_papers[option] for option in hidden.ranking]  # type: ignore[attr-defined]
        # #44: three buckets, 3+ / exactly 1 / none, so the top leads by >= 1 Poisson standard error
        assert counts == sorted(counts, reverse=True) and counts[0] >= 3 and counts[1:] == [1, 0]
        assert item.task.task_id.startswith("ce-") and len(item.task.candidates) == 3
        assert "window_papers" not in str(item.task.model_dump())


def test_baselines_rank_by_the_kb_network_and_score_against_the_hidden_order(
        built: tuple[list[Built], DomainEvidence]) -> None:
    """#43: trend and persistence read the network the KB shows at the cutoff (the task states none):
    persistence preferential attachment, trend Adamic–Adar times the two concepts' recent papers."""
    from types import SimpleNamespace

    from foresci.agents.baselines.forecasters import Forecaster
    from foresci.agents.baselines.pair_network import activity, network_score, pair_signals
    from foresci.agents.config import AgentSettings
    from tests.emergence.world import CutoffView

    items, evidence = built
    papers = evidence.papers
    view = CutoffView(list(papers.values()), CONFIG.cutoff, SimpleNamespace(path="world-6f", fingerprint="f"))
    family = get_family("concept_emergence")
    for item in items:
        signals = pair_signals(view, item.task)
        for kind in ("persistence", "trend"):
            answer, support = Forecaster(kind, view, AgentSettings()).answer(item.task)  # type: ignore[arg-type]
            assert isinstance(answer, EmergenceAnswer) and "co-occurrence network" in support.notes[-1]
            assert len(support.evidence) == 3 and all(entry.paper_ids for entry in support.evidence)
            cited = {paper_id for entry in support.evidence for paper_id in entry.paper_ids}
            assert all(papers[paper_id].announced <= item.task.cutoff for paper_id in cited)
            assert family.check_contract(item.task, answer).problems == []
            predicted = [entry.option_id for entry in answer.ranking]
            score = "preferential_attachment" if kind == "persistence" else "growing_links"
            keys = [(network_score(signals[option], score), activity(signals[option]))
                    for option in predicted]
            assert keys == sorted(keys, reverse=True)
            rendered = family.render(item.task, answer)
            assert all(f"{option} (" in rendered for option in predicted)
        gold = list(item.hidden.ranking)  # type: ignore[attr-defined]
        assert ranking_fta(gold, gold).f1 == 1.0
        assert ranking_fta(gold, gold[::-1]).f1 < ranking_fta(gold, gold).f1
