"""``foresci demo``: every stage on the embedded synthetic world."""

from __future__ import annotations


def demo_command() -> None:
    """Run the whole pipeline on the default synthetic world."""
    raise NotImplementedError("foresci demo is not wired yet")
