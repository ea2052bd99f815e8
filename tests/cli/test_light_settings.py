"""The light settings path (``kb search``, the root's check of the environment) gives what ``Settings()``
gives: the same values from plain variables without pydantic-settings, the same error otherwise."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from foresci.core.errors import ConfigError
from foresci.core.light_settings import load_light_settings, plain_environment
from foresci.core.settings import Settings, SettingsFields


def _clean(monkeypatch: pytest.MonkeyPatch, variables: dict[str, str]) -> None:
    for name in list(os.environ):
        if name.upper().startswith("FORESCI_"):
            monkeypatch.delenv(name)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)


def _values(settings: SettingsFields) -> dict[str, Any]:
    data = settings.model_dump(mode="json")
    data["llm"]["api_key"] = settings.llm.api_key.get_secret_value() if settings.llm.api_key else None
    return data


PLAIN = {
    "defaults": {},
    "cache dir": {"FORESCI_CACHE_DIR": "/tmp/elsewhere"},
    "sections": {"FORESCI_KB__RRF_K": "7", "FORESCI_RUNTIME__THREADS": "2",
                 "FORESCI_RUNTIME__DENSE_INDEX": "flat", "FORESCI_LLM__BASE_URL": "http://127.0.0.1:9/v1",
                 "FORESCI_LLM__API_KEY": "secret",
                 "FORESCI_KB__LLM_SCREEN": "true", "FORESCI_KB__BM25_B": "0.5", "FORESCI_WORKSPACE": "ws",
                 "FORESCI_RUNTIME__ONNX_DIR": "/tmp/onnx"},
    "lower-case name": {"foresci_kb__rrf_k": "9"},
    "not settings": {"FORESCI_EXTENSIONS": "", "FORESCI_CACHE_DIRR": "x", "FORESCI_CONFIG": ""},
}


@pytest.mark.parametrize("name", list(PLAIN))
def test_plain_variables_give_the_full_loaders_settings_without_it(name: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    _clean(monkeypatch, PLAIN[name])
    light = load_light_settings()
    assert type(light) is SettingsFields  # not the full Settings: no pydantic-settings involved
    assert _values(light) == _values(Settings())


def test_json_values_and_yaml_files_go_to_the_full_loader(monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: Path) -> None:
    _clean(monkeypatch, {"FORESCI_KB__DOMAINS": '["llm_agent"]'})
    assert plain_environment() is None
    light = load_light_settings()
    assert isinstance(light, Settings) and light.kb.domains == ["llm_agent"]
    config = tmp_path / "settings.yaml"
    config.write_text("kb:\n  rrf_k: 11\n", encoding="utf-8")
    _clean(monkeypatch, {"FORESCI_CONFIG": str(config), "FORESCI_KB__CANDIDATES_PER_RETRIEVER": "5"})
    light = load_light_settings()
    assert isinstance(light, Settings) and (light.kb.rrf_k, light.kb.candidates_per_retriever) == (11, 5)


@pytest.mark.parametrize("variables", [
    {"FORESCI_KB__RRF_K": "many"},
    {"FORESCI_NOPE__X": "1"},
    {"FORESCI_KB__RRF_KK": "3"},
    {"FORESCI_RUNTIME__DENSE_INDEX": "annoy"},
    {"FORESCI_KB__DOMAINS": "[x"},
], ids=["wrong type", "unknown section", "unknown key", "bad choice", "bad json"])
def test_bad_variables_fail_with_the_full_loaders_error(variables: dict[str, str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    _clean(monkeypatch, variables)
    with pytest.raises(ConfigError) as full:
        Settings()
    with pytest.raises(ConfigError) as light:
        load_light_settings()
    assert str(light.value) == str(full.value)
    assert next(iter(variables)) in str(light.value)
