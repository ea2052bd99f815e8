"""Which ``FORESCI_`` environment variables name a setting: refusing unknown sections, warning on typos.

Reads only the field names (:mod:`foresci.core.settings_fields`), so the CLI checks the environment of
every command without loading pydantic-settings.
"""

from __future__ import annotations

import os

from pydantic import BaseModel

from foresci.core.errors import ConfigError
from foresci.core.settings_fields import ENV_DELIMITER, ENV_PREFIX, SettingsFields, section_names

# FORESCI_ variables foresci reads that are not Settings fields: the YAML file, plug-in extension modules,
# the rounds kill switch, KB prefetch and the processes of a release build
NON_SETTING_VARIABLES = (
    "FORESCI_CONFIG", "FORESCI_EXTENSIONS", "FORESCI_ROUNDS_KILL_AT", "FORESCI_KB_PREFETCH",
    "FORESCI_RELEASE_WORKERS",
)


def check_env_names() -> None:
    """Refuse ``FORESCI_<SECTION>__<KEY>`` variables whose section is not a settings section."""
    sections = section_names()
    for name in os.environ:
        if not name.startswith(ENV_PREFIX) or ENV_DELIMITER not in name:
            continue
        section = name[len(ENV_PREFIX) :].split(ENV_DELIMITER, 1)[0].lower()
        if section not in sections:
            raise ConfigError(
                f"unknown settings section {section!r} (known: {', '.join(sorted(sections))})",
                path=f"environment variable {name}",
            )


def unknown_env_names() -> list[str]:
    """``FORESCI_`` variables that set no setting (``FORESCI_CACHE_DIRR``, ``FORESCI_LLM_BASE_URL``), each
    with a hint; the known names derive from the Settings fields (plus :data:`NON_SETTING_VARIABLES`)."""
    import difflib

    fields = SettingsFields.model_fields
    known = {f"{ENV_PREFIX}{name}".upper() for name in fields} | set(NON_SETTING_VARIABLES)
    sections = {name for name, info in fields.items()
                if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel)}
    section_prefixes = [f"{ENV_PREFIX}{name}".upper() for name in sections]
    notes = []
    for name in sorted(os.environ):
        upper = name.upper()
        if not upper.startswith(ENV_PREFIX) or ENV_DELIMITER in name or upper in known:
            continue
        prefix = next((section for section in section_prefixes if upper.startswith(section + "_")), None)
        if prefix is not None:
            hint = f"did you mean {prefix}{ENV_DELIMITER}{upper[len(prefix) + 1:]}?"
        else:
            close = difflib.get_close_matches(upper, sorted(known), n=1)
            hint = f"did you mean {close[0]}?" if close else f"known: {', '.join(sorted(known))}"
        notes.append(f"{name} is not a foresci setting and is ignored ({hint})")
    return notes
