"""Locate the declarative folders (kb/, taxonomy/, agents/, evaluation/) in a checkout or a wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parents[1]


def declarative_dir(name: str) -> Path:
    """Return the folder of declarative files called ``name`` (e.g. ``"kb"``).

    In a checkout (or an editable install) it is the folder at the repository root; in an installed
    wheel it is ``foresci/_declarative/<name>``.
    """
    checkout = _PACKAGE_DIR.parent / name
    if checkout.is_dir() and (_PACKAGE_DIR.parent / "pyproject.toml").is_file():
        return checkout
    shipped = _PACKAGE_DIR / "_declarative" / name
    if shipped.is_dir():
        return shipped
    raise FileNotFoundError(f"declarative folder {name!r} not found in {checkout} or {shipped}")


def declarative_file(folder: str, relative: str) -> Path:
    """Return the path of a declarative file, e.g. ``declarative_file("taxonomy", "slicing.yaml")``."""
    path = declarative_dir(folder) / relative
    if not path.exists():
        raise FileNotFoundError(f"declarative file not found: {path}")
    return path
