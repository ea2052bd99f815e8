"""Ingest: the three file formats, dedup, and quarantine of every kind of bad row."""

from __future__ import annotations

import gzip
import json
import random
from datetime import date
from pathlib import Path

from foresci.kb.ingest import discover_sources, ingest


def _good_row(number: int) -> dict[str, object]:
    return {
        "id": f"2504.{number:05d}",
        "title": f"Paper number {number}",
        "summary": f"Abstract {number}.",
        "authors": "['Ada Lovelace', 'Alan Turing']",
        "categories": ["cs.CL"],
        "comment": None,
    }


def test_daily_files_dedup_keeps_first_announcement(tmp_path: Path) -> None:
    first = tmp_path / "2025-04-02.jsonl"
    later = tmp_path / "2025-04-09.jsonl.gz"
    first.write_text(json.dumps(_good_row(1)) + "\n" + json.dumps(_good_row(2)) + "\n", encoding="utf-8")
    updated = dict(_good_row(1), id="2504.00001v3", title="Revised title")
    with gzip.open(later, "wt", encoding="utf-8") as handle:
        handle.write(json.dumps(updated) + "\n" + json.dumps(_good_row(3)) + "\n")
    result = ingest([later, first], max_row_bytes=10_000)  # argument order must not matter
    by_id = {paper.paper_id: paper for paper in result.papers}
    assert set(by_id) == {"2504.00001", "2504.00002", "2504.00003"}
    assert by_id["2504.00001"].announced == date(2025, 4, 2)
    assert by_id["2504.00001"].title == "Paper number 1"
    assert by_id["2504.00003"].announced == date(2025, 4, 9)
    assert by_id["2504.00002"].authors == ["Ada Lovelace", "Alan Turing"]
    assert result.duplicates == 1
    assert [paper.announced for paper in result.papers] == sorted(paper.announced for paper in result.papers)


def test_snapshot_format_uses_first_version_date(tmp_path: Path) -> None:
    row = {
        "id": "0704.0001",
        "title": "Calculation of  prompt diphoton\n production",
        "abstract": " A study. ",
        "authors": "C. Balázs, E. L. Berger and P. M. Nadolsky",
        "categories": "hep-ph cs.LG",
        "comments": "Accepted to NeurIPS 2007",
        "versions": [
            {"version": "v1", "created": "Mon, 2 Apr 2007 19:18:42 GMT"},
            {"version": "v2", "created": "Tue, 24 Jul 2007 20:10:27 GMT"},
        ],
        "authors_parsed": [["Balázs", "C.", ""], ["Berger", "E. L.", ""]],
    }
    path = tmp_path / "arxiv-metadata-oai-snapshot.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    (paper,) = ingest([path], max_row_bytes=10_000).papers
    assert paper.announced == date(2007, 4, 2)
    assert paper.title == "Calculation of prompt diphoton production"
    assert paper.categories == ["hep-ph", "cs.LG"]
    assert paper.authors == ["C. Balázs", "E. L. Berger"]
    assert (paper.venue_family, paper.venue_year) == ("ICLR/ICML/NeurIPS", 2007)
    assert paper.source == "arxiv-snapshot"


def test_kb_layer_merges_structures(tmp_path: Path) -> None:
    layer = tmp_path / "layer" / "domains" / "llm_agent"
    layer.mkdir(parents=True)
    content = {
        "paper_id": "2308.10144",
        "source_paper_id": "2308.10144v3",
        "title": "ExpeL",
        "abstract": "Agents learn from experience.",
        "published_date": "2023-08-20",
    }
    structure = {
        "paper_id": "2308.10144",
        "explicit_limitations": [{"name": "Cost", "description": "Slow."}],
        "future_work": [{"direction": "Transfer to new tasks"}],
    }
    (layer / "content.jsonl").write_text(json.dumps(content) + "\n", encoding="utf-8")
    (layer / "structures.jsonl").write_text(json.dumps(structure) + "\n", encoding="utf-8")
    (layer / "sections.jsonl").write_text(json.dumps({"paper_id": "x"}) + "\n", encoding="utf-8")
    assert [source.format for source in discover_sources([tmp_path / "layer"])] == ["kb-layer"]
    result = ingest([tmp_path / "layer"], max_row_bytes=10_000)
    assert not result.quarantined
    (paper,) = result.papers
    assert paper.limitations == ["Cost: Slow."]
    assert paper.future_work == ["Transfer to new tasks"]
    assert paper.announced == date(2023, 8, 20)


