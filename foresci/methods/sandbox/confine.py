"""What a sandboxed plug-in's process may see, and the bubblewrap command line that confines it.

The process sees, read-only: the system's ``/usr`` (and the ``/bin``, ``/lib`` links into it), the Python
installation foresci runs on (its prefix, base prefix and site-packages), foresci's own package folder and
the plug-in's code (:func:`locate_plugin`: its package folder, or the Python files beside a single-file
module). Nothing else of the disk exists in it: not the release, the KB, the run folder, the caches, the
home folder or the current folder. Inside, ``/tmp`` is an empty tmpfs, ``/proc`` shows only the sandbox's
own processes (a new PID namespace), and it has no network (a new network namespace holding only its own
loopback): its one way out is the socket foresci passes it (:mod:`foresci.methods.sandbox.host`).
It runs as an unprivileged user in a new user namespace with every capability dropped, and dies with
foresci. Protected folders that lie inside a shown folder (a release kept beside the plug-in) are covered
by an empty tmpfs, and files named like hidden targets inside the plug-in's folders by ``/dev/null``.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from foresci.methods.wall import HIDDEN_NAME_PARTS

BWRAP = "bwrap"
SANDBOX_UID = 65534
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/localtime", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf")
PASSED_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_WAIT_POLICY",
                    "LANG", "LC_ALL", "TZ", "FORESCI_EXTENSIONS")
MAX_SIBLINGS = 200  # Python files shown beside a single-file module (more: only the module itself)
MAX_SCANNED = 20_000  # entries scanned in a plug-in's folders for hidden-looking names


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or cannot create its namespaces on this machine."""


@dataclass(frozen=True)
class PluginCode:
    """Where a plug-in's code lives: ``mounts`` shown read-only at their own paths, ``import_roots``
    added to ``PYTHONPATH`` inside the sandbox."""

    mounts: tuple[str, ...]
    import_roots: tuple[str, ...]


def bwrap_path() -> str:
    """The bubblewrap executable; :class:`SandboxUnavailable` naming the way out when it is missing."""
    found = shutil.which(BWRAP)
    if found is None:
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed: install it (Debian/Ubuntu: apt-get "
                                 "install bubblewrap) or pass --trust-plugin to run the plug-in inside "
                                 "foresci's process (only for code you trust)")
    return found


def _under(path: Path, roots: Iterable[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def python_mounts() -> list[Path]:
    """The Python installation: prefixes and every site-packages folder on ``sys.path``."""
    found = {Path(prefix).resolve() for prefix in (sys.prefix, sys.base_prefix, sys.exec_prefix,
                                                   sys.base_exec_prefix)}
    for entry in sys.path:
        if entry and ("site-packages" in entry or "dist-packages" in entry) and Path(entry).exists():
            found.add(Path(entry).resolve())
    return sorted(path for path in found if not _under(path, found - {path}))


def foresci_mount() -> Path:
    """foresci's own package folder (its code and nothing beside it)."""
    import foresci

    return Path(foresci.__file__).resolve().parent


def locate_plugin(module: str) -> PluginCode:
    """The folders a plug-in's top-level module lives in, found without importing it.

    A package shows its whole folder; a single-file module shows itself and the Python files and packages
    beside it (its helpers), never the data beside it. Raises ``ModuleNotFoundError`` when there is none.
    """
    top = module.split(".", 1)[0]
    spec = importlib.util.find_spec(top)
    if spec is None:
        raise ModuleNotFoundError(f"No module named {top!r}", name=top)
    installed = python_mounts()
    locations = [Path(folder).resolve() for folder in spec.submodule_search_locations or ()]
    if locations:
        mounts = locations
    elif spec.origin and os.path.isfile(spec.origin):
        origin = Path(spec.origin).resolve()
        beside = sorted(entry for entry in origin.parent.iterdir()
                        if entry.suffix == ".py" or (entry / "__init__.py").is_file())
        mounts = beside if len(beside) <= MAX_SIBLINGS else [origin]
        if origin not in mounts:
            mounts.append(origin)
    else:  # built in or frozen: nothing to show
        mounts = []
    shown = [path for path in mounts if not _under(path, installed)]
    roots = sorted({str(path.parent) for path in shown})
    return PluginCode(tuple(str(path) for path in shown), tuple(roots))


def with_extensions(code: PluginCode) -> PluginCode:
    """``code`` plus the code of the extensions named in ``FORESCI_EXTENSIONS`` (their task families must
    be registered in the plug-in's process too, to read its tasks); one that cannot be found is left out
    (the process then reports it, as foresci does)."""
    mounts, roots = list(code.mounts), list(code.import_roots)
    for name in filter(None, (part.strip() for part in os.environ.get("FORESCI_EXTENSIONS", "").split(","))):
        try:
            found = locate_plugin(name)
        except (ImportError, ValueError):
            continue
        mounts += [path for path in found.mounts if path not in mounts]
        roots += [root for root in found.import_roots if root not in roots]
    return PluginCode(tuple(mounts), tuple(roots))


def _hidden_looking(folders: Iterable[Path]) -> list[Path]:
    """Files and folders named like hidden targets inside ``folders`` (bounded scan)."""
    found: list[Path] = []
    scanned = 0
    for folder in folders:
        if not folder.is_dir():
            continue
        for current, subfolders, files in os.walk(folder):
            scanned += len(subfolders) + len(files)
            for name in [*subfolders, *files]:
                if any(part in name.lower() for part in HIDDEN_NAME_PARTS):
                    found.append(Path(current) / name)
            subfolders[:] = [name for name in subfolders if name != "__pycache__"]
            if scanned > MAX_SCANNED:
                return found
    return found


def bwrap_command(worker: list[str], code: PluginCode, protected: Iterable[Path],
                  channel_fd: int) -> list[str]:
    """The bubblewrap command line that runs ``worker`` (argv) confined, with ``channel_fd`` left open."""
    command = [bwrap_path(), "--unshare-all", "--unshare-user", "--disable-userns",
               "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--cap-drop", "ALL",
               "--die-with-parent", "--new-session", "--hostname", "sandbox",
               "--ro-bind", "/usr", "/usr"]
    for link in SYSTEM_LINKS:
        if os.path.islink(link):
            command += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            command += ["--ro-bind", link, link]
    for name in SYSTEM_FILES:
        command += ["--ro-bind-try", name, name]
    command += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    foresci_folder = foresci_mount()
    shown = [*python_mounts(), foresci_folder, *(Path(path) for path in code.mounts)]
    for path in shown:
        if not _under(path, [Path("/usr")]):
            command += ["--ro-bind", str(path), str(path)]
    for path in sorted({Path(path).resolve() for path in protected}):
        if _under(path, shown) and path.is_dir():
            command += ["--tmpfs", str(path)]
    for path in _hidden_looking(Path(mount) for mount in code.mounts):
        command += ["--tmpfs", str(path)] if path.is_dir() else ["--ro-bind", "/dev/null", str(path)]
    python_path = os.pathsep.join([str(foresci_folder.parent), *code.import_roots])
    command += ["--clearenv", "--setenv", "PYTHONPATH", python_path, "--setenv", "HOME", "/tmp",
                "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin",
                "--setenv", "PYTHONDONTWRITEBYTECODE", "1", "--setenv", "PYTHONNOUSERSITE", "1"]
    for variable in PASSED_VARIABLES:
        if variable in os.environ:
            command += ["--setenv", variable, os.environ[variable]]
    return [*command, "--chdir", "/tmp", "--", *worker, str(channel_fd)]
