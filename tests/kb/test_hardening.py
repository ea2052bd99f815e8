"""KB hardening (issue #11): later-known facts, future dates, quarantine idempotence, broken inputs,
reuse decided by the live generation's own manifest."""

from __future__ import annotations

import gzip
import json
import shutil
from datetime import date
from pathlib import Path

import pytest

from foresci.core.errors import UserError
from foresci.core.io import iter_jsonl
from foresci.core.settings import Settings
from foresci.kb.build import build_kb, update_kb
from foresci.kb.ingest import ingest
from foresci.kb.online import parse_arxiv_feed
from foresci.kb.retrieve import KBView
from foresci.kb.store import KnowledgeBase


def _daily_row(paper_id: str, title: str, **extra: object) -> dict[str, object]:
    row: dict[str, object] = {
        "id": paper_id,
        "title": title,
        "summary": f"{title}. We study retrieval augmented generation for language models.",
        "authors": ["Ada Lovelace"],
        "categories": ["cs.CL"],
        "comment": None,
    }
    row.update(extra)
    return row


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _snapshot_row(paper_id: str, versions: list[str], comments: str) -> dict[str, object]:
    return {
        "id": paper_id,
        "title": f"Snapshot paper {paper_id} on retrieval",
        "abstract": "Retrieval augmented generation with a graph index.",
        "authors": "Ada Lovelace and Alan Turing",
        "categories": "cs.CL cs.IR",
        "comments": comments,
        "versions": [{"version": f"v{i + 1}", "created": created} for i, created in enumerate(versions)],
    }


# ---- item 1: facts known later are invisible at an earlier cutoff ----------------------------------


def test_snapshot_comment_written_with_a_later_version_is_invisible_before_that_version(
    tmp_path: Path, kb_settings: Settings
) -> None:
    snapshot = _write(
        tmp_path / "src" / "snapshot.jsonl",
        [
            _snapshot_row(
                "2405.00001",
                [
                    "Wed, 1 May 2024 10:00:00 GMT",
                    "Mon, 3 Jun 2024 10:00:00 GMT",
                    "Wed, 10 Sep 2025 10:00:00 GMT",
                ],
                "Accepted at NeurIPS 2025",
            ),
            _snapshot_row("2405.00002", ["Thu, 2 May 2024 10:00:00 GMT"], "Accepted to CVPR 2024"),
        ],
    )
    build_kb([snapshot.parent], tmp_path / "kb", kb_settings)
    kb = KnowledgeBase.open(tmp_path / "kb", kb_settings)
    before = KBView(kb, date(2024, 12, 31))
    later = before.get("2405.00001")
    assert later is not None and later.comment is None and later.venue_family is None
    hits = {hit.paper.paper_id: hit.paper for hit in before.search("retrieval graph index", k=5)}
    assert hits["2405.00001"].venue_family is None and hits["2405.00001"].comment is None
    assert {p.paper_id: p.venue_family for p in before.papers()}["2405.00001"] is None
    assert {p.paper_id: p.venue_family for p in kb.papers(until=date(2024, 12, 31))}["2405.00001"] is None
    # a single-version comment was written with v1: known at the announcement
    assert hits["2405.00002"].venue_family == "CVPR/ICCV/ECCV"
    after = KBView(kb, date(2025, 9, 30)).get("2405.00001")
    assert after is not None and after.venue_family == "ICLR/ICML/NeurIPS" and after.comment
    kb.close()


def test_arxiv_feed_comment_is_dated_by_the_latest_version() -> None:
    feed = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">
  <entry>
    <id>http://arxiv.org/abs/2405.00001v3</id>
    <published>2024-05-01T10:00:00Z</published>
    <updated>2025-09-10T10:00:00Z</updated>
    <title>A paper</title><summary>Abstract.</summary>
    <author><name>Ada Lovelace</name></author>
    <arxiv:comment>Accepted at NeurIPS 2025</arxiv:comment>
    <category term="cs.CL"/>
  </entry>
