"""Files on ``PYTHONPATH`` that run inside foresci's own process: modules named like one foresci uses.

Python imports from ``PYTHONPATH`` before the standard library and the installed packages, and runs a
``sitecustomize.py`` found there when it starts. A plug-in's folder on ``PYTHONPATH`` (the old way of
naming a plug-in) therefore runs its ``sitecustomize.py``, or a ``typer.py`` in place of typer, in
foresci's process, which holds the release's hidden targets and the API key, before any sandbox exists.
:func:`shadowing_files` finds such files; ``foresci run`` refuses to go on when there are any. A folder
that holds the running foresci package itself (a source checkout on ``PYTHONPATH``) is not a plug-in
folder and is not checked.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path

STARTUP_MODULES = ("sitecustomize", "usercustomize")
SUFFIXES = (".py", ".pyc", ".so", ".pyd")


def _installed_names() -> set[str]:
    """Top-level module names of the installed packages (the site-packages folders on ``sys.path``)."""
    names: set[str] = set()
    for entry in sys.path:
        if "site-packages" not in entry and "dist-packages" not in entry:
            continue
        try:
            listed = os.listdir(entry)
        except OSError:
            continue
        for name in listed:
            if name.endswith((".dist-info", ".egg-info", ".pth")):
                continue
            names.add(name.split(".", 1)[0])
    return names


def used_names() -> set[str]:
    """The module names a file on ``PYTHONPATH`` must not take: Python's start-up hooks, every module
    loaded so far (but the extensions the user named, which ``foresci.cli`` imports at the command's
    entry from ``PYTHONPATH`` by design), the standard library's and the installed packages' names."""
    from foresci.core.extensions import loaded_extensions

    extensions = {name.split(".", 1)[0] for name in loaded_extensions()}
    loaded = {name.split(".", 1)[0] for name in sys.modules} - extensions
    return ({*STARTUP_MODULES, "foresci"} | loaded | set(sys.stdlib_module_names) | _installed_names())


def _own_folder() -> Path:
    import foresci

    return Path(foresci.__file__).resolve().parent.parent


def _shadows(folder: Path, names: set[str]) -> list[Path]:
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return []
    found: list[Path] = []
    for entry in entries:
        stem = entry.name.split(".", 1)[0]
        if stem not in names or stem.startswith("__"):  # __init__.py, __main__.py are never imported so
            continue
        module = entry.suffix in SUFFIXES and entry.is_file()
        if module or (entry.is_dir() and (entry / "__init__.py").is_file()):
            found.append(entry)
    return found


def pythonpath_folders(environ: dict[str, str] | None = None) -> list[Path]:
    """The folders ``PYTHONPATH`` adds, and the current folder when ``python -m`` put it first."""
    environ = dict(os.environ) if environ is None else environ
    folders = [Path(part).absolute() for part in environ.get("PYTHONPATH", "").split(os.pathsep) if part]
    if sys.path and sys.path[0] in ("", os.getcwd()) and sys.argv and sys.argv[0] not in ("", "-c"):
        folders.append(Path.cwd())
    return folders


def shadowing_files(folders: Iterable[Path] | None = None) -> list[Path]:
    """Files in ``folders`` (default :func:`pythonpath_folders`) that Python would import in place of a
    module foresci uses, or run at start-up; folders holding the running foresci itself are skipped."""
    own = _own_folder()
    names = used_names()
    found: list[Path] = []
    for folder in dict.fromkeys(folders if folders is not None else pythonpath_folders()):
        try:
            if folder.resolve() == own:
                continue
        except OSError:
            continue
        found += _shadows(folder, names)
    return found


def shadowing_message(found: list[Path]) -> str:
    """One line naming the files and the way out."""
    more = f" and {len(found) - 5} more" if len(found) > 5 else ""
    shown = ", ".join(str(path) for path in found[:5]) + more
    return (f"PYTHONPATH shadows modules foresci uses: {shown} ran or would run inside foresci's own process "
            "(with the release and the API key): remove that folder from PYTHONPATH and name a plug-in by "
            "its file instead (--method path/to/agent.py:function; it is imported only in its sandbox)")
