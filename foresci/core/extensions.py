"""Third-party extensions: modules outside foresci that register task families, metrics or methods.

An extension is an importable module whose import registers what it defines (``@register_family``,
``@register_metric``, ``@method``). foresci imports, once per process and before it reads a registry:

- every module named in the environment variable ``FORESCI_EXTENSIONS`` (comma-separated, e.g.
  ``FORESCI_EXTENSIONS=my_lab.novelty,my_lab.families``; the folder holding them on ``PYTHONPATH``), and
- every entry point of group ``foresci.extensions`` of an installed package
  (``[project.entry-points."foresci.extensions"] novelty = "my_lab.novelty"``).

A module that cannot be imported is an :class:`ExtensionError` naming it and where it was named.

Extensions are trusted: they run in foresci's process. A method submitted to be benchmarked is not an
extension: it is a plug-in of its own entry-point group ``foresci.methods``
(:data:`foresci.methods.loading.ENTRY_POINT_GROUP`), imported only inside its sandbox worker.
"""

from __future__ import annotations

import importlib
import os
import traceback
from functools import lru_cache
from importlib.metadata import entry_points

from foresci.core.errors import UserError

EXTENSIONS_VARIABLE = "FORESCI_EXTENSIONS"
ENTRY_POINT_GROUP = "foresci.extensions"

_loaded: set[str] = set()


class ExtensionError(UserError):
    """An extension module that cannot be imported."""


@lru_cache(maxsize=1)
def _entry_point_modules() -> tuple[tuple[str, str], ...]:
    """The entry points' modules, read once per process (scanning installed metadata takes milliseconds,
    and the registries are read per row)."""
    return tuple((entry.value.partition(":")[0].strip(), f"entry point {entry.name!r} of group "
                                                         f"{ENTRY_POINT_GROUP}")
                 for entry in entry_points(group=ENTRY_POINT_GROUP))


def named_extensions() -> list[tuple[str, str]]:
    """``(module, where it was named)`` for every extension, the variable's first, in order, once each."""
    named: list[tuple[str, str]] = []
    for module in os.environ.get(EXTENSIONS_VARIABLE, "").split(","):
        if module.strip():
            named.append((module.strip(), f"environment variable {EXTENSIONS_VARIABLE}"))
    named.extend(_entry_point_modules())
    unique: dict[str, str] = {}
    for module, where in named:
        unique.setdefault(module, where)
    return list(unique.items())


def _failing_line(error: BaseException, module: str) -> str | None:
    """``file:line`` of the deepest frame of ``error``'s traceback in the extension's own code (a module
    of the extension's top-level package, wherever it is installed), or None when there is none."""
    package = module.partition(".")[0]
    found = None
    for frame, line in traceback.walk_tb(error.__traceback__):
        name = str(frame.f_globals.get("__name__", ""))
        if name == package or name.startswith(package + "."):
            found = f"{frame.f_code.co_filename}:{line}"
    return found


def _reason(module: str, error: BaseException) -> str:
    """One line: where in the extension it failed (when it got that far), the error, and a hint for
    a module that is not found at all (a typo, or its folder missing from PYTHONPATH)."""
    reason = " ".join(f"{type(error).__name__}: {error}".split())[:300]
    failing = _failing_line(error, module)
    if failing is not None:
        return f"{failing}: {reason}"
    missing = getattr(error, "name", None) if isinstance(error, ModuleNotFoundError) else None
    if missing and (module == missing or module.startswith(missing + ".")):
        return f"{reason} (a typo in the name, or the folder holding it is not on PYTHONPATH)"
    return reason


def loaded_extensions() -> frozenset[str]:
    """The extension modules imported so far in this process."""
    return frozenset(_loaded)


def load_extensions() -> list[str]:
    """Import every extension not imported yet; returns the modules imported by this call.

    Commands call it once at their entry (``foresci.cli.run_cli``); the registries call it again
    before they are read (a no-op then) so that code using foresci as a library sees extensions too.
    An extension that fails is an :class:`ExtensionError` naming it, where it was named, and the line
    of its code that failed.
    """
    imported: list[str] = []
    for module, where in named_extensions():
        if module in _loaded:
            continue
        try:
            importlib.import_module(module)
        except Exception as error:  # an extension may fail in any way: one line naming it
            raise ExtensionError(f"cannot import extension {module!r}: {_reason(module, error)}",
                                 path=where) from error
        _loaded.add(module)
        imported.append(module)
    return imported