</feed>"""
    (paper,) = parse_arxiv_feed(feed)
    assert paper.announced == date(2024, 5, 1) and paper.comment_date == date(2025, 9, 10)
    assert paper.as_of(date(2024, 12, 31)).venue_family is None
    assert paper.as_of(date(2025, 9, 10)).venue_family == "ICLR/ICML/NeurIPS"


# ---- item 5: future-dated files and ids after the file date are quarantined ------------------------


def test_future_dated_daily_file_is_quarantined_and_windows_use_the_last_real_day(
    tmp_path: Path, kb_settings: Settings
) -> None:
    src = tmp_path / "src"
    _write(src / "2025-04-02.jsonl", [_daily_row("2504.00001", "Real paper"),
                                      _daily_row("2505.00009", "Id month after the file date")])
    _write(src / "2099-06-01.jsonl", [_daily_row("2504.00002", "From the future")])
    summary = build_kb([src], tmp_path / "kb", kb_settings)
    assert summary.papers == 1 and summary.max_date == date(2025, 4, 2)
    kb = KnowledgeBase.open(tmp_path / "kb", kb_settings)
    assert kb.max_date == kb.last_announcement == date(2025, 4, 2)
    rows = iter_jsonl(kb.quarantine_path())
    reasons = {(Path(row["file"]).name, row["reason"].split(":")[0]) for row in rows}
    assert ("2099-06-01.jsonl", "file name date") in reasons
    assert ("2025-04-02.jsonl", "file name date") in reasons  # 2505.* cannot be announced in April
    from foresci.tasks.build import build_release

    with pytest.raises(UserError, match="has not closed"):
        build_release(kb, tmp_path / "release", date(2025, 3, 31), windows=("3m",))
    kb.close()


# ---- item 10: quarantine is keyed by (file, line, reason) -----------------------------------------


def test_repeated_update_with_the_same_bad_file_does_not_grow_the_quarantine(
    tmp_path: Path, kb_settings: Settings
) -> None:
    src = tmp_path / "src"
    _write(src / "2025-04-02.jsonl", [_daily_row("2504.00001", "Good paper")])
    build_kb([src], tmp_path / "kb", kb_settings)
    bad = tmp_path / "new" / "2025-04-03.jsonl"
    bad.parent.mkdir()
    bad.write_text(json.dumps(_daily_row("2504.00003", "Another good one")) + "\n{broken\n", encoding="utf-8")
    update_kb(tmp_path / "kb", [bad], kb_settings)
    first = list(iter_jsonl(KnowledgeBase.open(tmp_path / "kb").quarantine_path()))
    update_kb(tmp_path / "kb", [bad], kb_settings)
    update_kb(tmp_path / "kb", [tmp_path / "new"], kb_settings)
    again = list(iter_jsonl(KnowledgeBase.open(tmp_path / "kb").quarantine_path()))
    assert len(first) == 1 and again == first


# ---- item 11: broken lists, truncated gzip, empty sources -----------------------------------------


def test_broken_stringified_list_is_quarantined(tmp_path: Path) -> None:
    path = _write(tmp_path / "2025-04-02.jsonl", [_daily_row("2504.00001", "A", categories="['cs.XA', "),
                                                  _daily_row("2504.00002", "B", categories="['cs.CL']")])
    result = ingest([path], max_row_bytes=100_000)
    assert [paper.paper_id for paper in result.papers] == ["2504.00002"]
    (row,) = result.quarantined
    assert row.line == 1 and row.reason.startswith("categories: broken stringified list")


def test_truncated_gzip_names_the_line_after_the_last_good_one(tmp_path: Path) -> None:
    path = tmp_path / "2025-04-02.jsonl.gz"
    rows = [_daily_row(f"2504.{number:05d}", f"Paper {number} " + "x" * 3000) for number in range(1, 41)]
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("".join(json.dumps(row) + "\n" for row in rows))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) * 2 // 3])
    result = ingest([path], max_row_bytes=100_000)
    good = len(result.papers)
    assert 0 < good < 40
    (row,) = result.quarantined
    assert row.line == good + 1 and f"last good line {good}" in row.reason


def test_empty_source_folder_is_an_error_unless_allowed(tmp_path: Path, kb_settings: Settings) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match="allow-empty") as caught:
        build_kb([tmp_path / "empty"], tmp_path / "kb", kb_settings)
    assert str(tmp_path / "empty") in str(caught.value)
    assert not (tmp_path / "kb" / "CURRENT").exists()
    summary = build_kb([tmp_path / "empty"], tmp_path / "kb", kb_settings, allow_empty=True)
    assert summary.papers == 0


# ---- item 9: reuse is decided by the live generation's own manifest --------------------------------


def test_stale_top_level_manifest_never_makes_a_different_build_look_reused(
    tmp_path: Path, kb_settings: Settings
) -> None:
    first = _write(tmp_path / "a" / "2025-04-02.jsonl", [_daily_row("2504.00001", "Input A")])
    second = _write(tmp_path / "b" / "2025-04-02.jsonl", [_daily_row("2504.00002", "Input B")])
    out = tmp_path / "kb"
    build_kb([first], out, kb_settings)
    stale = (out / "manifest.json").read_bytes()
    build_kb([second], out, kb_settings)
    # the state a kill between the CURRENT swap and the top-level manifest copy leaves behind
    (out / "manifest.json").write_bytes(stale)
    summary = build_kb([first], out, kb_settings)
    assert not summary.reused
    kb = KnowledgeBase.open(out, kb_settings)
    assert [paper.paper_id for paper in kb.all_papers()] == ["2504.00001"]
    assert json.loads((out / "manifest.json").read_text())["fingerprint"] == kb.fingerprint
    kb.close()
    shutil.rmtree(out)
