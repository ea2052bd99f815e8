"""The public method API: register an answering method, and what it receives and returns.

See :mod:`foresci.methods.registry` for a minimal plug-in and the README section "Benchmark your own
agent" for ``--method path/to/agent.py:object``, entry points, ``package.module:object`` and HTTP agents.
"""

from __future__ import annotations

from foresci.methods.registry import (
    CutoffTools,
    ForecastInput,
    Method,
    MethodInput,
    MethodResult,
    MethodSpec,
    method,
    registered,
    shipped_methods,
)

__all__ = [
    "CutoffTools",
    "ForecastInput",
    "Method",
    "MethodInput",
    "MethodResult",
    "MethodSpec",
    "method",
    "registered",
    "shipped_methods",
]
