"""Settings of the compute runtime (the ``runtime`` section): threads, encoder backend, dense index.

None of these change results beyond float rounding, so none is part of an artifact's fingerprint.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field


class RuntimeSettings(BaseModel):
    """How many threads the numeric libraries use, and which engines encode and search."""

    threads: int | None = Field(
        default=None,
        ge=0,
        description="threads for torch, FAISS, ONNX Runtime and BLAS. Unset: OMP_NUM_THREADS if exported, "
        "else 1 (measured best on a small machine shared with other processes: a query encoding at 2 "
        "threads under load took 35x longer). 0 = one per core; on a dedicated big machine set the "
        "number of physical cores, e.g. FORESCI_RUNTIME__THREADS=16",
    )
    encoder: Literal["auto", "onnx", "torch"] = Field(
        default="auto",
        description="sentence encoder backend: 'onnx' (ONNX Runtime, fp32; no torch import once the "
        "model is exported to the cache), 'torch' (sentence-transformers), 'auto' = onnx when "
        "onnxruntime is installed and the model is a local mean/CLS-pooled sentence-transformers model",
    )
    onnx_dir: Path | None = Field(
        default=None,
        description="folder for ONNX exports of encoder models (made once, with torch); "
        "unset = $XDG_CACHE_HOME/foresci or ~/.cache/foresci",
    )
    encoder_batch_size: int = Field(
        default=32, ge=1, description="texts per ONNX Runtime batch when embedding documents (by length)"
    )
    dense_index: Literal["auto", "flat", "hnsw"] = Field(
        default="auto",
        description="dense search: 'flat' (exact), 'hnsw' (approximate, FAISS HNSW; the cutoff stays "
        "exact), 'auto' = hnsw above approximate_above visible papers",
    )
    approximate_above: int = Field(
        default=300_000, ge=0, description="visible papers above which 'auto' uses the approximate index"
    )
    hnsw_ef_search: int = Field(default=128, ge=1, description="HNSW search breadth (recall vs speed)")
