"""CLI: foresci eval ... and foresci report ..."""

from __future__ import annotations


def eval_command() -> None:
    """Score a run (implemented by the evaluation component)."""
    raise NotImplementedError("foresci eval is not implemented yet")


def report_command() -> None:
    """Write the HTML report (implemented by the evaluation component)."""
    raise NotImplementedError("foresci report is not implemented yet")
