"""Settings of the compute runtime (the ``runtime`` section): threads, encoder backend, dense index.

None of these change results beyond float rounding, so none is part of an artifact's fingerprint.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from foresci.core.sections import SettingsSection


class RuntimeSettings(SettingsSection):
    """How many threads the numeric libraries use, and which engines encode and search."""

    threads: int | None = Field(
        default=None,
        ge=0,
        description="threads for torch, FAISS, ONNX Runtime and BLAS. Unset: OMP_NUM_THREADS if exported, "
        "else 1 (measured best on a small machine shared with other processes: a query encoding at 2 "
        "threads under load took 35x longer). 0 = one per core; on a dedicated big machine set the "
        "number of physical cores, e.g. FORESCI_RUNTIME__THREADS=16",
    )
    embed_workers: int | None = Field(
        default=None,
        ge=0,
        description="cores that embed many texts at once (kb build and update, the demo): the ONNX encoder "
        "runs that many batches side by side, one thread each, with the very vectors of one worker. Unset: "
        "the threads setting when set, else one per core (all cores: a worker on a core another process "
        "keeps busy only slows itself, while intra-op threads wait for it at every layer). 0 = one per core; "
        "1 = one batch at a time on `threads` threads",
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
    dense_index: Literal["auto", "flat", "ivf", "hnsw"] = Field(
        default="auto",
        description="dense search: 'flat' (exact), 'hnsw' (FAISS HNSW graph), 'ivf' (FAISS IVF with 8-bit "
        "lists and exact re-scoring of its candidates); the cutoff stays exact on every path. 'auto' = "
        "ivf above approximate_above visible papers when the KB stores an IVF index, hnsw above "
        "graph_above when it stores an HNSW graph, else exact",
    )
    graph_above: int = Field(
        default=30_000,
        ge=0,
        description="KB size above which a build stores an HNSW graph (up to approximate_above, where IVF "
        "takes over), and visible papers above which 'auto' may search it: where a cost model measured on "
        "the real KB expects it to beat the exact 8-bit screen (foresci.kb.dense.graph_is_cheaper; there "
        "from about 49k of 74.7k visible). At 74.4k visible (1 thread) a dense top-100 took 0.59 ms on the "
        "graph (hnsw_ef_search 384) instead of 1.60 ms exact and found 0.96-0.98 of the exact top-10",
    )
    hnsw_ef_search: int = Field(
        default=384,
        ge=1,
        description="candidates the HNSW search keeps when the whole KB is visible, scaled up by KB size / "
        "visible papers at earlier cutoffs (more: better recall, slower). On the real KB at 74.4k visible: "
        "384 found 0.964 of the exact top-10 in 0.59 ms, 256 found 0.942 in 0.48 ms (exact: 1.60 ms)",
    )
    approximate_above: int = Field(
        default=100_000,
        ge=0,
        description="KB size above which a build stores an IVF index, and visible papers above which "
        "'auto' searches it. Below, search stays exact (an 8-bit screen whose top-k is proven, then "
        "float32): on the real KB at 74k visible the IVF search was 2.5x faster but found 0.90 of the "
        "exact top-10 at ivf_nprobe 16",
    )
    engine: Literal["local", "ray"] = Field(
        default="local",
        description="where kb build (embedding), run (answer jobs) and eval (judge calls) do their work: "
        "'local' (this process) or 'ray' (a Ray cluster; pip install 'foresci[ray]'); the --engine option "
        "of those commands overrides it",
    )
    ray_address: str | None = Field(
        default=None,
        description="Ray cluster to join with engine 'ray' (e.g. 'ray://head:10001' or 'auto' for the "
        "cluster `ray start --head` started on this machine); unset: RAY_ADDRESS, else a new local cluster",
    )
    ray_task_cpus: float = Field(
        default=1.0,
        gt=0,
        description="CPUs Ray reserves per answer or judge task (LLM calls mostly wait: 0.25 runs four "
        "per core)",
    )
    ray_max_retries: int = Field(
        default=3,
        ge=0,
        description="times Ray re-runs a task whose worker died; a job lost after that is not written, "
        "and the next run (resume) answers it",
    )
    ivf_nprobe: int = Field(
        default=16, ge=1, description="IVF lists probed when the whole KB is visible (more: better recall)"
    )
