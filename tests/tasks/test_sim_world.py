"""End to end on a generated world: KB -> taxonomy -> release; hidden targets agree with planted truth.

Nodes are mapped to planted directions by the majority label of their pre-cutoff papers; only nodes whose
papers come mostly (>= 80 %) from one direction are checked, since an impure node has no single truth.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from foresci.core.io import iter_jsonl
from foresci.core.settings import Settings
from foresci.sim.world import GroundTruth, WorldConfig, generate_world, load_ground_truth
from foresci.tasks.audit import audit_tasks
from foresci.tasks.build import build_release
from foresci.tasks.domain_inputs import snapshot_for
from foresci.tasks.hidden import HiddenTarget
from foresci.tasks.hidden_io import load_hidden
from foresci.tasks.models import Task
from foresci.tasks.release import load_release
from foresci.tasks.text import content_tokens
from foresci.taxonomy.assign import assign_papers
from foresci.taxonomy.models import Snapshot
from tests.tasks.simkb import SimKB

PURITY = 0.8


def _words(text: str) -> set[str]:
    return {word.rstrip("s") for word in content_tokens(text)}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("world")
    config = WorldConfig(seed=2026, n_domains=1, directions_per_domain=6, months=18, papers_per_month=90.0,
                         noise=0.0, difficulty=0.3)
    generate_world(config, root)
    truth = load_ground_truth(root)
    settings = Settings()
    settings.tasks.enforce_gates = False
    kb = SimKB(root, truth)
    domain = truth.domains[0].slug
    with _counting_yaml_reads() as reads:
        release = build_release(kb, root / "release", truth.cutoff, domains=[domain], settings=settings,
                                per_family=10, taxonomy_dir=root / "taxonomy")
    snapshot = snapshot_for(kb, domain, truth.cutoff, settings, root / "taxonomy")
    papers = kb.papers(until=truth.cutoff, domain=domain)
    assignment = assign_papers(snapshot, papers, kb.embeddings([paper.paper_id for paper in papers]))
    planted = {row["paper_id"]: row["direction_id"] for row in iter_jsonl(root / "paper_labels.jsonl")}
    parent = {node.node_id: node.parent_id for node in snapshot.nodes}
    votes: dict[str, Counter[str]] = defaultdict(Counter)
    for paper_id, node_id in assignment.items():
        current: str | None = node_id
        while current is not None:
            votes[current][planted[paper_id]] += 1
            current = parent[current]
    direction_of = {node_id: counts.most_common(1)[0][0] for node_id, counts in votes.items()
                    if counts.most_common(1)[0][1] >= PURITY * sum(counts.values())}
    return {"truth": truth, "tasks": load_release(release).tasks, "hidden": load_hidden(release),
            "direction_of": direction_of, "snapshot": snapshot, "manifest": load_release(release).manifest,
            "yaml_reads": reads}


@contextmanager
def _counting_yaml_reads() -> Iterator[Counter[str]]:
    """Count the YAML files read (by file name) while the block runs."""
    from foresci.core import yamlio

    reads: Counter[str] = Counter()
    original = yamlio.read_yaml_mapping

    def counted(path: Path | str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        reads[Path(path).name] += 1
        return original(path, *args, **kwargs)

    with mock.patch.object(yamlio, "read_yaml_mapping", counted):
        yield reads


def test_a_release_build_reads_each_taxonomy_rule_file_once(world: dict[str, object]) -> None:
    """The taxonomy's rule files are loaded once at the build's entry and handed down: one induction and
    three windows of evidence read each file once (main read trajectory.yaml once per node and window)."""
    reads: Counter[str] = world["yaml_reads"]  # type: ignore[assignment]
    rule_files = ("dimensions.yaml", "slicing.yaml", "signals.yaml", "evolution.yaml", "trajectory.yaml")
    assert {name: reads[name] for name in rule_files} == dict.fromkeys(rule_files, 1), reads


def test_saved_taxonomy_is_reused(world: dict[str, object]) -> None:
    snapshot: Snapshot = world["snapshot"]  # type: ignore[assignment]
    tasks: list[Task] = world["tasks"]  # type: ignore[assignment]
    node_ids = {node.node_id for node in snapshot.nodes}
    assert all(candidate.node_id in node_ids for task in tasks for candidate in task.candidates
               if candidate.node_id is not None)


def _family(world: dict[str, object], family: str) -> list[tuple[Task, HiddenTarget]]:
    tasks: list[Task] = world["tasks"]  # type: ignore[assignment]
    hidden: dict[str, HiddenTarget] = world["hidden"]  # type: ignore[assignment]
    return [(task, hidden[task.task_id]) for task in tasks if task.family == family]


def test_release_covers_every_family(world: dict[str, object]) -> None:
    assert {task.family for task in world["tasks"]} == {  # type: ignore[attr-defined]
        "direction_forecasting", "bottleneck_opportunity", "strategic_planning", "venue_positioning",
        "concept_emergence"}


def test_winning_direction_and_label_agree_with_planted_dynamics(world: dict[str, object]) -> None:
    truth: GroundTruth = world["truth"]  # type: ignore[assignment]
    direction_of: dict[str, str] = world["direction_of"]  # type: ignore[assignment]
    growing = {"accelerating", "fragmenting"}
    checked = accelerating_wins = 0
    for task, hidden in _family(world, "direction_forecasting"):
        nodes = {candidate.option_id: str(candidate.node_id) for candidate in task.candidates}
        winner = direction_of.get(nodes[str(hidden.primary_direction)])
        if winner is None:
            continue
        checked += 1
        planted = truth.direction(winner).trajectory
        options = {truth.direction(direction_of[node]).trajectory for node in nodes.values()
                   if node in direction_of}
        if "accelerating" in options:
            assert planted in growing, (task.task_id, winner, planted, options)
        if "accelerating" in options and "fragmenting" not in options:
            assert planted == "accelerating"
        if planted == "accelerating":
            accelerating_wins += hidden.trajectory == "accelerating"
        # the label is relative to the domain: a slowly accelerating direction in a growing domain may read
        # 'steady' (its share grows under the 1.3 lift), never 'cooling'
        if hidden.trajectory == "cooling":
            assert planted != "accelerating", task.task_id
    assert checked >= 5 and accelerating_wins >= 2


def test_planning_ranks_options_by_newcomer_entry(world: dict[str, object]) -> None:
    """#44: the planning key is the options' newcomer share of window papers, not their share growth."""
    checked = 0
    for _task, hidden in _family(world, "strategic_planning"):
        options = hidden.stats["options"]
        shares = [options[option]["newcomer_share"] for option in hidden.ranking]
        assert shares == sorted(shares, reverse=True)
        checked += 1
    assert checked >= 1


