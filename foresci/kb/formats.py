"""Row converters: one raw JSON object of a known format -> one :class:`Paper`.

Each converter raises :class:`FieldError` naming the field at fault; the caller quarantines the row.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from foresci.kb.models import Paper
from foresci.kb.normalize import (
    FieldError,
    clean_text,
    id_month,
    normalize_arxiv_id,
    parse_list_field,
    venue_from_comment,
)

EARLIEST_DATE = date(1991, 8, 1)  # arXiv opened in August 1991
LATEST_DATE = date(2100, 1, 1)


def check_date(announced: date, paper_id: str, field: str, clamp_to_id_month: bool = False) -> date:
    """Reject dates before arXiv existed or absurdly late; handle dates before the id's month.

    An announcement cannot precede the month its arXiv id encodes. For an announcement date (daily
    files) that is an impossible row. For a submission or publication date (snapshot ``versions``,
    KB-layer ``published_date``), which may fall a few days earlier at month ends or come from a
    venue, ``clamp_to_id_month`` moves the date to the first day of the id's month: never earlier
    than the paper could have been seen on arXiv, so no cutoff leaks.
    """
    if not EARLIEST_DATE <= announced < LATEST_DATE:
        raise FieldError(field, f"impossible date {announced.isoformat()}")
    first_possible = id_month(paper_id)
    if announced < first_possible:
        if clamp_to_id_month:
            return first_possible
        raise FieldError(field, f"date {announced.isoformat()} is before the month of id {paper_id}")
    return announced


def parse_iso_date(value: object, field: str) -> date:
    """Parse 'YYYY-MM-DD' (optionally followed by a time) into a date."""
    if not isinstance(value, str):
        raise FieldError(field, f"expected a date string, got {type(value).__name__}")
    try:
        return date.fromisoformat(value.strip()[:10])
    except ValueError as error:
        raise FieldError(field, f"impossible date {value[:40]!r}") from error


def _comment(value: object) -> str | None:
    text = clean_text(value, "comment", required=False)
    return text or None


def later_known(announced: date, known: date | None) -> date | None:
    """The ``comment_date`` of a fact known on ``known``: None when that is the announcement itself."""
    return known if known is not None and known > announced else None


def _paper(
    paper_id: str,
    row: dict[str, Any],
    abstract_field: str,
    announced: date,
    source: str,
    authors: list[str],
    categories: list[str],
    comment_field: str,
    comment_date: date | None = None,
) -> Paper:
    comment = _comment(row.get(comment_field))
    family, year = venue_from_comment(comment)
    return Paper(
        paper_id=paper_id,
        title=clean_text(row.get("title"), "title"),
        abstract=clean_text(row.get(abstract_field), abstract_field, required=False),
        authors=authors,
        categories=categories,
        comment=comment,
        announced=announced,
        venue_family=family,
        venue_year=year,
        comment_date=later_known(announced, comment_date) if comment else None,
        source=source,
    )


def paper_from_daily(row: dict[str, Any], announced: date) -> Paper:
    """A row of the daily-arXiv JSONL format; the announcement date comes from the file name."""
    paper_id = normalize_arxiv_id(row.get("id"))
    check_date(announced, paper_id, "file name date")
    return _paper(
        paper_id,
        row,
        "summary",
        announced,
        "arxiv-daily",
        parse_list_field(row.get("authors"), "authors", separator=r",\s*|\s+and\s+"),
        parse_list_field(row.get("categories"), "categories"),
        "comment",
    )


def _snapshot_authors(row: dict[str, Any]) -> list[str]:
    parsed = row.get("authors_parsed")
    if isinstance(parsed, list) and all(isinstance(item, list) for item in parsed):
        names = []
        for item in parsed:
            parts = [str(part).strip() for part in item if isinstance(part, str) and part.strip()]
            if parts:
                names.append(" ".join(parts[1:2] + parts[:1] + parts[2:]))
        return names
    return parse_list_field(row.get("authors"), "authors", separator=r",\s*|\s+and\s+")


def _version_date(version: object, field: str) -> date:
    created = version.get("created") if isinstance(version, dict) else None
    if not isinstance(created, str):
        raise FieldError(field, "missing")
    try:
        return parsedate_to_datetime(created).date()
    except (TypeError, ValueError, IndexError):
        pass
    try:
        return datetime.fromisoformat(created.strip()).date()
    except ValueError as error:
        raise FieldError(field, f"impossible date {created[:40]!r}") from error


def _snapshot_dates(row: dict[str, Any]) -> tuple[date, date]:
    """(first version's date, latest version's date) of a snapshot row.

    The snapshot's ``comments`` belong to the latest version, so they are known from its date only.
    """
    versions = row.get("versions")
    if not isinstance(versions, list) or not versions:
        raise FieldError("versions", "missing; the first version's date is the announcement date")
    first = _version_date(versions[0], "versions[0].created")
    if len(versions) == 1:
        return first, first
    last = _version_date(versions[-1], f"versions[{len(versions) - 1}].created")
    return first, max(first, last)


def paper_from_snapshot(row: dict[str, Any]) -> Paper:
    """A row of the arXiv metadata snapshot (Kaggle/OAI): the date is ``versions[0].created``.

    ``comments`` (and the venue parsed from them) are dated by the latest version: a cutoff before it
    does not see them (:meth:`Paper.as_of`).
    """
    paper_id = normalize_arxiv_id(row.get("id"))
    first, latest = _snapshot_dates(row)
    announced = check_date(first, paper_id, "versions[0].created", clamp_to_id_month=True)
    return _paper(
        paper_id,
        row,
        "abstract",
        announced,
        "arxiv-snapshot",
        _snapshot_authors(row),
        parse_list_field(row.get("categories"), "categories"),
        "comments",
        comment_date=latest,
    )


def _texts(items: object, keys: tuple[str, ...]) -> list[str]:
    """Flatten a list of strings or of dicts (joining the named keys) into clean sentences."""
    if not isinstance(items, list):
        return []
    result = []
    for item in items:
        if isinstance(item, str):
            text = " ".join(item.split())
        elif isinstance(item, dict):
            parts = [" ".join(str(item[key]).split()) for key in keys if isinstance(item.get(key), str)]
            text = ": ".join(part for part in parts if part)
        else:
            continue
        if text:
            result.append(text)
    return result


def paper_from_kb_layer(content: dict[str, Any], structure: dict[str, Any] | None) -> Paper:
    """A ResearchForesight KB-layer paper: ``content`` row plus its ``structures`` row, if any."""
    paper_id = normalize_arxiv_id(content.get("paper_id") or content.get("source_paper_id"))
    announced = check_date(
        parse_iso_date(content.get("published_date"), "published_date"),
        paper_id,
        "published_date",
        clamp_to_id_month=True,
    )
    limitations = _texts((structure or {}).get("explicit_limitations"), ("name", "description"))
    future_work = _texts((structure or {}).get("future_work"), ("direction",))
    return Paper(
        paper_id=paper_id,
        title=clean_text(content.get("title"), "title"),
        abstract=clean_text(content.get("abstract"), "abstract", required=False),
        announced=announced,
        source="researchforesight-kb-layer",
        limitations=limitations,
        future_work=future_work,
    )


def paper_from_foresci(row: dict[str, Any]) -> Paper:
    """A row already in foresci's Paper schema (e.g. written by ``kb harvest``)."""
    paper_id = normalize_arxiv_id(row.get("paper_id"))
    announced = check_date(parse_iso_date(row.get("announced"), "announced"), paper_id, "announced")
    return Paper.model_validate({**row, "paper_id": paper_id, "announced": announced})


def paper_from_row(row: dict[str, Any]) -> Paper:
    """A row of a non-daily JSONL file: foresci Paper rows or arXiv snapshot rows."""
    if "paper_id" in row and "announced" in row:
        return paper_from_foresci(row)
    return paper_from_snapshot(row)


DAILY_FILE_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})\.jsonl(?:\.gz)?$")
