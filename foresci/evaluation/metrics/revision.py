"""The scoring revision: a hash of the metric definitions, part of every score row's reuse key.

Each registered metric contributes its name, ``version`` and the source of its module and of the
modules of the same top-level package it imports names from (one level: ``metrics/fact.py`` brings
``evaluation/fact.py``, ``evaluation/judges.py``, ``metrics/context.py``...); each registered task family
contributes its module (``families/<name>/family.py``: the metrics it lists, its ``top_choice``).
Sources are hashed as their syntax tree without docstrings, so comments, formatting and docstrings do
not invalidate stored rows; any change of code does (once), and so does a metric that is added or
removed (rows need its value). The syntax tree's dump may differ across Python versions (a new
interpreter re-scores once).
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import json
import linecache
import sys
from functools import cache
from types import ModuleType

from foresci.evaluation.metrics.base import Metric, all_metrics

REVISION_ALIASES = {"e7df2a633634df68": 2}
"""Digests that keep the revision number written before revisions were derived, so rows scored by the
same computation stay valid: e7df2a633634df68 is the metric-object refactor of revision 2, whose demo
scores.jsonl, summary.json and report are byte-identical to revision 2's. A digest that is not here is
the revision itself: any later change of a metric's code re-scores stored rows once, with no bump."""


def _without_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


@cache
def _tree_digest(source: str) -> str:
    tree = _without_docstrings(ast.parse(source))
    return hashlib.sha256(ast.dump(tree, include_attributes=False).encode("utf-8")).hexdigest()


def source_digest(module_name: str) -> str:
    """Hash of a module's syntax tree without docstrings ('' when its source cannot be read)."""
    module = sys.modules.get(module_name)
    if module is None:
        return ""
    linecache.checkcache(getattr(module, "__file__", None) or "")
    try:
        return _tree_digest(inspect.getsource(module))
    except (OSError, TypeError):
        return ""


def _package(name: str) -> str:
    return name.partition(".")[0]


def source_modules(metric: Metric) -> list[str]:
    """The metric's module and the same-package modules it imports names from, sorted."""
    module = sys.modules[type(metric).__module__]
    found = {module.__name__}
    for value in vars(module).values():
        origin = value.__name__ if isinstance(value, ModuleType) else getattr(value, "__module__", None)
        if isinstance(origin, str) and _package(origin) == _package(module.__name__):
            found.add(origin)
    return sorted(found)


def metric_definition(metric: Metric) -> dict[str, object]:
    """What the revision hashes for one metric: name, version and its modules' source digests."""
    return {
        "name": metric.name,
        "version": metric.version,
        "sources": {name: source_digest(name) for name in source_modules(metric)},
    }


def family_definitions() -> dict[str, str]:
    """Each registered task family's module digest: families list the metrics that apply and decide
    ``top_choice`` and whether FTA ranks, so their code shapes score rows too."""
    from foresci.tasks.families import all_families

    return {family.name: source_digest(type(family).__module__) for family in all_families()}


def definitions_digest() -> str:
    """Hash of every registered metric's definition and every task family's module (16 hex digits)."""
    definitions = {
        "metrics": [metric_definition(metric) for metric in all_metrics()],
        "families": family_definitions(),
    }
    encoded = json.dumps(definitions, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()[:16]


def scoring_revision() -> int | str:
    """The revision stored rows must match: a known digest's number, else the digest itself."""
    digest = definitions_digest()
    return REVISION_ALIASES.get(digest, digest)
