"""The shared YAML loader: errors name the file, the line and the field."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict

from foresci.core.errors import UserError
from foresci.core.yamlio import load_yaml_model, read_yaml_mapping


class _Policy(BaseModel):
    model_config = ConfigDict(extra="forbid")

    months: int
    names: list[str] = []


def test_model_loads_and_section_is_optional(tmp_path: Path) -> None:
    plain = tmp_path / "plain.yaml"
    plain.write_text("months: 3\nnames: [a, b]\n", encoding="utf-8")
    nested = tmp_path / "nested.yaml"
    nested.write_text("rules:\n  months: 6\n", encoding="utf-8")
    assert load_yaml_model(plain, _Policy, "policy", section="rules").names == ["a", "b"]
    assert load_yaml_model(nested, _Policy, "policy", section="rules").months == 6


def test_invalid_yaml_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("months: 3\nnames: [a, b\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"broken\.yaml:\d+: invalid YAML"):
        read_yaml_mapping(path)


def test_wrong_field_is_named(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text("months: many\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"policy\.yaml: invalid policy: field 'months'"):
        load_yaml_model(path, _Policy, "policy")


def test_top_level_list_and_custom_error(tmp_path: Path) -> None:
    path = tmp_path / "list.yaml"
    path.write_text("- 1\n- 2\n", encoding="utf-8")

    class PromptError(Exception):
        pass

    with pytest.raises(PromptError, match="expected a mapping"):
        read_yaml_mapping(path, error=PromptError)
    empty = tmp_path / "empty.yaml"
    empty.write_text("", encoding="utf-8")
    assert read_yaml_mapping(empty) == {}


def test_a_file_is_parsed_once_per_content_and_callers_get_their_own_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rules files are read per node in a release build: the parse is remembered by content, an edit is
    seen at once, and changing a returned mapping never changes the next read."""
    import yaml

    parses: list[str] = []
    original = yaml.safe_load

    def counting(text: str) -> object:
        parses.append(text)
        return original(text)

    monkeypatch.setattr(yaml, "safe_load", counting)
    path = tmp_path / "rules.yaml"
    path.write_text(f"# {tmp_path}\nmonths: 3\nnames: [a]\n", encoding="utf-8")  # content never read before
    first = read_yaml_mapping(path)
    first["names"].append("changed by the caller")
    assert [read_yaml_mapping(path) for _ in range(50)][-1] == {"months": 3, "names": ["a"]}
    assert len(parses) == 1
    path.write_text(f"# {tmp_path}\nmonths: 4\nnames: [a]\n", encoding="utf-8")
    assert load_yaml_model(path, _Policy, "policy").months == 4
    assert len(parses) == 2
