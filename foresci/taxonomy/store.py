"""Save and load a taxonomy history: a folder of node-link JSON snapshots, centroid arrays and a manifest.

Layout::

    DIR/manifest.json                      kind "taxonomy", inputs, config, file hashes, counts
    DIR/history.json                       domain, cutoff, slices, config, snapshot file names
    DIR/snapshots/slice_00.json            node-link JSON of the snapshot graph (no centroids)
    DIR/snapshots/slice_00.centroids.npy   float32 centroids, one row per node in graph order
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from foresci.core.artifacts import write_manifest
from foresci.core.errors import UserError
from foresci.core.io import atomic_path, read_json, write_json
from foresci.taxonomy.graph import from_node_link, to_node_link
from foresci.taxonomy.induce import TaxonomyHistory

HISTORY_FILE = "history.json"


def _snapshot_name(slice_index: int) -> str:
    return f"snapshots/slice_{slice_index:02d}"


def save_taxonomy(history: TaxonomyHistory, folder: Path | str, inputs: dict[str, Any] | None = None) -> Path:
    """Write ``history`` into ``folder`` (created) with a manifest; return the folder."""
    folder = Path(folder)
    (folder / "snapshots").mkdir(parents=True, exist_ok=True)
    files: list[str] = []
    for snapshot in history.snapshots:
        name = _snapshot_name(snapshot.slice_index)
        write_json(folder / f"{name}.json", to_node_link(snapshot, with_centroids=False))
        dimension = len(snapshot.nodes[0].centroid or []) if snapshot.nodes else 0
        centroids = np.array([node.centroid or [0.0] * dimension for node in snapshot.nodes],
                             dtype=np.float32).reshape(len(snapshot.nodes), dimension)
        with atomic_path(folder / f"{name}.centroids.npy") as temporary, temporary.open("wb") as handle:
            np.save(handle, centroids, allow_pickle=False)
        files += [f"{name}.json", f"{name}.centroids.npy"]
    write_json(folder / HISTORY_FILE, {
        "domain": history.domain, "cutoff": history.cutoff.isoformat(),
        "slices": [[start.isoformat(), end.isoformat()] for start, end in history.slices],
        "config": history.config, "snapshots": [_snapshot_name(s.slice_index) for s in history.snapshots]})
    files.append(HISTORY_FILE)
    final = history.snapshots[-1] if history.snapshots else None
    write_manifest(folder, "taxonomy", inputs={"domain": history.domain, "cutoff": history.cutoff.isoformat(),
                                               **(inputs or {})},
                   config=history.config, files=files,
                   counts={"slices": len(history.slices),
                           "nodes_final": len(final.nodes) if final else 0,
                           "papers_final": final.paper_count if final else 0,
                           "nodes_per_slice": [len(s.nodes) for s in history.snapshots]})
    return folder


def load_taxonomy(folder: Path | str) -> TaxonomyHistory:
    """Read a taxonomy folder written by :func:`save_taxonomy`; errors name the file at fault."""
    folder = Path(folder)
    index_path = folder / HISTORY_FILE
    if not index_path.is_file():
        raise FileNotFoundError(f"{index_path}: not a taxonomy folder (no {HISTORY_FILE})")
    index = read_json(index_path)
    snapshots = []
    for name in index["snapshots"]:
        path = folder / f"{name}.json"
        try:
            snapshot = from_node_link(read_json(path))
        except (KeyError, ValueError, UserError) as error:
            raise ValueError(f"{path}: invalid snapshot: {error}") from error
        centroid_path = folder / f"{name}.centroids.npy"
        if centroid_path.is_file():
            centroids = np.load(centroid_path, allow_pickle=False)
            if centroids.shape[0] != len(snapshot.nodes):
                raise ValueError(f"{centroid_path}: {centroids.shape[0]} centroid rows for "
                                 f"{len(snapshot.nodes)} nodes")
            for node, row in zip(snapshot.nodes, centroids, strict=True):
                node.centroid = [float(value) for value in row]
        snapshots.append(snapshot)
    return TaxonomyHistory.model_validate({"domain": index["domain"], "cutoff": index["cutoff"],
                                           "slices": index["slices"], "config": index.get("config", {}),
                                           "snapshots": snapshots})
