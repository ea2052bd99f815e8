"""The dense side of one KB generation: the embeddings (memory-mapped, or the segments' rows joined) and
the cutoff-bounded dense index over them (exact, HNSW graph or IVF, by the runtime settings), each loaded
on first use. :class:`foresci.kb.store.KnowledgeBase` holds one and hands its parts to the view."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from foresci.kb.dense import DenseIndex


class DenseSide:
    """The embeddings of ``size`` rows, read from each segment's ``vectors.npy`` (``files``, row order).

    ``runtime``: the runtime settings (None: defaults); ``screen_folder``: where the 8-bit screen of exact
    search is cached (None: not cached); ``one_shot``: a process that searches once (numpy only)."""

    def __init__(self, generation: Path, files: Sequence[Path], size: int, runtime: Any,
                 screen_folder: Path | None, one_shot: bool) -> None:
        self.generation = generation
        self.files = list(files)
        self.size = size
        self.runtime = runtime
        self.screen_folder = screen_folder
        self.one_shot = one_shot

    @cached_property
    def vectors(self) -> np.ndarray:
        """All embeddings, (size, d) float32, row order (memory-mapped, read-only, for a one-segment KB;
        the segments' rows joined in memory otherwise)."""
        parts = [np.load(path, mmap_mode="r", allow_pickle=False) for path in self.files]
        array = parts[0] if len(parts) == 1 else np.concatenate(parts).astype(np.float32, copy=False)
        if array.shape[0] != self.size:
            raise ValueError(
                f"{self.generation / 'vectors.npy'}: {array.shape[0]} rows for {self.size} papers"
            )
        if array.dtype != np.float32 or not array.flags.c_contiguous:
            return np.ascontiguousarray(array, dtype=np.float32)
        return array

    def parts(self) -> list[np.ndarray]:
        """The embeddings of each segment, in row order (memory-mapped, read-only; never joined): what
        :attr:`vectors` concatenates, for a reader that goes through them once."""
        if "vectors" in self.__dict__:  # already joined (or mapped whole): no second copy
            return [self.vectors]
        parts = [np.load(path, mmap_mode="r", allow_pickle=False) for path in self.files]
        rows = sum(len(part) for part in parts)
        if rows != self.size:
            raise ValueError(f"{self.generation / 'vectors.npy'}: {rows} rows for {self.size} papers")
        return parts

    @cached_property
    def index(self) -> DenseIndex:
        """Cutoff-bounded dense search: exact (an 8-bit screen cached beside the BM25 postings), the stored
        HNSW graph for mid-sized KBs (read on its first use) or the stored IVF index for large ones
        (runtime settings)."""
        from functools import partial

        from foresci.kb.dense import HNSW_FILE, DenseIndex, read_index

        runtime = self.runtime
        mode = runtime.dense_index if runtime is not None else "auto"
        graph = None
        if mode in ("auto", "hnsw") and (self.generation / HNSW_FILE).is_file():
            graph = partial(read_index, self.generation, HNSW_FILE, vectors=self.vectors)
        return DenseIndex(
            self.vectors,
            ivf=read_index(self.generation) if mode in ("auto", "ivf") else None,
            mode=mode,
            approximate_above=runtime.approximate_above if runtime is not None else 100_000,
            nprobe=runtime.ivf_nprobe if runtime is not None else 16,
            hnsw=graph,
            graph_above=runtime.graph_above if runtime is not None else 30_000,
            ef_search=runtime.hnsw_ef_search if runtime is not None else 384,
            screen_folder=self.screen_folder,
            one_shot=self.one_shot,
        )

    def search_files(self) -> list[Path]:
        """The dense files every search reads: the vectors and the cached 8-bit screen (not in one-shot
        mode: numpy scans the vectors)."""
        from foresci.kb.dense import SCREEN_FILE

        files = list(self.files)
        if self.screen_folder is not None and not self.one_shot:
            files.append(self.screen_folder / SCREEN_FILE)
        return files

    def graph_file(self, prefix: int) -> Path | None:
        """The stored HNSW graph when the dense path over the first ``prefix`` rows takes it."""
        from foresci.kb.dense import HNSW_FILE

        path = self.generation / HNSW_FILE
        return path if path.is_file() and self.index.path(prefix) == "hnsw" else None