def test_venue_family_is_rebalanced_or_rejected(world: dict[str, object]) -> None:
    """Planted venue preferences are stationary, so persistence is right for most venue candidates:
    the selection must cap it, or the audit must reject the family."""
    tasks: list[Task] = world["tasks"]  # type: ignore[assignment]
    report = audit_tasks(tasks, world["hidden"])  # type: ignore[arg-type]
    venue = report.families["venue_positioning"]
    assert venue.persistence_rate is not None
    assert venue.persistence_rate <= Settings().tasks.max_persistence_share or not venue.passed
    assert not venue.duplicates


def test_venue_ranking_matches_planted_preferences(world: dict[str, object]) -> None:
    truth: GroundTruth = world["truth"]  # type: ignore[assignment]
    direction_of: dict[str, str] = world["direction_of"]  # type: ignore[assignment]
    hits = checked = 0
    for task, hidden in _family(world, "venue_positioning"):
        direction = direction_of.get(str(hidden.stats["node_id"]))
        if direction is None:
            continue
        names = {candidate.option_id: candidate.name for candidate in task.candidates}
        checked += 1
        hits += names[hidden.ranking[0]] == _planted_fit(truth, direction,
                                                         dict(hidden.stats["domain_window_venues"]))
    assert checked >= 2 and hits >= 0.6 * checked


def _planted_fit(truth: GroundTruth, direction: str, domain_mix: dict[str, int]) -> str:
    """The planted best-fit venue family of a direction as the venue target reads fit (#44): its planted
    venue weight over the family's share of the domain's accepted papers in the cycle (``domain_mix``)."""
    from foresci.sim.plan import venue_weights

    own = venue_weights(truth.direction(direction).venue_ranking)
    total = sum(domain_mix.values())
    return max(own, key=lambda family: own[family] / ((domain_mix.get(family, 0) + 1) / (total + len(own))))


def test_bottleneck_and_opportunity_phrases_are_planted_ones(world: dict[str, object]) -> None:
    truth: GroundTruth = world["truth"]  # type: ignore[assignment]
    phrases = [(phrase, chain) for direction in truth.directions for chain in direction.bottlenecks
               for phrase in (chain.bottleneck, *chain.bottleneck_variants)]
    built = _family(world, "bottleneck_opportunity")
    assert len(built) >= 4
    opportunity_hits = 0
    for task, hidden in built:
        chain = next((chain for phrase, chain in phrases if _words(phrase) <= _words(hidden.bottleneck[0])),
                     None)
        assert chain is not None, (task.task_id, hidden.bottleneck[0])
        planted = _words(" ".join([chain.opportunity, *chain.opportunity_variants]))
        opportunity_hits += any(_words(text) <= planted for text in hidden.opportunity[:3])
    assert opportunity_hits >= 0.6 * len(built)


def test_release_records_its_checks_and_keeps_none_failing(world: dict[str, object]) -> None:
    """#44: the build records what the release checks dropped and repaired, and no kept task fails one
    (trajectories agree with the targets' growth, counts agree, no node wins above the cap)."""
    from foresci.tasks.release_checks import audit_checks

    record = world["manifest"]["counts"]["checks"]  # type: ignore[index]
    assert set(record) == {"dropped", "repaired"}
    figures = audit_checks(world["tasks"], world["hidden"], Settings().tasks)  # type: ignore[arg-type]
    assert {check: count for check, count in figures["counts"].items() if count} == {}
