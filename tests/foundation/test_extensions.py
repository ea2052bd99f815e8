"""Extension modules named in FORESCI_EXTENSIONS are imported once; a bad one is a one-line error."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from foresci.core import extensions
from foresci.core.extensions import ExtensionError, load_extensions


def _write_module(folder: Path, name: str, body: str) -> None:
    (folder / f"{name}.py").write_text(body)


def test_named_modules_are_imported_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write_module(tmp_path, "fx_counting_ext", "import builtins\n"
                  "builtins.fx_imports = getattr(builtins, 'fx_imports', 0) + 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("FORESCI_EXTENSIONS", " fx_counting_ext , ")
    monkeypatch.setattr(extensions, "_loaded", set())
    import builtins

    assert load_extensions() == ["fx_counting_ext"]
    assert load_extensions() == []
    assert builtins.fx_imports == 1  # type: ignore[attr-defined]
    sys.modules.pop("fx_counting_ext", None)


def test_a_failing_extension_names_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write_module(tmp_path, "fx_broken_ext", "raise RuntimeError('boom')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("FORESCI_EXTENSIONS", "fx_broken_ext")
    monkeypatch.setattr(extensions, "_loaded", set())
    with pytest.raises(ExtensionError) as caught:
        load_extensions()
    message = str(caught.value)
    assert "fx_broken_ext" in message and "FORESCI_EXTENSIONS" in message and "boom" in message
    assert "\n" not in message
