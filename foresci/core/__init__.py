"""The foundation layer: what every other package may use and which imports none of them (files and
JSON, errors, locks, settings, YAML, redaction, fencing, threads, artifacts' manifests, declarative
folders, transcripts, the Ray map, third-party extensions). See ``tests/foundation/test_layering.py``
for the layer order."""
