"""MkDocs hook: adds the reference pages generated from the code (settings, metrics, families, methods,
CLI) to the site at build time, so they cannot drift from it. Nothing generated is committed.

mkdocs puts this folder on ``sys.path`` while it loads the hook, so the two modules beside it import.
"""

from __future__ import annotations

from typing import Any

import reference_pages
import reference_sources
from mkdocs.structure.files import File, Files


def on_files(files: Files, config: Any) -> Files:
    """Add each generated page; a committed file at the same path is an error (it would be shadowed)."""
    for path, markdown in reference_pages.build_pages(reference_sources).items():
        if files.get_file_from_path(path) is not None:
            raise ValueError(f"docs/{path}: generated at build time; remove the committed file")
        files.append(File.generated(config, path, content=markdown))
    return files
