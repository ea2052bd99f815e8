"""The pytest-xdist scheduler `make test` uses: each test module is one unit of work, sent whole to one
worker, so a module or session fixture is built at most once per worker; a folder named in ``folders``
(the Ray engine tests, which share one local cluster) is one unit. The units go out in collection order.

xdist's own ``--dist loadgroup`` cannot express this on pytest >= 9.2: it marks groups by rewriting node
ids, which pytest no longer reads back (pytest-xdist issue 1386), so grouped tests were spread one by one.
"""

from __future__ import annotations

from typing import Any

from xdist.scheduler import LoadScopeScheduling


def module_scope(nodeid: str, folders: tuple[str, ...]) -> str:
    """The unit of work of ``nodeid``: its module's path, or ``tests/<folder>`` for a folder in
    ``folders``."""
    path = nodeid.split("::", 1)[0]
    parts = path.split("/")
    if len(parts) > 2 and parts[0] == "tests" and parts[1] in folders:
        return "/".join(parts[:2])
    return path


class ModuleScheduling(LoadScopeScheduling):
    """LoadScopeScheduling with :func:`module_scope` as the scope of a test."""

    def __init__(self, config: Any, log: Any = None, folders: tuple[str, ...] = ()) -> None:
        super().__init__(config, log)
        self.folders = folders

    def _split_scope(self, nodeid: str) -> str:
        return module_scope(nodeid, self.folders)
