"""What ``foresci kb search`` does and prints (the typer command `foresci.kb.cli.search_command`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from foresci.core.settings import Settings


def print_search(kb_dir: Path, query: str, cutoff: Callable[[], date], domain: str | None, k: int) -> None:
    """Search the KB at ``kb_dir`` as an agent at the cutoff would and print the hits as a table.

    ``cutoff`` parses the date after the KB is opened (a missing KB is the error a user sees first). The
    settings come from :func:`foresci.core.light_settings.load_light_settings` (no pydantic-settings). The KB
    is opened for one search (``one_shot``): the dense side is an exact numpy scan, never FAISS's graph.
    """
    from rich.console import Console
    from rich.table import Table

    from foresci.app.quick_exit import quick_exit_on_success
    from foresci.core.light_settings import load_light_settings
    from foresci.kb.retrieve import KBView
    from foresci.kb.store import KnowledgeBase

    settings = cast("Settings", load_light_settings())  # the same fields and values as Settings()
    view = KBView(KnowledgeBase.open(kb_dir, settings, one_shot=True), cutoff())
    table = Table(title=f"{query!r} at {view.cutoff} ({view.size} papers visible)")
    for column in ("rank", "date", "id", "title", "bm25", "dense"):
        table.add_column(column)
    for hit in view.search(query, k=k, domain=domain):
        table.add_row(
            str(hit.rank),
            hit.paper.announced.isoformat(),
            hit.paper.paper_id,
            hit.paper.title[:80],
            str(hit.bm25_rank or "-"),
            str(hit.dense_rank or "-"),
        )
    Console().print(table)
    quick_exit_on_success()
