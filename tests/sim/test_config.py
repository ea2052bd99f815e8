"""WorldConfig validation: errors name the knob at fault; the calendar it implies."""

from __future__ import annotations

from datetime import date

import pytest
from pydantic import ValidationError

from foresci.core.settings import Settings
from foresci.sim.world import WorldConfig, default_world_config, world_config_from_settings


def test_default_world_leaves_six_hidden_months() -> None:
    config = default_world_config()
    assert config.month_keys[0] == "2024-01" and len(config.month_keys) == 18
    assert config.cutoff == date(2024, 12, 31)
    assert len(config.month_keys) - 1 - config.cutoff_index == 6


def test_cutoff_month_by_name_and_index_agree() -> None:
    assert WorldConfig(cutoff_month="2024-09").cutoff_index == WorldConfig(cutoff_month=8).cutoff_index == 8
    assert WorldConfig(cutoff_month="2024-09").cutoff == date(2024, 9, 30)


@pytest.mark.parametrize(
    ("knobs", "field"),
    [
        ({"start": "2024-13"}, "start"),
        ({"start": "Jan 2024"}, "start"),
        ({"counterfactual": "upside-down"}, "counterfactual"),
        ({"cutoff_month": "2031-01"}, "cutoff_month"),
        ({"cutoff_month": 17}, "cutoff_month"),
        ({"difficulty": 1.5}, "difficulty"),
    ],
)
def test_bad_knobs_are_rejected_naming_the_field(knobs: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationError, match=field):
        WorldConfig(**knobs)  # type: ignore[arg-type]


def test_settings_section_shapes_the_world(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORESCI_SIM__DIFFICULTY", "0.9")
    monkeypatch.setenv("FORESCI_SIM__SEED", "77")
    config = world_config_from_settings(Settings().sim)
    assert (config.difficulty, config.seed) == (0.9, 77)


def test_default_world_config_follows_the_settings_section(monkeypatch: pytest.MonkeyPatch) -> None:
    assert default_world_config(Settings().sim) == default_world_config()
    monkeypatch.setenv("FORESCI_SIM__NOISE", "0.4")
    assert default_world_config(Settings().sim).noise == 0.4
