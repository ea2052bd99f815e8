"""Resolve a ``--method`` value to a registered method: a registered name, an installed plug-in (entry
point group ``foresci.methods``), a plug-in named by its file or package folder (``path/agent.py:object``,
``path/agent_package:object``), ``package.module:object`` (importable: installed) or an ``http(s)://``
agent URL.

A plug-in loaded here is not imported into foresci's process: its module is located without running it,
and it is imported, described and run in its own sandboxed process (:mod:`foresci.methods.sandbox`); a
plug-in named by path is never put on foresci's own import path.
``trust_plugin=True`` (``--trust-plugin``) imports it here instead, behind the in-process wall only.
Code under the ``foresci`` package is foresci's own and always loads here."""

from __future__ import annotations

import difflib
import importlib
from dataclasses import replace
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from foresci.methods.identity import plugin_version
from foresci.methods.references import MethodLoadError as MethodLoadError
from foresci.methods.references import is_path_reference as is_path_reference
from foresci.methods.registry import MethodSpec, as_spec, lookup, register, registered, shipped_methods

ENTRY_POINT_GROUP = "foresci.methods"
"""The entry-point group of method plug-ins: a group of its own, not ``foresci.extensions``. foresci imports
every extension in its own process before it reads a registry (extensions are trusted code); one group for
both would make the host import a submitted method's code. A plug-in of this group is located without
importing it and imported only in its sandbox worker (``--trust-plugin``: here, behind the wall)."""


def installed_plugins() -> dict[str, EntryPoint]:
    """The entry points of group ``foresci.methods`` by name."""
    return {entry.name: entry for entry in entry_points(group=ENTRY_POINT_GROUP)}


def _short(error: BaseException) -> str:
    return " ".join(f"{type(error).__name__}: {error}".split())[:300]


def _spec_of(target: Any, label: str, name: str | None = None, module: str = "") -> MethodSpec:
    try:
        spec = as_spec(target, name=name, source=label)
    except TypeError as error:
        raise MethodLoadError(f"{label}: {error}") from error
    if name is not None and spec.name != name:
        spec = replace(spec, name=name)
    if not spec.shipped and not spec.version and module:
        spec = replace(spec, version=plugin_version(None, module))
    try:
        return register(spec)
    except ValueError as error:
        raise MethodLoadError(f"{label}: {error}") from error


def _own(reference: str) -> bool:
    module = reference.partition(":")[0]
    return module == "foresci" or module.startswith("foresci.")


def _sandboxed(reference: str, label: str, name: str | None = None, entry_point: bool = False,
               settings: Any = None) -> MethodSpec:
    """The plug-in at ``reference`` described and run in its own process, registered under its name."""
    from foresci.methods.sandbox import SandboxUnavailable, program_for, sandboxed_spec
    from foresci.methods.sandbox.confine import PluginCodeError

    try:
        program = program_for(reference, label, name=name, entry_point=entry_point)
    except PluginCodeError as error:
        raise MethodLoadError(f"cannot load {label}: {error}") from error
    except ModuleNotFoundError as error:
        raise MethodLoadError(f"cannot load method {reference!r}: no module named {error.name!r} (name a "
                              "plug-in by its file, path/to/agent.py:function, or install its package)") \
            from error
    except (ImportError, ValueError) as error:
        raise MethodLoadError(f"cannot load {label}: {_short(error)}") from error
    from foresci.methods.sandbox.host import SandboxLimitExceeded

    try:
        spec = sandboxed_spec(program, settings)
    except SandboxUnavailable as error:
        raise MethodLoadError(f"cannot run {label} in its sandbox: {error}") from error
    except SandboxLimitExceeded as error:  # reading what it declares (importing it) reached a limit
        raise MethodLoadError(f"cannot load {label}: {error}") from error
    try:
        return register(spec)
    except ValueError as error:
        raise MethodLoadError(f"{label}: {error}") from error


