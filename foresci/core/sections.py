"""The base of every settings section: unknown keys are errors, never silently ignored."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class SettingsSection(BaseModel):
    """A nested section of :class:`foresci.core.settings.Settings` (``kb``, ``llm``, ...); extra keys
    refused."""

    model_config = ConfigDict(extra="forbid")
