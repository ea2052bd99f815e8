"""What a sandboxed plug-in's process may see, and the bubblewrap command line that confines it.

The process sees, read-only: the system's ``/usr`` (and the ``/bin``, ``/lib`` links into it), the Python
installation foresci runs on (its prefix, base prefix and site-packages), foresci's own package folder and
the plug-in's code (:func:`plugin_files`: its package folder, or the Python files beside a single-file
module, found by path with :func:`locate_path` or on ``sys.path`` with :func:`locate_plugin`; a link among
them that leaves the plug-in's folder or dangles is refused, naming it). Nothing else of the disk exists
in it: not the release, the KB, the run folder, the caches, the home folder or the current folder, nor
any of foresci's environment variables. Inside, ``/tmp`` is an empty tmpfs of ``sandbox.tmp_mb``,
``/proc`` shows only the sandbox's own processes (a new PID namespace), and it has no network (a new
network namespace holding only its own loopback): its one way out is the socket foresci passes it
(:mod:`foresci.methods.sandbox.host`). It runs as an unprivileged user in a new user namespace with every
capability dropped, and dies with foresci. Protected folders that lie inside a shown folder (a release
kept beside the plug-in) are covered by an empty tmpfs, and files named like hidden targets inside the
plug-in's folders by ``/dev/null``.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import subprocess
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


class PluginCodeError(ValueError):
    """A plug-in's folder holds a link that leaves it or leads nowhere (the message names it)."""


def _checked_link(entry: Path, folder: Path) -> None:
    """Refuse ``entry`` when it is a symbolic link that dangles or leads out of ``folder``."""
    if not entry.is_symlink():
        return
    target = entry.resolve()
    if not target.exists():
        raise PluginCodeError(f"{entry} is a link to {os.readlink(entry)}, which does not exist: remove it "
                              "or replace it by the file itself")
    if not _under(target, [folder]):
        raise PluginCodeError(f"{entry} is a link to {target}, outside the plug-in's folder {folder}: only "
                              "files inside that folder are shown to the plug-in; copy the file in instead")


def _checked_tree(folder: Path, root: Path) -> None:
    """Refuse the links inside the package ``folder`` that dangle or leave ``root`` (bounded scan)."""
    scanned = 0
    for current, subfolders, files in os.walk(folder):
        scanned += len(subfolders) + len(files)
        for name in [*subfolders, *files]:
            _checked_link(Path(current) / name, root)
        subfolders[:] = [name for name in subfolders if name != "__pycache__"]
        if scanned > MAX_SCANNED:
            return


def _is_code(entry: Path) -> bool:
    """A Python file (a regular file, or a link to one) or a package folder."""
    if entry.suffix == ".py":
        return entry.is_file()
    return entry.is_dir() and (entry / "__init__.py").is_file()


def plugin_files(origin: Path | None, package: list[Path]) -> list[Path]:
    """What of a plug-in's code the sandbox shows: a package's folder, or a single file with the Python
    files and packages beside it (its helpers, never the data beside it); links that leave the folder or
    dangle are refused (:class:`PluginCodeError`), as is anything that is not a regular file or folder."""
    if package:
        for folder in package:
            _checked_link(folder, folder.parent)
            _checked_tree(folder, folder.resolve())
        return [folder.resolve() for folder in package]
    if origin is None:
        return []
    folder = origin.parent.resolve()
    _checked_link(origin, folder)
    if not origin.resolve().is_file():
        raise PluginCodeError(f"{origin} is not a regular file")
    beside = []
    for entry in sorted(folder.iterdir()):
        if entry.suffix != ".py" and not entry.is_dir():
            continue
        _checked_link(entry, folder)
        if _is_code(entry):
            beside.append(entry)
    if len(beside) > MAX_SIBLINGS:
        beside = [folder / origin.name]
    for entry in beside:
        if entry.is_dir():
            _checked_tree(entry, folder)
    shown = [folder / origin.name, *beside]
    return list(dict.fromkeys(shown))


