"""CLI: foresci sim ..."""

from __future__ import annotations

import typer

app = typer.Typer(help="Generate synthetic research worlds with planted dynamics.", no_args_is_help=True)
