"""URL masking stays linear in the text: a long answer or reply is masked in well under a second."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from foresci.core import redact
from foresci.core.io import write_jsonl
from foresci.core.redact import mask_urls_in


def test_a_one_megabyte_field_is_masked_in_linear_time(tmp_path: Path) -> None:
    # 1 MB of letters after '://' (a backtracking scan rescans the word from every start: minutes)
    field = "see http://bob:pw@host/x?token=s3cret and http://" + "a" * 1_000_000 + " end"
    started = time.monotonic()
    masked = mask_urls_in(field)
    assert time.monotonic() - started < 1.0
    assert "s3cret" not in masked and "bob:pw" not in masked and masked.endswith(" end")
    started = time.monotonic()
    write_jsonl(tmp_path / "rows.jsonl", [{"answer": field}])
    assert time.monotonic() - started < 2.0
    row = json.loads((tmp_path / "rows.jsonl").read_text())
    assert "s3cret" not in row["answer"] and len(row["answer"]) > 1_000_000


def test_masking_finds_urls_the_way_it_did() -> None:
    assert mask_urls_in("x1http://a@b/c?token=1'y") == "x1http://***@b/c?token=***'y"
    assert mask_urls_in("://http://a:b@c/?key=1") == "://http://***@c/?key=***"
    assert mask_urls_in("9abc+d://x@y z") == "9abc+d://***@y z"
    assert mask_urls_in("a:// and 1://x@y") == "a:// and 1://x@y"


class _Counting:
    """Stands in for the masker's scanners and counts the letters they read."""

    def __init__(self, pattern: Any, scheme_chars: frozenset[str]) -> None:
        self.pattern, self.scheme_chars, self.read = pattern, scheme_chars, 0

    def search(self, text: str, position: int) -> Any:
        found = self.pattern.search(text, position)
        self.read += (found.start() if found else len(text)) - position + 1
        return found

    def __contains__(self, letter: str) -> bool:
        self.read += 1
        return letter in self.scheme_chars


@pytest.mark.parametrize("text", [
    "://" * 20_000,  # issue 39.10: each "://" scanned the rest of the text (60k letters: 6.6 s)
    "a" * 30_000 + "://" * 10_000,
    "a:// " * 12_000,
    "x://\"" * 12_000,
    ("abc" * 1_000 + "://") * 20,
    "http://h/" + "://" * 20_000,
])
def test_masking_reads_each_letter_a_bounded_number_of_times(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counted, not timed: the letters the scanners read stay within 3 per letter of the text."""
    counting = _Counting(redact._URL_BODY_END, redact._SCHEME_CHARS)
    monkeypatch.setattr(redact, "_URL_BODY_END", counting)
    monkeypatch.setattr(redact, "_SCHEME_CHARS", counting)
    masked = mask_urls_in(text)
    assert counting.read <= 3 * len(text), (counting.read, len(text))
    assert masked == text  # nothing secret in these: unchanged


def test_urls_among_repeated_separators_are_still_masked() -> None:
    text = "://" * 1_000 + " http://bob:pw@host/?token=s3 " + "://" * 1_000 + "ftp://u:p@h"
    masked = mask_urls_in(text)
    assert "bob:pw" not in masked and "s3" not in masked and "u:p" not in masked
    assert masked == ("://" * 1_000 + " http://***@host/?token=*** " + "://" * 1_000 + "ftp://***@h")
