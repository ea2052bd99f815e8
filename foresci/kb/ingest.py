"""Ingest: find source files, read them line by line, convert rows to Papers, quarantine bad rows.

Supported sources (a file or a folder searched recursively):
  * daily-arXiv JSONL (``YYYY-MM-DD.jsonl[.gz]``; the file name is the announcement date);
  * arXiv metadata snapshot JSONL (Kaggle/OAI; any other ``*.jsonl[.gz]`` whose rows carry ``versions``);
  * foresci paper JSONL (rows in the ``Paper`` schema, as ``kb harvest`` writes them);
  * a ResearchForesight KB layer (a folder holding ``content.jsonl``, optionally ``structures.jsonl``).
A bad row never stops ingest: it becomes a :class:`QuarantinedRow` with file, line and reason.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import IO, Any, Literal, cast

from pydantic import BaseModel, ConfigDict, ValidationError

from foresci.core.errors import UserError
from foresci.kb.formats import (
    DAILY_FILE_NAME,
    paper_from_daily,
    paper_from_kb_layer,
    paper_from_row,
    parse_iso_date,
)
from foresci.kb.models import Paper
from foresci.kb.normalize import FieldError

SourceFormat = Literal["arxiv-daily", "arxiv-snapshot", "kb-layer"]


class QuarantinedRow(BaseModel):
    """A row that could not become a Paper, and why."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    file: str
    line: int
    reason: str
    excerpt: str = ""


@dataclass(frozen=True)
class SourceFile:
    """One file to ingest and its format (for a KB layer: the folder's content.jsonl)."""

    path: Path
    format: SourceFormat


def _is_jsonl(path: Path) -> bool:
    return path.name.endswith(".jsonl") or path.name.endswith(".jsonl.gz")


def _sniff_format(path: Path) -> SourceFormat:
    if DAILY_FILE_NAME.match(path.name):
        return "arxiv-daily"
    if path.name == "content.jsonl":
        return "kb-layer"
    return "arxiv-snapshot"


def discover_sources(sources: list[Path]) -> list[SourceFile]:
    """Expand files and folders into the ordered list of source files (daily files in date order)."""
    found: list[SourceFile] = []
    for source in sources:
        source = Path(source)
        if source.is_file():
            found.append(SourceFile(source, _sniff_format(source)))
        elif source.is_dir():
            files = sorted(path for path in source.rglob("*") if path.is_file() and _is_jsonl(path))
            skipped = {"structures.jsonl", "pageindex.jsonl", "sections.jsonl", "papers.jsonl"}
            layer_dirs = {path.parent for path in files if path.name == "content.jsonl"}
            for path in files:
                if path.parent in layer_dirs and path.name in skipped:
                    continue
                found.append(SourceFile(path, _sniff_format(path)))
        else:
            raise UserError("source not found", path=source)
    daily = sorted((item for item in found if item.format == "arxiv-daily"), key=lambda item: item.path.name)
    return daily + [item for item in found if item.format != "arxiv-daily"]


def _open_binary(path: Path) -> IO[bytes]:
    return cast(IO[bytes], gzip.open(path, "rb") if path.suffix == ".gz" else path.open("rb"))


def iter_raw_rows(path: Path, max_row_bytes: int) -> Iterator[tuple[int, dict[str, Any] | QuarantinedRow]]:
    """Yield (line number, JSON object or QuarantinedRow) for each non-blank line of a JSONL file."""
    name = str(path)
    line_number = 0
    try:
        with _open_binary(path) as handle:
            for line_number, raw in enumerate(handle, start=1):
                if len(raw) > max_row_bytes:
                    yield (
                        line_number,
                        QuarantinedRow(
                            file=name,
                            line=line_number,
                            reason=f"absurd size: {len(raw)} bytes > {max_row_bytes}",
                        ),
                    )
                    continue
                if not raw.strip():
                    continue
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as error:
                    yield (
                        line_number,
                        QuarantinedRow(
                            file=name,
                            line=line_number,
                            reason=f"not UTF-8: byte {error.start}",
                            excerpt=raw[:120].decode("utf-8", "replace"),
                        ),
                    )
                    continue
                try:
                    value = json.loads(text)
                except (json.JSONDecodeError, RecursionError) as error:
                    reason = (
                        f"bad JSON: {error.msg}" if isinstance(error, json.JSONDecodeError) else "bad JSON"
                    )
                    yield (
                        line_number,
                        QuarantinedRow(file=name, line=line_number, reason=reason, excerpt=text[:120]),
                    )
                    continue
                if not isinstance(value, dict):
                    yield (
                        line_number,
                        QuarantinedRow(
                            file=name, line=line_number, reason="bad JSON: not an object", excerpt=text[:120]
                        ),
                    )
                    continue
                yield line_number, value
    except (OSError, EOFError, gzip.BadGzipFile, zlib.error) as error:
        # every line up to ``line_number`` was read whole; the line being read when the file broke is lost
        last_good = line_number
        yield (
            last_good + 1,
            QuarantinedRow(
                file=name,
                line=last_good + 1,
                reason=f"unreadable file: {error} (last good line {last_good}; the rest of the file is lost)",
            ),
        )


