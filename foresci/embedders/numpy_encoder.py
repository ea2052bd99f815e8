"""A query encoder in numpy alone: a BERT sentence-transformers model read straight from its safetensors.

For a process that encodes one query (``foresci kb search``), starting ONNX Runtime costs more than the
query: importing it and creating its session took about 0.19 s of CPU on the real KB's MiniLM, against a
few milliseconds for the query itself. This module maps the model's ``model.safetensors`` (no copy, no
conversion, nothing written), tokenizes with the model's own ``tokenizer.json`` (the same token ids as the
other backends) and runs the encoder in float32 numpy, one text at a time (no padding). Its vectors are
those of sentence-transformers and ONNX Runtime up to float rounding (``tests/kb/test_numpy_encoder.py``
compares them; on 200 real queries the KB search top-10 is the same).

Served: a local model that :func:`foresci.embedders.model_dir.onnx_layout` accepts (Transformer -> mean/CLS
pooling [-> Normalize]) whose transformer is a BERT with absolute positions and exact GELU, stored as
float32 safetensors. :func:`numpy_encoder_for` returns None for anything else (the caller then uses the
usual backend).
"""

from __future__ import annotations

import json
import math
import mmap
import struct
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from foresci.embedders.model_dir import ModelLayout, onnx_layout

WEIGHTS_FILE = "model.safetensors"
_DTYPES = {"F32": np.float32}


def _erf(values: np.ndarray) -> np.ndarray:
    """erf, to about 1e-7 (Abramowitz and Stegun 7.1.26, computed in float64): GELU's error function,
    which numpy lacks (importing scipy for it would cost more than the encoding)."""
    x = values.astype(np.float64)
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-x * x))


def _gelu(values: np.ndarray) -> np.ndarray:
    """Exact (erf) GELU, as BERT's ``hidden_act: gelu``."""
    return (0.5 * values * (1.0 + _erf(values / math.sqrt(2.0)))).astype(np.float32)


def _layer_norm(values: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = values.mean(axis=-1, keepdims=True)
    centred = values - mean
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    return (centred / np.sqrt(variance + eps) * weight + bias).astype(np.float32, copy=False)


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The float32 tensors of a safetensors file, as read-only arrays over one memory map of it."""
    with path.open("rb") as handle:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    (header_size,) = struct.unpack("<Q", mapped[:8])
    header = json.loads(mapped[8 : 8 + header_size])
    start = 8 + header_size
    tensors: dict[str, np.ndarray] = {}
    for name, entry in header.items():
        dtype = _DTYPES.get(entry.get("dtype", "")) if isinstance(entry, dict) else None
        if dtype is None:
            continue
        begin, end = entry["data_offsets"]
        array = np.frombuffer(mapped, dtype=dtype, count=(end - begin) // 4, offset=start + begin)
        tensors[name] = array.reshape(entry["shape"])
    return tensors


class NumpyEncoder:
    """Encodes texts with a BERT sentence-transformers model in numpy (same vectors as the other backends
    up to float rounding)."""

    def __init__(self, layout: ModelLayout, config: dict[str, Any]) -> None:
        from tokenizers import Tokenizer

        self.layout = layout
        self.dimension = layout.dimension
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        weights = read_safetensors(layout.directory / WEIGHTS_FILE)
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""
        self._w = {name[len(prefix):]: array for name, array in weights.items() if name.startswith(prefix)}
        self._tokenizer = Tokenizer.from_file(str(layout.directory / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=layout.max_length)

    def encode(self, texts: Sequence[str], batch_size: int = 1) -> np.ndarray:
        """(n, d) float32 embeddings of ``texts`` (normalised when the model normalises); one text at a time
        (``batch_size`` is accepted for the other encoders' signature)."""
        output = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, encoding in enumerate(self._tokenizer.encode_batch(list(texts))):
            output[row] = self._encode_ids(np.asarray(encoding.ids, dtype=np.int64),
                                           np.asarray(encoding.type_ids, dtype=np.int64))
        return output

    def _linear(self, values: np.ndarray, name: str) -> np.ndarray:
        return values @ self._w[f"{name}.weight"].T + self._w[f"{name}.bias"]

    def _encode_ids(self, ids: np.ndarray, type_ids: np.ndarray) -> np.ndarray:
        w = self._w
        count = len(ids)
        hidden = (w["embeddings.word_embeddings.weight"][ids]
                  + w["embeddings.position_embeddings.weight"][:count]
                  + w["embeddings.token_type_embeddings.weight"][type_ids])
        hidden = _layer_norm(hidden, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"],
                             self.eps)
        width = hidden.shape[1] // self.heads
        scale = np.float32(1.0 / math.sqrt(width))
        for layer in range(self.layers):
            name = f"encoder.layer.{layer}"
            split = [self._linear(hidden, f"{name}.attention.self.{part}").reshape(count, self.heads, width)
                     .transpose(1, 0, 2) for part in ("query", "key", "value")]
            scores = (split[0] @ split[1].transpose(0, 2, 1)) * scale
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ split[2]).transpose(1, 0, 2).reshape(count, -1)
            attended = self._linear(context, f"{name}.attention.output.dense") + hidden
            hidden = _layer_norm(attended, w[f"{name}.attention.output.LayerNorm.weight"],
                                 w[f"{name}.attention.output.LayerNorm.bias"], self.eps)
            inner = _gelu(self._linear(hidden, f"{name}.intermediate.dense"))
            hidden = _layer_norm(self._linear(inner, f"{name}.output.dense") + hidden,
                                 w[f"{name}.output.LayerNorm.weight"], w[f"{name}.output.LayerNorm.bias"],
                                 self.eps)
        pooled = hidden[0] if self.layout.pooling == "cls" else hidden.mean(axis=0)
        if self.layout.normalize:
            pooled = pooled / max(float(np.linalg.norm(pooled)), 1e-12)
        return pooled.astype(np.float32, copy=False)


def _servable_config(directory: Path) -> dict[str, Any] | None:
    """The model's ``config.json`` when this module can run it (BERT, absolute positions, exact GELU,
    float32 safetensors), else None."""
    config_path, weights_path = directory / "config.json", directory / WEIGHTS_FILE
    if not (config_path.is_file() and weights_path.is_file()):
        return None
    config = json.loads(config_path.read_text(encoding="utf-8"))
    if (config.get("model_type") != "bert" or config.get("hidden_act") != "gelu"
            or config.get("position_embedding_type", "absolute") != "absolute"):
        return None
    return config


@lru_cache(maxsize=4)
def numpy_encoder_for(model: str) -> NumpyEncoder | None:
    """The numpy encoder of ``model`` (one per process), or None when this module cannot serve it."""
    layout = onnx_layout(model)
    config = _servable_config(layout.directory) if layout is not None else None
    if layout is None or config is None:
        return None
    encoder = NumpyEncoder(layout, config)
    needed = ("embeddings.word_embeddings.weight", f"encoder.layer.{encoder.layers - 1}.output.dense.weight")
    return encoder if all(name in encoder._w for name in needed) else None