BAD_KINDS = (
    "json",
    "not_object",
    "no_id",
    "bad_id",
    "no_title",
    "title_type",
    "utf8",
    "huge",
    "id_after_date",
    "authors_type",
)


def _bad_line(kind: str, number: int, rng: random.Random) -> bytes:
    row = _good_row(number)
    if kind == "json":
        return b'{"id": "2504.' + str(number).encode() + b'", "title": '
    if kind == "not_object":
        return b"[1, 2, 3]"
    if kind == "no_id":
        row.pop("id")
    elif kind == "bad_id":
        row["id"] = "not-an-id-" + "x" * rng.randint(0, 5)
    elif kind == "no_title":
        row["title"] = rng.choice([None, "", "   "])
    elif kind == "title_type":
        row["title"] = {"text": "nested"}
    elif kind == "utf8":
        return json.dumps(row).encode()[:-2] + b"\xff\xfe" + b'"}'
    elif kind == "huge":
        row["summary"] = "word " * 5_000
    elif kind == "id_after_date":
        row["id"] = f"2612.{number:05d}"  # a December-2026 id cannot be announced in April 2025
    elif kind == "authors_type":
        row["authors"] = 42
    return json.dumps(row).encode()


def test_fuzzed_ingest_loses_no_good_row_and_quarantines_every_bad_one(tmp_path: Path) -> None:
    rng = random.Random(11)
    folder = tmp_path / "fuzz"
    folder.mkdir()
    good_ids: set[str] = set()
    bad_lines: set[tuple[str, int]] = set()
    number = 0
    for day in range(1, 11):
        path = folder / f"2025-04-{day:02d}.jsonl"
        lines: list[bytes] = []
        for _ in range(1_000):
            number += 1
            if rng.random() < 0.5:
                lines.append(json.dumps(_good_row(number)).encode())
                good_ids.add(f"2504.{number:05d}")
            else:
                lines.append(_bad_line(rng.choice(BAD_KINDS), number, rng))
                bad_lines.add((str(path), len(lines)))
            if rng.random() < 0.02:
                lines.append(b"   ")  # blank lines are neither papers nor errors
        path.write_bytes(b"\n".join(lines) + b"\n")
    (folder / "2025-02-30.jsonl").write_bytes(json.dumps(_good_row(99_999)).encode() + b"\n")
    bad_lines.add((str(folder / "2025-02-30.jsonl"), 1))
    result = ingest([folder], max_row_bytes=20_000)
    assert {paper.paper_id for paper in result.papers} == good_ids
    assert {(row.file, row.line) for row in result.quarantined} == bad_lines
    assert all(row.reason for row in result.quarantined)
    assert result.rows == len(good_ids) + len(bad_lines)
    reasons = " ".join(row.reason for row in result.quarantined)
    for expected in (
        "bad JSON",
        "id:",
        "title:",
        "not UTF-8",
        "absurd size",
        "before the month",
        "authors",
        "impossible date",
    ):
        assert expected in reasons


def test_submission_date_before_the_id_month_is_clamped_not_dropped(tmp_path: Path) -> None:
    row = {
        "id": "2310.00166",
        "title": "Month-end submission",
        "abstract": "x",
        "versions": [{"version": "v1", "created": "Fri, 29 Sep 2023 17:00:00 GMT"}],
    }
    path = tmp_path / "snapshot.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    (paper,) = ingest([path], max_row_bytes=10_000).papers
    assert paper.announced == date(2023, 10, 1)  # never earlier than arXiv could have shown it
