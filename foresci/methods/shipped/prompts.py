"""The prompt book of the shipped LLM methods: every template the code renders, with the variables it
passes, gathered from the methods themselves.

Each shipped method declares the templates of its own file ``agents/<name>.yaml`` (``@method(...,
prompts={key: {variables}})``); the two shared files are declared here: ``common`` (the system message
and the contract-fix re-ask, :mod:`foresci.methods.shipped.base`) and ``forecast`` (the forecast
questions, :mod:`foresci.methods.shipped.forecasting`).
"""

from __future__ import annotations

from pathlib import Path

from foresci.agents.prompts import PromptBook, load_prompts
from foresci.methods.registry import registered

COMMON_PROMPTS: dict[str, frozenset[str]] = {
    "system": frozenset({"cutoff"}),
    "contract_fix": frozenset({"problems", "candidates"}),
}
FORECAST_PROMPTS: dict[str, frozenset[str]] = {
    "numeric": frozenset({"question", "facts", "evidence"}),
    "binary": frozenset({"question", "facts", "evidence"}),
    "review": frozenset({"question", "facts", "evidence", "draft"}),
}


def expected_variables() -> dict[str, dict[str, frozenset[str]]]:
    """Prompt file -> template key -> the variables the code passes: ``common``, each shipped method's
    own file (in listing order), ``forecast``."""
    expected = {"common": dict(COMMON_PROMPTS)}
    for name, spec in registered().items():
        if spec.shipped and spec.prompts:
            expected[name] = dict(spec.prompts)
    expected["forecast"] = dict(FORECAST_PROMPTS)
    return expected


def prompt_book(folder: Path | None = None) -> PromptBook:
    """Every shipped template of ``folder`` (default: the shipped ``agents/``), loaded and checked against
    :func:`expected_variables`."""
    return load_prompts(expected_variables(), folder)
