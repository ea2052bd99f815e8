"""CLI: foresci run ..."""

from __future__ import annotations


def run_command() -> None:
    """Run answering methods on a release (implemented by the agents component)."""
    raise NotImplementedError("foresci run is not implemented yet")
