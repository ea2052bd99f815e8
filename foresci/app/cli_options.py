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
