"""Sentence encoder backends: ONNX Runtime (no torch at query time) and sentence-transformers."""
