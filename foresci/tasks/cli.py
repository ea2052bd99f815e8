"""CLI: foresci tasks ... and foresci forecast ..."""

from __future__ import annotations

import typer

app = typer.Typer(help="Build, show, validate and audit foresight task releases.", no_args_is_help=True)
forecast_app = typer.Typer(help="Prospective forecast packages: make now, resolve later.",
                           no_args_is_help=True)
