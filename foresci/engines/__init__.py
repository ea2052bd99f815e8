"""Execution engines: where the independent units of a long command run.

``local`` (the default) runs them in this process (threads), as every command always has. ``ray`` spreads
them over a Ray cluster (the optional extra ``pip install 'foresci[ray]'``; the map itself is
:mod:`foresci.core.cluster`): the document chunks of ``kb build``
(:mod:`foresci.embedders.ray_embedding`), the judge calls of ``eval``
(:mod:`foresci.evaluation.ray_judges`) and the task x method x backbone jobs of ``run``
(:mod:`foresci.engines.answers`, handed to the runner by the CLI). The first two sit beside the code that
calls them, so no lower layer imports this package. In every case the driver stays the one writer of the
artifact folder; workers only compute and return.
"""

from __future__ import annotations

from typing import Any

ENGINES = ("local", "ray")

ENGINE_HELP = (
    "where the work runs: 'local' (this process) or 'ray' (a Ray cluster: RAY_ADDRESS or the runtime "
    "setting ray_address, else a new local one; pip install 'foresci\\[ray]'). Default: the runtime "
    "setting engine"
)


def with_engine(settings: Any, engine: str | None) -> Any:
    """``settings`` with ``runtime.engine`` set to ``engine`` (unchanged when None)."""
    if engine is None:
        return settings
    if engine not in ENGINES:
        from foresci.core.errors import UserError

        raise UserError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}", field="--engine")
    runtime = settings.runtime.model_copy(update={"engine": engine})
    return settings.model_copy(update={"runtime": runtime})