def load_object(reference: str) -> MethodSpec:
    """The method at ``package.module:object`` (``object`` may be dotted)."""
    module_name, _, attribute = reference.partition(":")
    if not module_name or not attribute:
        raise MethodLoadError(f"cannot load method {reference!r}: expected package.module:object")
    try:
        target: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        raise MethodLoadError(f"cannot load method {reference!r}: no module named {error.name!r} (name a "
                              "plug-in by its file, path/to/agent.py:function, or install its package)") \
            from error
    except Exception as error:  # a plug-in's import may fail in any way: one line naming it
        raise MethodLoadError(f"cannot load method {reference!r}: importing {module_name} raised "
                              f"{_short(error)}") from error
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise MethodLoadError(f"cannot load method {reference!r}: {module_name} has no attribute "
                                  f"{attribute!r}")
        target = getattr(target, part)
    return _spec_of(target, reference, module=module_name)


def load_entry_point(entry: EntryPoint) -> MethodSpec:
    """The method an installed plug-in declares, under its entry-point name."""
    label = f"plug-in {entry.name!r} ({entry.value})"
    try:
        target = entry.load()
    except Exception as error:  # a broken installed plug-in: one line naming it
        raise MethodLoadError(f"cannot load {label}: {_short(error)}") from error
    return _spec_of(target, label, name=entry.name, module=entry.value.partition(":")[0].strip())


def load_path(value: str) -> MethodSpec:
    """``--trust-plugin`` with a plug-in named by path: imported here, its folder put on ``sys.path``."""
    import sys
    from pathlib import Path

    from foresci.methods.sandbox.confine import PluginCodeError, locate_path

    where, _, attribute = value.rpartition(":")
    try:
        module, code = locate_path(Path(where))
    except PluginCodeError as error:
        raise MethodLoadError(f"cannot load {value}: {error}") from error
    for root in code.import_roots:
        if root not in sys.path:
            sys.path.insert(0, root)
    return load_object(f"{module}:{attribute}")


def resolve_method(value: str, trust_plugin: bool = False, kb_tools: bool = False,
                   settings: Any = None) -> MethodSpec:
    """The method ``value`` names; a :class:`MethodLoadError` (one line) when it names none.

    A plug-in (``path/agent.py:object``, ``module:object`` or an entry point) runs sandboxed unless
    ``trust_plugin``, under the sandbox limits of ``settings`` (the run's). An HTTP agent resolved with
    ``kb_tools`` (the run has a KB) is registered as reading the KB through its tools URL."""
    value = value.strip()
    if value.startswith(("http://", "https://")):
        from foresci.methods.http import http_method

        if kb_tools:  # registered, so the runner's lookup by name finds the KB-reading agent
            return register(http_method(value, kb_tools=True))
        return lookup(value) or register(http_method(value))
    known = registered()
    if value in known:
        return known[value]
    if is_path_reference(value):
        if trust_plugin:
            return load_path(value)
        return _sandboxed(value, value, settings=settings)
    if ":" in value:
        if trust_plugin or _own(value):
            return load_object(value)
        return _sandboxed(value, value, settings=settings)
    plugins = installed_plugins()
    if value in plugins:
        entry = plugins[value]
        if trust_plugin or _own(entry.value):
            return load_entry_point(entry)
        return _sandboxed(entry.value, f"plug-in {entry.name!r} ({entry.value})", name=entry.name,
                          entry_point=True, settings=settings)
    choices = ", ".join(shipped_methods())
    extra = f"; installed plug-ins: {', '.join(sorted(plugins))}" if plugins else ""
    close = difflib.get_close_matches(value, [*shipped_methods(), *plugins], n=1, cutoff=0.75)
    hint = f"did you mean {close[0]}? " if close else ""  # `--method persistance`, in run and rounds submit
    raise MethodLoadError(f"{hint}unknown method {value!r}; choose from {choices}{extra}, "
                          "path/to/agent.py:function, package.module:object or an http(s):// agent URL")
