"""CLI: foresci taxonomy ..."""

from __future__ import annotations

import typer

app = typer.Typer(help="Induce, show and export temporal taxonomies.", no_args_is_help=True)
