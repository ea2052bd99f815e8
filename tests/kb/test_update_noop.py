"""`kb update` with nothing new: the live generation stays, nothing is written, no model loads."""

from __future__ import annotations

from pathlib import Path

import pytest

import foresci.embedders.embedder
from foresci.core.settings import Settings
from foresci.kb.build import build_kb, update_kb


def _snapshot(folder: Path) -> dict[str, int]:
    """Modification times of the KB files (the update lock owner file aside: taking the lock is allowed)."""
    return {
        str(path.relative_to(folder)): path.stat().st_mtime_ns
        for path in folder.rglob("*")
        if not path.name.startswith(".foresci.lock")
    }


def test_update_with_nothing_new_writes_nothing(
    tmp_path: Path, daily_corpus: tuple[Path, dict], kb_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    days = sorted(daily_corpus[0].glob("*.jsonl"))
    out = tmp_path / "kb"
    build_kb(days[:3], out, kb_settings)
    before = _snapshot(out)

    def no_model(*args: object, **kwargs: object) -> None:
        raise AssertionError("an update with nothing new must not load the embedding model")

    monkeypatch.setattr(foresci.embedders.embedder, "embedder_from_settings", no_model)
    summary = update_kb(out, [days[1], days[2]], kb_settings)
    assert summary.mode == "unchanged" and summary.added == 0 and summary.reused
    assert summary.papers == 36 and summary.rows_read > 0
    assert _snapshot(out) == before
