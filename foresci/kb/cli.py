"""CLI: foresci kb ..."""

from __future__ import annotations

import typer

app = typer.Typer(help="Build, update, search and inspect the cutoff-aligned knowledge base.", no_args_is_help=True)
