"""``kb build --engine ray``: the model work of embedding, sharded over a Ray cluster.

The driver keeps everything that touches disk: it plans each chunk of ``settings.kb.embed_chunk`` texts
against the embedding cache exactly as the local build does
(:meth:`foresci.embedders.embedder.Embedder.plan`), sends each chunk's texts-to-encode to a worker
whole, and stores the returned vectors in the cache in chunk order. A worker encodes a chunk with the
same model, backend, batch size and thread count as the local engine, so it sees the very same batches
and the KB it yields is byte-identical. A text repeated in a later chunk is encoded once, as in the
local build (where the earlier chunk has reached the cache by then). On a cluster with GPUs, workers
encode on a GPU with the torch backend (unless the encoder is pinned to 'onnx'); those vectors equal the
CPU ones to float rounding, not to the bit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from foresci.core.cluster import RemoteFailure, cluster_gpus, connect, imap_unordered
from foresci.core.threads import ensure_threads
from foresci.embedders.embedder import Embedder, EncodePlan


@dataclass(frozen=True)
class EncoderSpec:
    """What a worker needs to build the driver's encoder (no cache: the driver owns it)."""

    model: str
    backend: str
    device: str
    batch_size: int
    onnx_batch_size: int
    threads: int
    onnx_dir: str | None


_ENCODERS: dict[EncoderSpec, Embedder] = {}


def encode_on_worker(spec: EncoderSpec, texts: list[str]) -> np.ndarray:
    """(n, d) vectors of ``texts`` by the model of ``spec`` (one encoder per worker process and spec)."""
    from pathlib import Path

    from foresci.core.threads import apply_threads

    encoder = _ENCODERS.get(spec)
    if encoder is None:
        apply_threads(spec.threads)
        encoder = Embedder(
            model=spec.model,
            batch_size=spec.batch_size,
            device=spec.device,
            backend=spec.backend,
            onnx_batch_size=spec.onnx_batch_size,
            onnx_dir=Path(spec.onnx_dir) if spec.onnx_dir else None,
        )
        _ENCODERS[spec] = encoder
    return encoder.encode_uncached(texts)


def encoder_spec(embedder: Embedder, settings: Any, gpus: float) -> EncoderSpec:
    """The worker encoder of ``embedder`` (on a GPU with torch when the cluster has one and may use it)."""
    spec = EncoderSpec(
        model=embedder.model_name,
        backend=embedder.requested_backend,
        device=embedder.device,
        batch_size=embedder.batch_size,
        onnx_batch_size=embedder.onnx_batch_size,
        threads=ensure_threads(settings),
        onnx_dir=str(embedder.onnx_dir) if embedder.onnx_dir else None,
    )
    if gpus > 0 and spec.backend != "onnx":
        spec = replace(spec, device="cuda", backend="torch")
    return spec


def task_options(spec: EncoderSpec) -> dict[str, Any]:
    """Ray resources of one chunk: a GPU for a CUDA encoder, else as many CPUs as it uses threads."""
    if spec.device.startswith("cuda"):
        return {"num_gpus": 1, "num_cpus": 1}
    return {"num_cpus": spec.threads}


def embed_chunks_ray(
    embedder: Embedder,
    chunks: Sequence[list[str]],
    settings: Any,
    on_chunk: Callable[[int], None] | None = None,
) -> list[np.ndarray]:
    """The vectors of each chunk of texts (as ``embedder.encode(chunk)`` would give, chunk after chunk),
    the model work done by Ray workers; ``on_chunk(n)`` after each chunk is stored."""
    ray = connect(settings.runtime.ray_address)
    spec = encoder_spec(embedder, settings, cluster_gpus(ray))
    plans, borrowed = _plan_chunks(embedder, chunks)
    outgoing = [index for index, plan in enumerate(plans) if plan.missing]
    fresh: dict[int, np.ndarray] = {}
    reused: dict[str, np.ndarray] = {}
    results: list[np.ndarray | None] = [None] * len(chunks)
    finished = 0

    def finish_ready() -> None:
        nonlocal finished
        while finished < len(plans) and (not plans[finished].missing or finished in fresh):
            plan = plans[finished]
            plan.cached.update({key: reused[key] for key in plan.keys if key in reused})
            vectors = fresh.pop(finished, None)
            results[finished] = embedder.complete(plan, vectors)
            if vectors is not None:
                for (key, _), vector in zip(plan.missing, vectors, strict=True):
                    if key in borrowed:
                        reused[key] = vector
            if on_chunk is not None:
                on_chunk(len(plan.keys))
            finished += 1

    finish_ready()
    work = [plans[index].missing_texts for index in outgoing]
    chunks_done = imap_unordered(encode_on_worker, spec, work, settings.runtime, task_options(spec))
    for position, vectors in chunks_done:
        if isinstance(vectors, RemoteFailure):
            chunk = outgoing[position]
            raise RuntimeError(f"embedding chunk {chunk} failed on the Ray cluster: {vectors.error}")
        fresh[outgoing[position]] = np.asarray(vectors, dtype=np.float32)
        finish_ready()
    return [vectors for vectors in results if vectors is not None]


def _plan_chunks(embedder: Embedder, chunks: Sequence[list[str]]) -> tuple[list[EncodePlan], set[str]]:
    """Plan every chunk up front; a text planned by an earlier chunk is taken from it, not re-encoded."""
    plans: list[EncodePlan] = []
    planned: set[str] = set()
    borrowed: set[str] = set()
    for texts in chunks:
        plan = embedder.plan(texts)
        repeated = {key for key, _ in plan.missing if key in planned}
        if repeated:
            borrowed |= repeated
            kept = [(key, index) for key, index in plan.missing if key not in repeated]
            plan = EncodePlan(plan.keys, plan.cached, kept, [texts[index] for _, index in kept])
        planned.update(key for key, _ in plan.missing)
        plans.append(plan)
    return plans, borrowed
