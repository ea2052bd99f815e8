"""Small helpers shared by the component CLIs."""

from __future__ import annotations

from datetime import date

import typer


def parse_date_option(value: str, option: str) -> date:
    """Parse a YYYY-MM-DD command-line value; a bad one is a usage error naming the option."""
    try:
        return date.fromisoformat(value)
    except ValueError as error:
        raise typer.BadParameter(f"{value!r} is not a date (YYYY-MM-DD)", param_hint=option) from error


def known_windows(value: str | list[str]) -> str | list[str]:
    """Check ``--window`` values (``1m``, ``2m``, ``3m``, ``6m``, ``venue_cycle``); an unknown one is a usage
    error."""
    from foresci.tasks.windows import KNOWN_HORIZONS

    for window in [value] if isinstance(value, str) else value:
        if window not in KNOWN_HORIZONS:
            raise typer.BadParameter(f"unknown window {window!r}; use one of {', '.join(KNOWN_HORIZONS)}",
                                     param_hint="--window")
    return value
