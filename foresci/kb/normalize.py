"""Normalisation of raw metadata fields: arXiv ids, whitespace, list fields, venue families."""

from __future__ import annotations

import ast
import re
from datetime import date

from foresci.kb.venue_status import parse_venue_status

_NEW_STYLE_ID = re.compile(r"^(\d{4})\.(\d{4,5})$")
_OLD_STYLE_ID = re.compile(r"^([a-z][a-z\-]*(?:\.[A-Z]{2})?)/(\d{2})(\d{2})\d{3}$")
_VERSION_SUFFIX = re.compile(r"v\d+$")
_ID_PREFIXES = (
    "arxiv:",
    "https://arxiv.org/abs/",
    "http://arxiv.org/abs/",
    "https://arxiv.org/pdf/",
    "http://arxiv.org/pdf/",
)


class FieldError(ValueError):
    """A field of a raw row that cannot be normalised; ``field`` names it."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


def normalize_arxiv_id(raw: object) -> str:
    """Return the arXiv id without prefix or version ('arXiv:2503.11731v2' -> '2503.11731').

    Raises FieldError('id', ...) when the value is not an arXiv identifier.
    """
    if not isinstance(raw, str | int | float) or isinstance(raw, bool):
        raise FieldError("id", f"expected a string, got {type(raw).__name__}")
    text = str(raw).strip()
    lowered = text.lower()
    for prefix in _ID_PREFIXES:
        if lowered.startswith(prefix):
            text = text[len(prefix) :]
            break
    text = _VERSION_SUFFIX.sub("", text.removesuffix(".pdf"))
    if not text:
        raise FieldError("id", "missing")
    if _NEW_STYLE_ID.match(text) or _OLD_STYLE_ID.match(text):
        return text
    raise FieldError("id", f"not an arXiv id: {text[:40]!r}")


def id_month(paper_id: str) -> date:
    """The first day of the month encoded in an arXiv id (no paper is announced before it)."""
    match = _NEW_STYLE_ID.match(paper_id)
    if match:
        yymm = match.group(1)
    else:
        old = _OLD_STYLE_ID.match(paper_id)
        if not old:
            raise FieldError("id", f"not an arXiv id: {paper_id[:40]!r}")
        yymm = old.group(2) + old.group(3)
    year, month = int(yymm[:2]), int(yymm[2:])
    century = 1900 if year >= 91 else 2000
    if not 1 <= month <= 12:
        raise FieldError("id", f"impossible month in arXiv id {paper_id!r}")
    return date(century + year, month, 1)


def clean_text(value: object, field: str, required: bool = True) -> str:
    """Collapse whitespace of a text field; raise FieldError when a required field is missing or not text."""
    if value is None:
        if required:
            raise FieldError(field, "missing")
        return ""
    if not isinstance(value, str):
        raise FieldError(field, f"expected a string, got {type(value).__name__}")
    cleaned = " ".join(value.split())
    if required and not cleaned:
        raise FieldError(field, "empty")
    return cleaned


def parse_list_field(value: object, field: str, separator: str | None = None) -> list[str]:
    """Return a list of strings from a list, a stringified Python/JSON list, or a separated string."""
    if value is None:
        return []
    if isinstance(value, list):
        items = value
    elif isinstance(value, str):
        stripped = value.strip()
        if stripped.startswith("[") != stripped.endswith("]"):
            raise FieldError(field, f"broken stringified list {stripped[:40]!r} (unbalanced brackets)")
        if stripped.startswith("[") and stripped.endswith("]"):
            try:
                parsed = ast.literal_eval(stripped)
            except (ValueError, SyntaxError) as error:
                raise FieldError(field, f"unreadable stringified list: {error}") from error
            if not isinstance(parsed, list | tuple):
                raise FieldError(field, "stringified value is not a list")
            items = list(parsed)
        elif not stripped:
            items = []
        elif separator is None:
            items = stripped.split()
        else:
            items = re.split(separator, stripped)
    else:
        raise FieldError(field, f"expected a list, got {type(value).__name__}")
    result: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise FieldError(field, f"list item is {type(item).__name__}, not a string")
        cleaned = " ".join(item.split())
        if cleaned:
            result.append(cleaned)
    return result


def venue_from_comment(comment: str | None) -> tuple[str | None, int | None]:
    """Return (venue family, year) of an acceptance reported by an arXiv comment, or (None, None).

    "Accepted to CVPR 2026" -> ("CVPR/ICCV/ECCV", 2026); submissions, workshops and "under review" yield
    no venue (rules in ``foresci.kb.venue_status``).
    """
    status = parse_venue_status(comment)
    if status.accepted_family is None:
        return None, None
    return status.accepted_family, status.year
