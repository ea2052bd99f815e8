"""JSONL helpers, atomic writes and manifests."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from foresci.core.artifacts import is_reusable, read_manifest, write_manifest
from foresci.core.io import JsonlError, append_jsonl, atomic_path, iter_jsonl, write_jsonl


def test_jsonl_round_trip_plain_and_gzip(tmp_path: Path) -> None:
    rows = [{"b": 2, "a": "é"}, {"a": 1}]
    assert write_jsonl(tmp_path / "x.jsonl", rows) == 2
    assert list(iter_jsonl(tmp_path / "x.jsonl")) == rows
    with gzip.open(tmp_path / "y.jsonl.gz", "wt", encoding="utf-8") as handle:
        handle.write("\n".join(json.dumps(row) for row in rows) + "\n\n")
    assert list(iter_jsonl(tmp_path / "y.jsonl.gz")) == rows


def test_bad_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"a": 1}\n{oops\n', encoding="utf-8")
    with pytest.raises(JsonlError) as caught:
        list(iter_jsonl(path))
    assert caught.value.line_number == 2
    assert "bad.jsonl:2" in str(caught.value)


def test_atomic_write_keeps_old_file_on_failure(tmp_path: Path) -> None:
    target = tmp_path / "data.txt"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(RuntimeError), atomic_path(target) as temporary:
        temporary.write_text("half-written", encoding="utf-8")
        raise RuntimeError("killed")
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["data.txt"]


def test_append_jsonl_appends(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    append_jsonl(path, {"i": 1})
    append_jsonl(path, {"i": 2})
    assert [row["i"] for row in iter_jsonl(path)] == [1, 2]


def test_manifest_fingerprint_decides_reuse(tmp_path: Path) -> None:
    (tmp_path / "out.jsonl").write_text("{}\n", encoding="utf-8")
    manifest = write_manifest(
        tmp_path,
        "release",
        inputs={"kb": "abc"},
        config={"seed": 1},
        files=["out.jsonl"],
        counts={"tasks": 1},
    )
    assert read_manifest(tmp_path).fingerprint == manifest.fingerprint
    assert len(manifest.hashes["out.jsonl"]) == 64
    assert is_reusable(tmp_path, "release", {"kb": "abc"}, {"seed": 1})
    assert not is_reusable(tmp_path, "release", {"kb": "abc"}, {"seed": 2})
    assert not is_reusable(tmp_path / "nowhere", "release", {}, {})


def test_read_models_names_file_line_and_field(tmp_path: Path) -> None:
    from pydantic import BaseModel

    from foresci.core.io import read_models

    class Row(BaseModel):
        name: str
        count: int

    path = tmp_path / "rows.jsonl"
    path.write_text('{"name": "a", "count": 1}\n\n{"name": "b", "count": "many"}\n', encoding="utf-8")
    with pytest.raises(JsonlError) as caught:
        read_models(path, Row)
    assert caught.value.line_number == 3
    assert "rows.jsonl:3: count: invalid Row" in str(caught.value)
    path.write_text('{"name": "a", "count": 1}\n\n{"name": "b", "count": 2}\n', encoding="utf-8")
    assert [row.count for row in read_models(path, Row)] == [1, 2]
