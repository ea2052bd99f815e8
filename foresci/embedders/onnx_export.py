"""Export a local sentence-transformers model's transformer to ONNX once, into the cache.

The export needs torch and transformers (they load only here, once per model); the file is keyed
on the model folder's weights and config, written to a temporary name and renamed into place, so
concurrent exporters never leave a half-written model.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import warnings
from pathlib import Path

ONNX_OPSET = 17
EXPORT_FORMAT = 1  # bump when the exported graph's inputs or outputs change


def export_key(model_directory: Path) -> str:
    """A key for the exported graph: model config and weight files (name, size, mtime)."""
    digest = hashlib.sha256(f"format={EXPORT_FORMAT}\x00".encode())
    for name in sorted(os.listdir(model_directory)):
        path = model_directory / name
        if path.is_file() and (name.endswith((".safetensors", ".bin")) or name == "config.json"):
            status = path.stat()
            digest.update(f"{name}\x00{status.st_size}\x00{status.st_mtime_ns}\x00".encode())
    return digest.hexdigest()[:24]


def exported_model(model_directory: Path, store: Path) -> Path:
    """Path of the ONNX export of ``model_directory`` in the folder ``store``, exporting it if absent."""
    target = store / "onnx" / export_key(model_directory) / "model.onnx"
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".model.{os.getpid()}.onnx")
        _export(model_directory, temporary)
        temporary.replace(target)
    return target


def _export(model_directory: Path, destination: Path) -> None:
    """Trace the transformer (eager attention) to ONNX with dynamic batch and sequence axes."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(model_directory), attn_implementation="eager").eval()
    accepted = inspect.signature(model.forward).parameters
    names = [name for name in ("input_ids", "attention_mask", "token_type_ids") if name in accepted]

    class _LastHiddenState(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *tensors: torch.Tensor) -> torch.Tensor:
            return self.model(**dict(zip(names, tensors, strict=True))).last_hidden_state

    example = tuple(torch.ones(2, 8, dtype=torch.long) for _ in names)
    axes = {name: {0: "batch", 1: "sequence"} for name in [*names, "last_hidden_state"]}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            _LastHiddenState(),
            example,
            str(destination),
            input_names=names,
            output_names=["last_hidden_state"],
            dynamic_axes=axes,
            opset_version=ONNX_OPSET,
            dynamo=False,
        )