def _convert(path: Path, line_number: int, row: dict[str, Any], make: Any) -> Paper | QuarantinedRow:
    try:
        return make(row)
    except FieldError as error:
        return QuarantinedRow(
            file=str(path),
            line=line_number,
            reason=f"{error.field}: {error.reason}",
            excerpt=json.dumps(row, ensure_ascii=False)[:120],
        )
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"])
        return QuarantinedRow(
            file=str(path),
            line=line_number,
            reason=f"{field}: {first['msg']}",
            excerpt=json.dumps(row, ensure_ascii=False)[:120],
        )


def _daily_rows(
    source: SourceFile, max_row_bytes: int, today: date | None = None
) -> Iterator[Paper | QuarantinedRow]:
    match = DAILY_FILE_NAME.match(source.path.name)
    announced: date | None = None
    date_error = ""
    today = today or date.today()
    try:
        announced = parse_iso_date(match.group(1) if match else "", "file name date")
    except FieldError as error:
        date_error = f"file name date: {error.reason}"
    if announced is not None and announced > today:
        date_error = f"file name date: {announced.isoformat()} is after the build day {today.isoformat()}"
        announced = None
    for line_number, row in iter_raw_rows(source.path, max_row_bytes):
        if isinstance(row, QuarantinedRow):
            yield row
        elif announced is None:
            yield QuarantinedRow(file=str(source.path), line=line_number, reason=date_error)
        else:
            day = announced
            yield _convert(source.path, line_number, row, lambda value, day=day: paper_from_daily(value, day))


def _kb_layer_rows(source: SourceFile, max_row_bytes: int) -> Iterator[Paper | QuarantinedRow]:
    structures: dict[str, dict[str, Any]] = {}
    structures_path = source.path.parent / "structures.jsonl"
    if structures_path.is_file():
        for _, row in iter_raw_rows(structures_path, max_row_bytes):
            if isinstance(row, QuarantinedRow):
                yield row
            elif isinstance(row.get("paper_id"), str):
                structures[row["paper_id"]] = row
    for line_number, row in iter_raw_rows(source.path, max_row_bytes):
        if isinstance(row, QuarantinedRow):
            yield row
            continue
        structure = structures.get(str(row.get("paper_id")))
        yield _convert(
            source.path,
            line_number,
            row,
            lambda value, structure=structure: paper_from_kb_layer(value, structure),
        )


def iter_source(source: SourceFile, max_row_bytes: int) -> Iterator[Paper | QuarantinedRow]:
    """Yield a Paper or a QuarantinedRow for every non-blank row of one source file."""
    if source.format == "arxiv-daily":
        yield from _daily_rows(source, max_row_bytes)
    elif source.format == "kb-layer":
        yield from _kb_layer_rows(source, max_row_bytes)
    else:
        for line_number, row in iter_raw_rows(source.path, max_row_bytes):
            yield (
                row
                if isinstance(row, QuarantinedRow)
                else _convert(source.path, line_number, row, paper_from_row)
            )


@dataclass
class IngestResult:
    """Unique papers (first announcement kept, announcement order) and everything quarantined."""

    papers: list[Paper]
    quarantined: list[QuarantinedRow]
    rows: int
    duplicates: int


def dedup_papers(papers: list[Paper]) -> tuple[list[Paper], int]:
    """Keep one Paper per id: the earliest announcement (ties: first seen); return (papers, duplicates)."""
    first: dict[str, Paper] = {}
    for paper in papers:
        kept = first.get(paper.paper_id)
        if kept is None or paper.announced < kept.announced:
            first[paper.paper_id] = paper
    unique = sorted(first.values(), key=lambda paper: (paper.announced, paper.paper_id))
    return unique, len(papers) - len(unique)


def ingest(sources: list[Path], max_row_bytes: int, on_file: Any = None) -> IngestResult:
    """Read every source; return unique papers in announcement order and the quarantined rows."""
    papers: list[Paper] = []
    quarantined: list[QuarantinedRow] = []
    files = discover_sources(sources)
    for source in files:
        for item in iter_source(source, max_row_bytes):
            if isinstance(item, QuarantinedRow):
                quarantined.append(item)
            else:
                papers.append(item)
        if on_file is not None:
            on_file(source, len(files))
    unique, duplicates = dedup_papers(papers)
    return IngestResult(unique, quarantined, len(papers) + len(quarantined), duplicates)
