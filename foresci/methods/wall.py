"""The in-process plug-in wall, for a plug-in run with ``--trust-plugin`` (inside foresci's process).

By default a plug-in runs in its own sandboxed process (:mod:`foresci.methods.sandbox`), which is the
trust boundary; the folders :func:`protect` names are the ones that sandbox never shows. A plug-in the user
vouches for (``--trust-plugin``, or one registered by Python code the caller imported itself) runs here,
on the thread that calls it, behind this wall:

- its KB tools are :class:`PluginTools`: the four tool functions and nothing else (no view, no KB, no
  store attribute to walk to), each result re-checked against the task cutoff by ``KBTools``;
- importing a module that reads hidden targets or post-cutoff data (:data:`FORBIDDEN_MODULES`) raises
  :class:`WallViolation`, and a forbidden module that is loaded anyway during the call fails the answer;
- opening a protected file raises :class:`WallViolation`: anything under a protected folder (the
  release and KB folders of the run, :func:`protect`), and any file named like a hidden-target or
  ground-truth file, by ``open``, ``os.open`` or ``sqlite3.connect``.

The guards are a Python audit hook (:func:`sys.addaudithook`), active only while a plug-in runs on that
thread (and lifted while its tool calls run inside foresci). It catches mistakes, not a deliberate
escape: code in foresci's process can patch the wall, walk to the KB through the objects it is given,
start a subprocess or use descriptors foresci holds. Untrusted code belongs in the sandbox.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from foresci.core.errors import ForesciError

FORBIDDEN_MODULES: tuple[str, ...] = (
    "foresci.tasks.hidden",
    "foresci.tasks.hidden_io",
    "foresci.tasks.build",
    "foresci.tasks.forecast",
    "foresci.tasks.rf_import",
    "foresci.evaluation",
    "foresci.sim",
)
# the settings section of evaluation is loaded with foresci.core.settings: plain fields, no data
ALLOWED_MODULES: frozenset[str] = frozenset({"foresci.evaluation", "foresci.evaluation.config"})
HIDDEN_NAME_PARTS: tuple[str, ...] = ("hidden", "ground_truth", "paper_labels", "resolutions")

_state = threading.local()
_protected: set[Path] = set()
_hook_lock = threading.Lock()
_hook_installed = False


class WallViolation(ForesciError, PermissionError):
    """A plug-in method tried to reach hidden targets or post-cutoff data."""


def protect(path: Path | str) -> None:
    """Refuse plug-ins every file under ``path`` (the run's release and KB folders)."""
    _protected.add(Path(path).resolve())


def protected_roots() -> list[Path]:
    """The folders :func:`protect` named, in the order given."""
    return sorted(_protected)


def forbidden(module: str) -> bool:
    """Whether plug-ins may not import ``module``."""
    if module in ALLOWED_MODULES:
        return False
    return any(module == name or module.startswith(name + ".") for name in FORBIDDEN_MODULES)


def _protected_path(target: Any) -> bool:
    if isinstance(target, int) or target is None:
        return False
    try:
        path = Path(os.fsdecode(target))
    except TypeError:
        return False
    if any(part in path.name.lower() for part in HIDDEN_NAME_PARTS):
        return True
    if not _protected:
        return False
    resolved = path.resolve() if path.is_absolute() else (Path.cwd() / path).resolve()
    return any(resolved == root or root in resolved.parents for root in _protected)


def _walled() -> bool:
    return getattr(_state, "method", None) is not None and not getattr(_state, "trusted", False)


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if not _walled() or event not in ("import", "open", "os.open", "sqlite3.connect"):
        return
    _state.trusted = True  # the checks below must not audit themselves
    try:
        _check(event, args, str(_state.method))
    finally:
        _state.trusted = False


def _check(event: str, args: tuple[Any, ...], who: str) -> None:
    if event == "import" and args and isinstance(args[0], str) and forbidden(args[0]):
        raise WallViolation(f"plug-in method {who} may not import {args[0]} (hidden targets or "
                            "post-cutoff data)")
    if event in ("open", "os.open", "sqlite3.connect") and args and _protected_path(args[0]):
        raise WallViolation(f"plug-in method {who} may not open {os.fsdecode(args[0])} (hidden targets "
                            "or post-cutoff data)")


def _install() -> None:
    global _hook_installed
    with _hook_lock:
        if not _hook_installed:
            sys.addaudithook(_audit)
            _hook_installed = True


@contextmanager
def walled(method: str) -> Iterator[None]:
    """Run the body as plug-in ``method``: guarded imports and opens; a forbidden module that appears in
    ``sys.modules`` during the body is a :class:`WallViolation`."""
    _install()
    before = {name for name in list(sys.modules) if forbidden(name)}
    outer = getattr(_state, "method", None), getattr(_state, "trusted", False)
    _state.method, _state.trusted = method, False
    try:
        yield
    finally:
        _state.method, _state.trusted = outer
    loaded = sorted(name for name in list(sys.modules) if forbidden(name) and name not in before)
    if loaded:
        raise WallViolation(f"plug-in method {method} loaded {', '.join(loaded)} (hidden targets or "
                            "post-cutoff data)")


@contextmanager
def trusted() -> Iterator[None]:
    """Lift the guards for foresci's own code called from inside a plug-in (its KB tools)."""
    outer = getattr(_state, "trusted", False)
    _state.trusted = True
    try:
        yield
    finally:
        _state.trusted = outer


class PluginTools:
    """The KB tools a plug-in gets: ``search``, ``get_paper``, ``related_papers``, ``timeline`` and
    ``calls_left`` over one task's ``KBTools``, which lives only in these functions' closures."""

    __slots__ = ("search", "get_paper", "related_papers", "timeline", "calls_left", "cutoff")

    def __init__(self, tools: Any) -> None:
        def call(name: str) -> Any:
            function = getattr(tools, name)

            def run(*args: Any, **kwargs: Any) -> Any:
                with trusted():
                    return function(*args, **kwargs)

            run.__name__ = name
            run.__doc__ = function.__doc__
            return run

        self.search = call("search")
        self.get_paper = call("get_paper")
        self.related_papers = call("related_papers")
        self.timeline = call("timeline")
        self.calls_left = lambda: tools.calls_left
        self.cutoff = tools.view.cutoff

    def as_langchain(self) -> list[Any]:
        """These tools as LangChain tools for a LangGraph agent
        (:func:`foresci.agents.langchain_tools.kb_langchain_tools`)."""
        from foresci.agents.langchain_tools import kb_langchain_tools

        return kb_langchain_tools(self)
