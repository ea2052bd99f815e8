"""The check every command line starts with: the ``FORESCI_`` settings of the environment are valid."""

from __future__ import annotations

import os
import sys


def check_settings_environment() -> None:
    """Fail on a bad settings file or variable, naming it, and warn of ``FORESCI_`` variables that set
    nothing (with a hint); nothing to do without ``FORESCI_`` variables."""
    if any(name.startswith("FORESCI_") for name in os.environ):
        from foresci.core.light_settings import load_light_settings

        load_light_settings()
        from foresci.core.env_names import unknown_env_names

        for note in unknown_env_names():
            print(f"warning: {note}", file=sys.stderr)