def locate_plugin(module: str) -> PluginCode:
    """The folders a plug-in's top-level module lives in, found on ``sys.path`` without importing it.

    Raises ``ModuleNotFoundError`` when there is none (:func:`plugin_files` says what is shown)."""
    top = module.split(".", 1)[0]
    spec = importlib.util.find_spec(top)
    if spec is None:
        raise ModuleNotFoundError(f"No module named {top!r}", name=top)
    installed = python_mounts()
    package = [Path(folder) for folder in spec.submodule_search_locations or ()]
    origin = Path(spec.origin) if not package and spec.origin and os.path.isfile(spec.origin) else None
    if origin is not None and _under(origin.resolve(), installed) or \
            package and all(_under(folder.resolve(), installed) for folder in package):
        return PluginCode((), ())  # an installed package: the Python installation is shown anyway
    return _code_of(plugin_files(origin, package))


def _code_of(mounts: list[Path]) -> PluginCode:
    installed = python_mounts()
    shown = [path for path in mounts if not _under(path.resolve(), installed)]
    roots = sorted({str(path.parent) for path in shown})
    return PluginCode(tuple(str(path) for path in shown), tuple(roots))


def locate_path(path: Path) -> tuple[str, PluginCode]:
    """A plug-in named by its file (``agent.py``) or package folder: its module name inside the sandbox and
    what is shown of it. foresci itself never imports from there."""
    if not path.exists() and not path.is_symlink():
        raise PluginCodeError(f"{path}: no such file or folder")
    if path.is_dir():
        if not (path / "__init__.py").is_file():
            raise PluginCodeError(f"{path} is a folder without __init__.py: name the plug-in's file "
                                  "(path/agent.py:function) or a package folder")
        folder = path.absolute()
        return folder.resolve().name, _code_of(plugin_files(None, [folder]))
    if path.suffix != ".py":
        raise PluginCodeError(f"{path} is not a Python file (.py) or a package folder")
    origin = path.absolute()
    if not origin.stem.isidentifier():
        raise PluginCodeError(f"{path}: {origin.stem!r} is not a Python module name")
    return origin.stem, _code_of(plugin_files(origin, []))


def with_extensions(code: PluginCode) -> PluginCode:
    """``code`` plus the code of the extensions named in ``FORESCI_EXTENSIONS`` (their task families must
    be registered in the plug-in's process too, to read its tasks); one that cannot be found is left out
    (the process then reports it, as foresci does)."""
    mounts, roots = list(code.mounts), list(code.import_roots)
    for name in filter(None, (part.strip() for part in os.environ.get("FORESCI_EXTENSIONS", "").split(","))):
        try:
            found = locate_plugin(name)
        except PluginCodeError:
            raise
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


@functools.lru_cache(maxsize=1)
def tmpfs_size_supported() -> bool:
    """Whether this bubblewrap sizes a tmpfs (``--size``, bubblewrap 0.8 and later)."""
    try:
        shown = subprocess.run([bwrap_path(), "--help"], capture_output=True, text=True, timeout=10,
                               env={"PATH": "/usr/bin:/bin"})
    except (OSError, subprocess.SubprocessError):
        return False
    return "--size" in shown.stdout + shown.stderr


def bwrap_command(worker: list[str], code: PluginCode, protected: Iterable[Path],
                  channel_fd: int, tmp_bytes: int | None = None) -> list[str]:
    """The bubblewrap command line that runs ``worker`` (argv) confined, with ``channel_fd`` left open and
    a ``/tmp`` of ``tmp_bytes`` at most (where bubblewrap can size it; the worker also limits file sizes)."""
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
    command += ["--proc", "/proc", "--dev", "/dev"]
    if tmp_bytes is not None and tmpfs_size_supported():
        command += ["--size", str(tmp_bytes)]
    command += ["--tmpfs", "/tmp"]
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
