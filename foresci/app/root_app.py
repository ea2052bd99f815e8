"""The typer root of ``foresci``: its options and callback, and the app built from the command registry.

Only a command that runs loads this (typer); ``foresci --help`` is drawn without it
(:mod:`foresci.app.root_help`).
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import typer

from foresci import __version__
from foresci.app.commands import COMMAND_ENTRIES, CONFIG_HELP, DEBUG_HELP, ROOT_HELP, VERSION_HELP
from foresci.app.settings_check import check_settings_environment


def build_app(only: str | None = None) -> typer.Typer:
    """The CLI: every command, or (``only``) the root options and that one command."""
    built = typer.Typer(
        name="foresci", help=ROOT_HELP, no_args_is_help=True, pretty_exceptions_show_locals=False
    )
    built.callback()(root)
    for entry in COMMAND_ENTRIES:
        if only is not None and entry.name != only:
            continue
        target = getattr(importlib.import_module(entry.module), entry.attribute)
        if entry.group:
            built.add_typer(target, name=entry.name)
        else:
            built.command(entry.name)(target)
    return built


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"foresci {__version__}")
        raise typer.Exit()


def root(
    config: Path | None = typer.Option(None, "--config", help=CONFIG_HELP),
    version: bool = typer.Option(
        False, "--version", callback=_version_callback, is_eager=True, help=VERSION_HELP
    ),
    debug: bool = typer.Option(False, "--debug", help=DEBUG_HELP),
) -> None:
    """foresci: can an AI system make research decisions that the following months prove right?"""
    if config is not None:
        os.environ["FORESCI_CONFIG"] = str(config)
    check_settings_environment()  # a bad settings file or variable fails here, naming it, for any command
