"""The signal benchmark's planted-purity report: which direction tasks offer a node of two planted
directions, read from the world's paper labels, the last taxonomy snapshot and the release's hidden rows."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from foresci.app.signal_purity import PURE_SHARE, mixed_direction_tasks, node_purity
from foresci.core.errors import UserError
from foresci.taxonomy.induce import TaxonomyHistory
from foresci.taxonomy.models import Node, Snapshot
from foresci.taxonomy.store import save_taxonomy


def _label(paper: str, written_as: str | None) -> dict[str, object]:
    direction = None if written_as is None else "/".join(written_as.split("/")[:2])
    return {"paper_id": paper, "direction_id": direction, "written_as": written_as}


def _world(tmp_path: Path) -> tuple[Path, list[Path], Path]:
    world = tmp_path / "world"
    world.mkdir()
    labels = (
        [_label(f"a{i}", "dom/0") for i in range(9)]
        + [_label("a9", "dom/1")]  # one mislabelled paper: 9 of 10 is still pure
        + [_label(f"b{i}", "dom/1") for i in range(6)]
        + [_label(f"b{i}", "dom/2") for i in range(6, 10)]  # two directions in one node: 6 of 10
        + [_label(f"c{i}", "dom/3/0") for i in range(5)]  # a fragmenting direction's child counts as dom/3
        + [_label(f"c{i}", "dom/3") for i in range(5, 10)]
        + [_label("z0", None)]  # background
    )
    (world / "paper_labels.jsonl").write_text("".join(json.dumps(row) + "\n" for row in labels))
    def snapshot(index: int, nodes: dict[str, list[str]]) -> Snapshot:
        return Snapshot(domain="dom", cutoff=date(2024, 6 + index, 30), slice_index=index,
                        nodes=[Node(node_id=node, label=node, paper_ids=papers)
                               for node, papers in nodes.items()])

    old = snapshot(0, {"nA": ["b0", "b6"]})  # an earlier slice: not read
    last = snapshot(1, {
        "nA": [f"a{i}" for i in range(10)],
        "nB": [f"b{i}" for i in range(10)],
        "nC": [f"c{i}" for i in range(10)],
        "nD": ["z0", "a0"],
    })
    taxonomy = save_taxonomy(TaxonomyHistory(domain="dom", cutoff=date(2024, 7, 31), snapshots=[old, last]),
                             tmp_path / "taxonomy" / "dom")
    release = tmp_path / "release"
    release.mkdir()
    hidden = [
        {"family": "direction_forecasting", "stats": {"node_ids": {"A": "nA", "B": "nC"}}},
        {"family": "direction_forecasting", "stats": {"node_ids": {"A": "nA", "B": "nB"}}},
        {"family": "direction_forecasting", "stats": {"node_ids": {"A": "nD", "B": "nC"}}},
        {"family": "strategic_planning", "stats": {"node_ids": {"A": "nB"}}},
    ]
    (release / "hidden.jsonl").write_text("".join(json.dumps(row) + "\n" for row in hidden))
    return world, [taxonomy], release


def test_purity_reads_the_last_snapshot_and_where_each_paper_is_written(tmp_path: Path) -> None:
    world, taxonomies, _ = _world(tmp_path)
    purity = node_purity(world, taxonomies)
    assert purity == {"nA": 0.9, "nB": 0.6, "nC": 1.0, "nD": 0.5}
    assert purity["nA"] >= PURE_SHARE > purity["nB"]


def test_mixed_direction_tasks_counts_direction_tasks_with_a_mixed_option(tmp_path: Path) -> None:
    world, taxonomies, release = _world(tmp_path)
    assert mixed_direction_tasks(world, taxonomies, release) == (2, 3)


def test_the_signal_benchmark_reads_the_family_that_sets_signal_benchmark(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The benchmark names no family: it reads the first registered family with ``signal_benchmark``
    (the shipped direction family); with that flag on another family, the purity count reads that one's
    tasks, and with none set it is one clear error."""
    from foresci.app import signal
    from foresci.app.signal_purity import signal_family
    from foresci.tasks.families import all_families, get_family

    marked = [family.name for family in all_families() if family.signal_benchmark]
    assert signal_family() == signal.DIRECTION == marked[0]
    world, taxonomies, release = _world(tmp_path)
    monkeypatch.setattr(get_family(marked[0]), "signal_benchmark", False)
    monkeypatch.setattr(get_family("strategic_planning"), "signal_benchmark", True)
    assert signal.DIRECTION == "strategic_planning"
    assert mixed_direction_tasks(world, taxonomies, release) == (1, 1)  # its one task offers mixed nB
    monkeypatch.setattr(get_family("strategic_planning"), "signal_benchmark", False)
    with pytest.raises(UserError, match="no registered task family sets signal_benchmark"):
        signal_family()
